// StrykerJS configuration for `npm run test:mutation` (scripts/mutation.mjs runs one
// Stryker run per group of scripts/mutation-groups.mjs, named by MUTATION_GROUP).
import { groups } from "./scripts/mutation-groups.mjs";

const name = process.env.MUTATION_GROUP ?? "";
const group = groups[name];
if (!group) throw new Error(`MUTATION_GROUP must name one of: ${Object.keys(groups).join(", ")} (got ${JSON.stringify(name)})`);

export default {
  // The command runner needs no framework plugin: node:test through tsx, as `npm test` runs it.
  testRunner: "command",
  commandRunner: { command: `node --import tsx --test --test-concurrency=1 ${group.tests.join(" ")}` },
  mutate: group.mutate,
  // The command runner reports no per-test coverage: every mutant runs the group's tests.
  coverageAnalysis: "off",
  // Two cores: two test processes at most; MUTATION_CONCURRENCY=1 on a busy machine.
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  // Generous, so that a loaded machine does not turn a surviving mutant into a timeout (which counts as killed).
  timeoutMS: 30_000,
  timeoutFactor: 3,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ignorePatterns: ["dist", "data", "bench/results", "test/artifacts", "docs/images", "reports", ".stryker-tmp*"],
};
