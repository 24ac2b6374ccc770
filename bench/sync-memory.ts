/**
 * Memory of a first sync: the plugin as the standalone server runs it,
 * compiled and in a plain `node` process of its own
 * (bench/support/sync-memory-child.ts), syncing N blogs from the fixture
 * server of bench/sync.ts (200 ms per response, 100 host names); with
 * `--home-pages`, scenario 1b's fixture (every site icon looked up). It
 * reports RSS and the V8 heap before the sync, the peak RSS the kernel
 * recorded, the main thread's memory at the sampled peak and the live heap
 * after. `--compare <git ref>` runs the same child on that revision too
 * (exported to a temporary folder, compiled there), the two alternating
 * `--runs` times, side by side in one table. `--api-probe` asks the API
 * without pause from another process during each sync (`/api/items?limit=50`
 * and `/api/blogs`, as bench/scale.ts does); `--options` passes plugin
 * options as JSON. `--node-args` passes flags to
 * the children's `node` (an operator's choice such as
 * `--max-semi-space-size=4`); the environment is theirs too (`MALLOC_*`).
 *
 *   node --import tsx bench/sync-memory.ts [--feeds 1000] [--home-pages] [--api-probe] [--delay 200] [--compare main] [--runs 1]
 *     [--main-thread-parse] [--options '{"siteIcons":false}'] [--node-args "--max-semi-space-size=4"]
 */
import { execFileSync, execSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { LatencyFigures } from "./support/api-prober.js";
import { startFeedFixture } from "./support/fixture-server.js";
import { report, target, type BenchResult } from "./support/measure.js";

const { values: args } = parseArgs({
  options: {
    feeds: { type: "string", default: "1000" },
    delay: { type: "string", default: "200" },
    "home-pages": { type: "boolean", default: false },
    compare: { type: "string" },
    runs: { type: "string", default: "1" },
    "main-thread-parse": { type: "boolean", default: false },
    "api-probe": { type: "boolean", default: false },
    options: { type: "string" },
    "node-args": { type: "string", default: "" },
  },
});
const FEEDS = Number(args.feeds);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CHILD = "bench/support/sync-memory-child.ts";

interface ChildReport {
  kernelAtPeak: { RssAnon?: number; RssFile?: number };
  blogs: { total: number; success: number; failed: number };
  itemsAdded: number;
  seconds: number;
  cpuSeconds: number;
  before: Record<string, number>;
  peakRssMb: number;
  atSampledPeak: Record<string, number>;
  after: Record<string, number>;
  api?: Record<string, LatencyFigures>;
}

/** Compiles the child and what it imports from `tree` into `tree`/bench/results/memory-build; returns the entry. */
function compile(tree: string): string {
  const out = path.join(tree, "bench/results/memory-build");
  const config = path.join(tree, "bench/results/tsconfig.memory.json");
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(tree, "tsconfig.json"),
      compilerOptions: { noEmit: false, declaration: false, outDir: out, rootDir: tree },
      // The parse worker's entry is started by file name, never imported.
      files: [path.join(tree, CHILD), path.join(tree, "lib/sync/parse-worker.ts")],
      include: [],
    }),
  );
  const entry = path.join(out, CHILD.replace(/\.ts$/, ".js"));
  try {
    execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", config], {
      stdio: "inherit",
    });
  } catch (error) {
    // An older revision may want type packages this checkout lacks: tsc still writes its JavaScript.
    if (tree === root || !existsSync(entry)) throw error;
    console.warn(`(${tree}: type errors above; its JavaScript was written and runs)`);
  }
  return entry;
}

/** The revision `ref` of this repository in a temporary folder, with this checkout's child and node_modules. */
function exportRevision(ref: string): { tree: string; cleanup(): void } {
  const tree = mkdtempSync(path.join(tmpdir(), "blogroll-memory-ref-"));
  execSync(`git -C ${JSON.stringify(root)} archive ${ref} | tar -x -C ${JSON.stringify(tree)}`);
  symlinkSync(path.join(root, "node_modules"), path.join(tree, "node_modules"));
  copyFileSync(path.join(root, CHILD), path.join(tree, CHILD));
  return { tree, cleanup: () => rmSync(tree, { recursive: true, force: true }) };
}

const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");

const fixture = await startFeedFixture({
  feeds: FEEDS,
  hosts: 100,
  delayMs: Number(args.delay),
  homePages: args["home-pages"],
});
const urlsFile = path.join(mkdtempSync(path.join(tmpdir(), "blogroll-memory-urls-")), "feeds.txt");
writeFileSync(urlsFile, Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index)).join("\n"));

const variants: Array<{ name: string; entry: string; cleanup?: () => void }> = [];
if (args.compare) {
  const exported = exportRevision(args.compare);
  variants.push({ name: args.compare, entry: compile(exported.tree), cleanup: exported.cleanup });
}
variants.push({ name: "this checkout", entry: compile(root) });

const results = new Map<string, ChildReport[]>(variants.map((variant) => [variant.name, []]));
const loads: string[] = [`start ${loadNow()}`];
for (let run = 0; run < Number(args.runs); run++) {
  for (const variant of variants) {
    const output = execFileSync(
      process.execPath,
      [
        "--expose-gc",
        ...args["node-args"].split(" ").filter(Boolean),
        variant.entry,
        urlsFile,
        ...(args["main-thread-parse"] ? ["--main-thread-parse"] : []),
        ...(args["api-probe"] ? ["--api-probe"] : []),
        ...(args.options ? ["--options", args.options] : []),
      ],
      { encoding: "utf8" },
    );
    const measured = JSON.parse(output.trim().split("\n").at(-1)!) as ChildReport;
    console.log(`${variant.name}, run ${run + 1}: ${JSON.stringify(measured)}`);
    results.get(variant.name)!.push(measured);
  }
  loads.push(`after run ${run + 1} ${loadNow()}`);
}
await fixture.close();
rmSync(path.dirname(urlsFile), { recursive: true, force: true });
for (const variant of variants) variant.cleanup?.();

const list = (name: string, pick: (measured: ChildReport) => number | string) =>
  results.get(name)!.map(pick).join(" / ");
const figures: Record<string, string> = {};
for (const variant of variants) {
  const name = variant.name;
  figures[`${name}: peak RSS MB`] = list(name, (m) => m.peakRssMb);
  figures[`${name}: before the sync RSS / heap used MB`] = list(
    name,
    (m) => `${m.before.rssMb} / ${m.before.heapUsedMb}`,
  );
  figures[`${name}: at the sampled peak heap used / total / array buffers MB`] = list(
    name,
    (m) => `${m.atSampledPeak.heapUsedMb} / ${m.atSampledPeak.heapTotalMb} / ${m.atSampledPeak.arrayBuffersMb}`,
  );
  figures[`${name}: at the peak, anonymous / file-backed RSS MB`] = list(
    name,
    (m) => `${m.kernelAtPeak.RssAnon} / ${m.kernelAtPeak.RssFile}`,
  );
  figures[`${name}: after the sync, collected: RSS / heap used MB`] = list(
    name,
    (m) => `${m.after.rssMb} / ${m.after.heapUsedMb}`,
  );
  figures[`${name}: sync s / CPU s / blogs ok / items`] = list(
    name,
    (m) => `${m.seconds} / ${m.cpuSeconds} / ${m.blogs.success} / ${m.itemsAdded}`,
  );
  if (args["api-probe"])
    figures[`${name}: API p99 during the sync, items / blogs ms (requests)`] = list(
      name,
      (m) => `${m.api?.items?.p99} / ${m.api?.blogs?.p99} (${(m.api?.items?.count ?? 0) + (m.api?.blogs?.count ?? 0)})`,
    );
}
figures["load average (1, 5, 15 min)"] = loads.join("; ");
const mine = results.get("this checkout")!;
const worst = Math.max(...mine.map((measured) => measured.peakRssMb));
const result: BenchResult = {
  scenario: `Memory of a first sync of ${FEEDS} blogs${args["home-pages"] ? " (site icons looked up)" : ""}${args["api-probe"] ? " (the API asked meanwhile)" : ""}`,
  figures,
  targets: FEEDS <= 1000 ? [target("peak RSS", worst, "<=", 200, "MB")] : [target("peak RSS", worst, "<=", 400, "MB")],
  notes: [
    "each run a plain node process of compiled code; peak RSS is the kernel's VmHWM",
    ...(args["node-args"] ? [`node flags: ${args["node-args"]}`] : []),
    ...(args["main-thread-parse"] ? ["feeds parsed on the main thread"] : []),
    ...(args.options ? [`plugin options: ${args.options}`] : []),
  ],
};
report(result);
