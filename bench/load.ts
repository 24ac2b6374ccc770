/**
 * Scenario 6: memory under load. 50 concurrent clients (autocannon, in its
 * own process) request /api/items for 30 s while a first sync of 1 000 feeds
 * runs in the server's process; reports errors and the server process's RSS
 * at the start, peak and end.
 *
 *   node --import tsx bench/load.ts [--feeds 1000] [--seconds 30] [--clients 50]
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { resolveOptions } from "../lib/options.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { createSyncRunner } from "../lib/sync/run.js";
import { startTestServer } from "../test/support/server.js";
import { loopbackDispatcher, startFeedFixture } from "./support/fixture-server.js";
import { report, round, sampleRss, target } from "./support/measure.js";
import { addBlogs } from "./support/stores.js";

const { values: args } = parseArgs({
  options: {
    feeds: { type: "string", default: "1000" },
    seconds: { type: "string", default: "30" },
    clients: { type: "string", default: "50" },
  },
});
const FEEDS = Number(args.feeds);

interface AutocannonSummary {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** Runs autocannon in a child process (so its work is not the server's) and returns its JSON summary. */
function autocannon(url: string): Promise<AutocannonSummary> {
  const bin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
  const child = spawn(process.execPath, [bin, "-c", String(args.clients), "-d", String(args.seconds), "-j", url], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(output) as AutocannonSummary) : reject(new Error(`autocannon exited ${code}`)),
    );
  });
}

const fixture = await startFeedFixture({ feeds: FEEDS, hosts: 100, delayMs: 200 });
const server = await startTestServer("sqlite", { mongodbUrl: null });
await addBlogs(
  server.storage,
  Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index)),
);
// The product's default pool (16 fetches, 2 per host).
const options = resolveOptions({ allowPrivateNetworks: true, mongodbUrl: null });
const dispatcher = loopbackDispatcher(2);
const run = createSyncRunner({ options, dispatcher, parseInWorkers: true });

const memory = sampleRss();
const started = performance.now();
let syncSeconds = 0;
const sync = run(server.storage, { signal: new AbortController().signal, progress: () => undefined }).then((stats) => {
  syncSeconds = round((performance.now() - started) / 1000, 2);
  return stats;
});
const load = await autocannon(`${server.api}/items?limit=50`);
const stats = await sync;
const rss = memory.stop();

await server.close();
await closeParsePool();
await dispatcher.close();
await fixture.close();

const failures = load.errors + load.timeouts + load.non2xx;
report({
  scenario: "6. Memory under load",
  figures: {
    clients: Number(args.clients),
    "load s": Number(args.seconds),
    "requests (total)": load.requests.total,
    "requests/s": load.requests.average,
    "latency p50 / p99 / max ms": `${load.latency.p50} / ${load.latency.p99} / ${load.latency.max}`,
    "errors / timeouts / non-2xx": `${load.errors} / ${load.timeouts} / ${load.non2xx}`,
    "sync s (under load)": syncSeconds,
    "sync blogs ok / failed": `${stats.blogs.success} / ${stats.blogs.failed}`,
    "RSS MB start / peak / end": `${rss.startMb} / ${rss.peakMb} / ${rss.endMb}`,
    "main thread at peak": rss.atPeak,
  },
  targets: [target("request failures", failures, "<=", 0, "requests")],
  notes: [
    "the sync starts with the load; when it ends first, the rest of the load runs without it",
    "RSS is the server process's (API, sync and its parse worker); the issue sets no number here, only that it stays bounded",
  ],
});
