/**
 * `npm run bench`: runs every benchmark script in its own process, one after
 * another (so none disturbs another's figures), and prints a summary of the
 * targets. Exit code 0 even when a target is missed: these are measurements,
 * not tests.
 *
 *   node --import tsx bench/run-all.ts [sync] [api-scale] [parse] [load] [live]
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RESULTS_FOLDER, type BenchResult } from "./support/measure.js";

const SCRIPTS = ["sync", "api-scale", "parse", "load", "live"];
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SCRIPTS;
const results: BenchResult[] = [];
const failed: string[] = [];

for (const name of chosen) {
  if (!SCRIPTS.includes(name)) throw new Error(`unknown benchmark ${name}; choose from ${SCRIPTS.join(", ")}`);
  const resultFile = path.join(RESULTS_FOLDER, `${name}.json`);
  const started = performance.now();
  console.log(`\n### bench/${name}.ts`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", new URL(`./${name}.ts`, import.meta.url).pathname], {
      stdio: "inherit",
      env: { ...process.env, BENCH_RESULT: resultFile },
    });
    child.on("exit", resolve);
  });
  console.log(`(bench/${name}.ts took ${Math.round((performance.now() - started) / 1000)} s)`);
  if (code !== 0) {
    failed.push(name);
    continue;
  }
  results.push(...(JSON.parse(readFileSync(resultFile, "utf8")) as BenchResult[]));
}

console.log(`\n### Summary (${new Date().toISOString()}, Node ${process.version}, SQLite)`);
for (const result of results) {
  console.log(result.scenario);
  for (const check of result.targets) {
    console.log(
      `  [${check.pass ? "PASS" : "MISS"}] ${check.name}: ${check.value} ${check.unit} (target ${check.op} ${check.limit})`,
    );
  }
}
const checks = results.flatMap((result) => result.targets);
console.log(
  `\n${checks.filter((check) => check.pass).length} of ${checks.length} targets met${failed.length ? `; scripts that failed: ${failed.join(", ")}` : ""}`,
);
const summary = path.join(RESULTS_FOLDER, "summary.json");
mkdirSync(RESULTS_FOLDER, { recursive: true });
writeFileSync(
  summary,
  JSON.stringify({ date: new Date().toISOString(), node: process.version, store: "SQLite", results, failed }, null, 2),
);
console.log(`results: ${path.relative(process.cwd(), summary)} and one JSON file per script beside it`);
if (failed.length > 0) process.exitCode = 1;
