/**
 * Scenarios 1–3: a full first sync of 1 000 feeds from the fixture server
 * (200 ms per response, 100 host names), with the API probed meanwhile, then
 * an immediate conditional re-sync; and, side by side, the serial baseline
 * (one feed after another, parsed on the main thread, as the earlier plugin
 * did) on a deterministic subset, extrapolated.
 *
 *   node --import tsx bench/sync.ts [--feeds 1000] [--baseline 100] [--concurrency 16] [--per-host 2]
 *     [--delay 200] [--main-thread-parse]
 */
import { parseArgs } from "node:util";
import { createSyncRunner } from "../lib/sync/run.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { defaultOptions, resolveOptions } from "../lib/options.js";
import type { Storage } from "../lib/storage/types.js";
import { startTestServer } from "../test/support/server.js";
import { loopbackDispatcher, startFeedFixture, type FeedFixture } from "./support/fixture-server.js";
import { cpuSeconds, probeLatency, report, round, sampleRss, target, watchEventLoop, type BenchResult } from "./support/measure.js";
import { addBlogs } from "./support/stores.js";
import { openTempStorage } from "../test/sync/harness.js";

const { values: args } = parseArgs({
  options: {
    feeds: { type: "string", default: "1000" },
    baseline: { type: "string", default: "100" },
    // The product's defaults (lib/options.ts).
    concurrency: { type: "string", default: String(defaultOptions.concurrency) },
    "per-host": { type: "string", default: String(defaultOptions.perHostConcurrency) },
    delay: { type: "string", default: "200" },
    // For comparison: parse on the main thread instead of the worker pool.
    "main-thread-parse": { type: "boolean", default: false },
  },
});
const FEEDS = Number(args.feeds);
const BASELINE = Math.min(FEEDS, Number(args.baseline));
const CONCURRENCY = Number(args.concurrency);
const PER_HOST = Number(args["per-host"]);
const DELAY = Number(args.delay);

const fixture = await startFeedFixture({ feeds: FEEDS, hosts: 100, delayMs: DELAY });
const feedUrls = Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index));
const totalFeedMb = round(feedUrls.reduce((sum, _url, index) => sum + fixture.describe(index).bytes, 0) / 1e6);
console.log(`fixture: ${FEEDS} feeds, ${totalFeedMb} MB, 100 hosts, ${DELAY} ms per response, port ${fixture.port}`);

const options = resolveOptions({ concurrency: CONCURRENCY, perHostConcurrency: PER_HOST, allowPrivateNetworks: true, mongodbUrl: null });
const dispatcher = loopbackDispatcher(PER_HOST);
const noProgress = () => undefined;

/** The serial baseline: every `FEEDS / BASELINE`-th feed, one at a time, parsed on the main thread. */
async function serialBaseline(): Promise<{ seconds: number; perFeed: number; extrapolated: number }> {
  const store = await openTempStorage();
  const step = Math.max(1, Math.floor(FEEDS / BASELINE));
  await addBlogs(store.storage, feedUrls.filter((_url, index) => index % step === 0).slice(0, BASELINE));
  const run = createSyncRunner({
    options: { ...options, concurrency: 1, perHostConcurrency: 1 },
    dispatcher: loopbackDispatcher(1),
    parseInWorkers: false,
  });
  const started = performance.now();
  const stats = await run(store.storage, { signal: new AbortController().signal, progress: noProgress });
  const seconds = (performance.now() - started) / 1000;
  if (stats.blogs.success !== BASELINE) throw new Error(`baseline: ${stats.blogs.failed} of ${BASELINE} feeds failed`);
  await store.cleanup();
  return { seconds: round(seconds, 2), perFeed: round((seconds / BASELINE) * 1000), extrapolated: round((seconds / BASELINE) * FEEDS) };
}

async function itemCount(storage: Storage): Promise<number> {
  return storage.items.count();
}

async function syncOnce(storage: Storage, fixtureRef: FeedFixture, api: string) {
  const run = createSyncRunner({ options, dispatcher, parseInWorkers: !args["main-thread-parse"] });
  const before = await fixtureRef.stats();
  const itemsBefore = await itemCount(storage);
  const rss = sampleRss();
  const loop = watchEventLoop();
  const probe = probeLatency(`${api}/items?limit=50`);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stats = await run(storage, { signal: new AbortController().signal, progress: noProgress });
  const seconds = (performance.now() - started) / 1000;
  const cpuUsed = cpuSeconds(cpu);
  const loopDelay = loop.stop();
  const latency = await probe.stop();
  const memory = rss.stop();
  const after = await fixtureRef.stats();
  return {
    stats,
    seconds: round(seconds, 2),
    cpuSeconds: cpuUsed,
    memory,
    loopDelay,
    latency,
    bytes: after.bytesSent - before.bytesSent,
    responses: Object.fromEntries(Object.entries(after.byStatus).map(([status, count]) => [status, count - (before.byStatus[status] ?? 0)])),
    itemsWritten: (await itemCount(storage)) - itemsBefore,
  };
}

const baseline = await serialBaseline();
console.log(`serial baseline: ${BASELINE} feeds in ${baseline.seconds} s (${baseline.perFeed} ms/feed) -> ${baseline.extrapolated} s for ${FEEDS}`);

const server = await startTestServer("sqlite", { mongodbUrl: null });
await addBlogs(server.storage, feedUrls);

const first = await syncOnce(server.storage, fixture, server.api);
console.log(`first sync: ${first.seconds} s, ${first.stats.blogs.success}/${first.stats.blogs.total} ok, ${first.stats.items.added} items`);
const second = await syncOnce(server.storage, fixture, server.api);
console.log(`re-sync: ${second.seconds} s, ${second.stats.blogs.notModified} not modified`);

await server.close();
await closeParsePool();
await dispatcher.close();
await fixture.close();

const speedup = baseline.extrapolated / first.seconds;
const bytesRatio = (second.bytes / first.bytes) * 100;
const results: BenchResult[] = [
  {
    scenario: "1. Sync throughput (first sync)",
    figures: {
      feeds: FEEDS,
      "feed MB (uncompressed)": totalFeedMb,
      "concurrency / per host": `${CONCURRENCY} / ${PER_HOST}`,
      "parsing": args["main-thread-parse"] ? "main thread" : "worker pool",
      "wall s": first.seconds,
      "CPU s": first.cpuSeconds,
      "feeds/s": round(FEEDS / first.seconds),
      "RSS MB start / peak / end": `${first.memory.startMb} / ${first.memory.peakMb} / ${first.memory.endMb}`,
      "main thread at peak": first.memory.atPeak,
      "blogs ok / failed": `${first.stats.blogs.success} / ${first.stats.blogs.failed}`,
      "items added": first.stats.items.added,
      [`serial baseline s (${BASELINE} feeds, measured)`]: baseline.seconds,
      [`serial baseline s (${FEEDS} feeds, extrapolated)`]: baseline.extrapolated,
      "speed-up": round(speedup),
    },
    targets: [
      target("first sync wall time", first.seconds, "<=", 30, "s"),
      target("speed-up over the serial baseline", speedup, ">=", 7, "x"),
      target("peak RSS", first.memory.peakMb, "<=", 300, "MB"),
    ],
    notes: [`serial baseline measured on every ${Math.floor(FEEDS / BASELINE)}th feed (${BASELINE} feeds) and scaled linearly to ${FEEDS}`],
  },
  {
    scenario: "2. API responsive during the sync",
    figures: {
      "event-loop delay p50 ms": first.loopDelay.p50,
      "event-loop delay p99 ms": first.loopDelay.p99,
      "event-loop delay max ms": first.loopDelay.max,
      "/api/items requests": first.latency.count,
      "/api/items failures": first.latency.failures,
      "/api/items p50 ms": first.latency.p50,
      "/api/items p99 ms": first.latency.p99,
      "/api/items max ms": first.latency.max,
    },
    targets: [
      target("event-loop delay p99", first.loopDelay.p99, "<=", 50, "ms"),
      target("/api/items p99 during sync", first.latency.p99, "<=", 50, "ms"),
    ],
    notes: ["/api/items?limit=50 requested back to back (20 ms apart) from the same process during the first sync"],
  },
  {
    scenario: "3. Conditional re-sync",
    figures: {
      "wall s": second.seconds,
      "CPU s": second.cpuSeconds,
      "responses": JSON.stringify(second.responses),
      "bytes first sync": first.bytes,
      "bytes re-sync": second.bytes,
      "bytes ratio %": round(bytesRatio, 2),
      "items written": second.itemsWritten + second.stats.items.added,
    },
    targets: [
      target("bytes received vs first sync", bytesRatio, "<=", 5, "%"),
      target("items written", second.itemsWritten + second.stats.items.added, "<=", 0, "items"),
      target("re-sync wall time", second.seconds, "<=", 15, "s"),
    ],
    notes: ["bytes are counted on the fixture's sockets (headers and gzip bodies as sent)"],
  },
];
report(...results);
