/**
 * `npm run test:mutation [group ...]`: runs StrykerJS on each group of
 * scripts/mutation-groups.mjs (all of them, or those named), then prints the
 * mutation score of every module and overall from the JSON reports.
 * Survivors are listed by Stryker's clear-text report as each run ends.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { groups } from "./mutation-groups.mjs";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in groups));
if (unknown.length > 0) {
  console.error(`unknown group(s): ${unknown.join(", ")}; the groups are ${Object.keys(groups).join(", ")}`);
  process.exit(2);
}
const names = asked.length > 0 ? asked : Object.keys(groups);
const stryker = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@stryker-mutator/core/package.json")),
  "bin",
  "stryker.js",
);

let failed = false;
for (const name of names) {
  console.log(`\n=== mutation testing: ${name} (${groups[name].mutate.join(", ")})`);
  const run = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs"], {
    stdio: "inherit",
    env: { ...process.env, MUTATION_GROUP: name },
  });
  if (run.status !== 0) {
    console.error(`Stryker failed on ${name} (exit ${run.status})`);
    failed = true;
  }
}

/** Killed and timed-out mutants are detected; survivors and uncovered ones are not. Equivalent to Stryker's own score. */
const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);
const rows = [];
const total = { detected: 0, undetected: 0 };
for (const name of names) {
  let report;
  try {
    report = JSON.parse(readFileSync(`reports/mutation/${name}.json`, "utf8"));
  } catch {
    continue;
  }
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length;
    const undetected = mutants.filter((mutant) => UNDETECTED.has(mutant.status)).length;
    total.detected += detected;
    total.undetected += undetected;
    rows.push([file, detected, undetected]);
  }
}
const score = (detected, undetected) =>
  detected + undetected === 0 ? "n/a" : `${((100 * detected) / (detected + undetected)).toFixed(1)} %`;
console.log("\nmodule | killed | survived | score");
for (const [file, detected, undetected] of rows)
  console.log(`${file} | ${detected} | ${undetected} | ${score(detected, undetected)}`);
console.log(`all | ${total.detected} | ${total.undetected} | ${score(total.detected, total.undetected)}`);
process.exit(failed ? 1 : 0);
