/**
 * Long fuzz run: the hardening property tests (parsers, sanitiser, URL keys,
 * validators, dates, public API) with many more cases than npm test uses.
 *
 *   node --import tsx bench/hardening-fuzz.ts [runs per property, default 5000]
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const runs = process.argv[2] ?? "5000";
const repo = path.resolve(import.meta.dirname, "..");
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "test/hardening/properties.test.ts", "test/hardening/api-fuzz.test.ts"],
  { cwd: repo, env: { ...process.env, HARDENING_RUNS: runs }, stdio: "inherit" },
);
process.exit(result.status ?? 1);
