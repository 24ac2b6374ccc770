/**
 * Manual check: parseFeed of this checkout against another checkout's (say,
 * main before a change), in one process, rounds interleaved A B A B so that
 * load from other work on a shared machine falls on both alike. Reports MB
 * per second of wall time and per second of this thread's CPU time (less
 * disturbed when other processes take turns on the cores). Generated feeds
 * as in scenario 5 (bench/parse.ts), XML formats only by default.
 *
 *   node --import tsx bench/parse-compare.ts <other checkout> [--feeds 150] [--rounds 8] [--all-formats]
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseFeed } from "../lib/feeds/parse.js";
import { generateFeed } from "./support/feeds.js";
import { round } from "./support/measure.js";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    feeds: { type: "string", default: "150" },
    rounds: { type: "string", default: "8" },
    "all-formats": { type: "boolean", default: false },
  },
});
if (!positionals[0]) {
  console.error(
    "usage: node --import tsx bench/parse-compare.ts <other checkout> [--feeds 150] [--rounds 8] [--all-formats]",
  );
  process.exit(2);
}
const other = (await import(pathToFileURL(path.resolve(positionals[0], "lib/feeds/parse.ts")).href)) as {
  parseFeed: typeof parseFeed;
};

const now = new Date();
const samples = Array.from({ length: Number(args.feeds) }, (_, index) => {
  const feed = generateFeed(index, `h${index % 100}.bench.test`, now);
  return {
    format: feed.format,
    bytes: new Uint8Array(Buffer.from(feed.body)),
    url: `https://h${index % 100}.bench.test/feed`,
    contentType: feed.contentType,
  };
}).filter((sample) => args["all-formats"] || sample.format !== "json");
const megabytes = samples.reduce((sum, sample) => sum + sample.bytes.length, 0) / 1e6;

async function pass(parse: typeof parseFeed): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (const sample of samples)
    await parse(sample.bytes, { url: sample.url, contentType: sample.contentType, maxItems: 1000 });
  const cpu = process.cpuUsage(cpuStarted);
  return { wall: megabytes / ((performance.now() - started) / 1000), cpu: megabytes / ((cpu.user + cpu.system) / 1e6) };
}

const contenders: Array<[string, typeof parseFeed]> = [
  ["other", other.parseFeed],
  ["this", parseFeed],
];
for (const [, parse] of contenders) await pass(parse); // warm-up
const figures = new Map<string, Array<{ wall: number; cpu: number }>>(contenders.map(([name]) => [name, []]));
for (let index = 0; index < Number(args.rounds); index++) {
  // Alternate which goes first, so neither always follows the other's garbage.
  const order = index % 2 === 0 ? contenders : [...contenders].reverse();
  for (const [name, parse] of order) figures.get(name)!.push(await pass(parse));
}
type Clock = "wall" | "cpu";
const values = (name: string, clock: Clock) =>
  figures
    .get(name)!
    .map((figure) => figure[clock])
    .sort((a, b) => a - b);
const best = (name: string, clock: Clock) => values(name, clock).at(-1)!;
const median = (name: string, clock: Clock) => values(name, clock)[Math.floor(values(name, clock).length / 2)];
console.log(`${samples.length} generated feeds, ${round(megabytes, 2)} MB, ${args.rounds} interleaved rounds`);
for (const [name] of contenders) {
  const where = name === "other" ? path.resolve(positionals[0]) : "this checkout";
  console.log(
    `  ${name.padEnd(5)} wall: best ${round(best(name, "wall"))}, median ${round(median(name, "wall"))} MB/s; ` +
      `CPU: best ${round(best(name, "cpu"))}, median ${round(median(name, "cpu"))} MB/s  (${where})`,
  );
}
for (const clock of ["wall", "cpu"] as const) {
  console.log(
    `  this / other (${clock}): best ${round(best("this", clock) / best("other", clock), 2)}x, median ${round(median("this", clock) / median("other", clock), 2)}x`,
  );
}
