/**
 * Scenarios 1–3: a full first sync of 1 000 feeds from the fixture server
 * (200 ms per response, 100 host names), with the API probed meanwhile, then
 * an immediate conditional re-sync; and, side by side, the serial baseline
 * (one feed after another, parsed on the main thread, as the earlier plugin
 * did) on a deterministic subset, extrapolated.
 * Scenario 1b, in the same run: the same feeds without images, each blog
 * with a home page (half declaring an icon, no /favicon.ico anywhere), so
 * every blog's site icon is looked up; requests by kind, time to all posts
 * stored and to all icons, then the all-304 re-sync.
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
import { loopbackDispatcher, startFeedFixture, type FeedFixture, type FixtureStats } from "./support/fixture-server.js";
import {
  cpuSeconds,
  probeLatency,
  report,
  round,
  sampleRss,
  target,
  watchEventLoop,
  type BenchResult,
} from "./support/measure.js";
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
const homePagesFixture = await startFeedFixture({ feeds: FEEDS, hosts: 100, delayMs: DELAY, homePages: true });
const feedUrls = Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index));
const totalFeedMb = round(feedUrls.reduce((sum, _url, index) => sum + fixture.describe(index).bytes, 0) / 1e6);
console.log(`fixture: ${FEEDS} feeds, ${totalFeedMb} MB, 100 hosts, ${DELAY} ms per response, port ${fixture.port}`);

const options = resolveOptions({
  concurrency: CONCURRENCY,
  perHostConcurrency: PER_HOST,
  allowPrivateNetworks: true,
  mongodbUrl: null,
});
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
  return {
    seconds: round(seconds, 2),
    perFeed: round((seconds / BASELINE) * 1000),
    extrapolated: round((seconds / BASELINE) * FEEDS),
  };
}

async function itemCount(storage: Storage): Promise<number> {
  return storage.items.count();
}

/** Counts that grew between two fixture snapshots. */
function grown(
  before: Record<string, number | undefined>,
  after: Record<string, number | undefined>,
): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([key, count]) => [key, (count ?? 0) - (before[key] ?? 0)]));
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
  let contentSeconds = Number.NaN;
  // A whole sync of every blog, as "Sync now" asks (a scheduled run fetches only the blogs that are due).
  const stats = await run(storage, {
    signal: new AbortController().signal,
    everyone: true,
    progress: noProgress,
    contentDone: () => void (contentSeconds = (performance.now() - started) / 1000),
  });
  const seconds = (performance.now() - started) / 1000;
  const cpuUsed = cpuSeconds(cpu);
  const loopDelay = loop.stop();
  const latency = await probe.stop();
  const memory = rss.stop();
  const after = await fixtureRef.stats();
  return {
    stats,
    seconds: round(seconds, 2),
    contentSeconds: round(contentSeconds, 2),
    byKind: grown(before.byKind, after.byKind) as Partial<Record<keyof FixtureStats["byKind"], number>>,
    cpuSeconds: cpuUsed,
    memory,
    loopDelay,
    latency,
    bytes: after.bytesSent - before.bytesSent,
    responses: grown(before.byStatus, after.byStatus),
    itemsWritten: (await itemCount(storage)) - itemsBefore,
  };
}

const baseline = await serialBaseline();
console.log(
  `serial baseline: ${BASELINE} feeds in ${baseline.seconds} s (${baseline.perFeed} ms/feed) -> ${baseline.extrapolated} s for ${FEEDS}`,
);

const server = await startTestServer("sqlite", { mongodbUrl: null });
await addBlogs(server.storage, feedUrls);

const first = await syncOnce(server.storage, fixture, server.api);
console.log(
  `first sync: ${first.seconds} s, ${first.stats.blogs.success}/${first.stats.blogs.total} ok, ${first.stats.items.added} items`,
);
const second = await syncOnce(server.storage, fixture, server.api);
console.log(`re-sync: ${second.seconds} s, ${second.stats.blogs.notModified} not modified`);

await server.close();

// 1b: every blog has a home page; the site icons are looked up.
const iconServer = await startTestServer("sqlite", { mongodbUrl: null });
await addBlogs(
  iconServer.storage,
  Array.from({ length: FEEDS }, (_, index) => homePagesFixture.urlOf(index)),
);
const iconsFirst = await syncOnce(iconServer.storage, homePagesFixture, iconServer.api);
const { items: iconBlogs } = await iconServer.storage.blogs.list({ limit: FEEDS, offset: 0, visibility: "admin" });
const withIcon = iconBlogs.filter((blog) => blog.iconUrl).length;
console.log(
  `first sync with icons: posts in ${iconsFirst.contentSeconds} s, icons in ${iconsFirst.seconds} s, ${JSON.stringify(iconsFirst.byKind)}`,
);
const iconsSecond = await syncOnce(iconServer.storage, homePagesFixture, iconServer.api);
console.log(`re-sync: ${iconsSecond.seconds} s, ${JSON.stringify(iconsSecond.byKind)}`);
await iconServer.close();

await closeParsePool();
await dispatcher.close();
await fixture.close();
await homePagesFixture.close();

const speedup = baseline.extrapolated / first.seconds;
const floor = (FEEDS * DELAY) / CONCURRENCY / 1000;
const iconRequests = (byKind: typeof iconsFirst.byKind) => (byKind["home page"] ?? 0) + (byKind.favicon ?? 0);
const bytesRatio = (second.bytes / first.bytes) * 100;
const results: BenchResult[] = [
  {
    scenario: "1. Sync throughput (first sync)",
    figures: {
      feeds: FEEDS,
      "feed MB (uncompressed)": totalFeedMb,
      "concurrency / per host": `${CONCURRENCY} / ${PER_HOST}`,
      parsing: args["main-thread-parse"] ? "main thread" : "worker pool",
      "wall s": first.seconds,
      "posts stored s": first.contentSeconds,
      "CPU s": first.cpuSeconds,
      "feeds/s": round(FEEDS / first.seconds),
      "RSS MB start / peak / end": `${first.memory.startMb} / ${first.memory.peakMb} / ${first.memory.endMb}`,
      "main thread at peak": first.memory.atPeak,
      "blogs ok / failed": `${first.stats.blogs.success} / ${first.stats.blogs.failed}`,
      "items added": first.stats.items.added,
      "icon requests (all to closed ports: the feeds' sites are https on the fixture's host names)":
        first.stats.icons?.requests ?? 0,
      [`serial baseline s (${BASELINE} feeds, measured)`]: baseline.seconds,
      [`serial baseline s (${FEEDS} feeds, extrapolated)`]: baseline.extrapolated,
      "speed-up": round(speedup),
    },
    targets: [
      target("first sync wall time", first.seconds, "<=", 30, "s"),
      target("speed-up over the serial baseline", speedup, ">=", 7, "x"),
      target("peak RSS", first.memory.peakMb, "<=", 300, "MB"),
    ],
    notes: [
      `serial baseline measured on every ${Math.floor(FEEDS / BASELINE)}th feed (${BASELINE} feeds) and scaled linearly to ${FEEDS}`,
    ],
  },
  {
    scenario: "1b. First sync with site icons (every blog has a home page, no feed images)",
    figures: {
      feeds: FEEDS,
      "home pages declaring an icon": `${Math.ceil(FEEDS / 2)} of ${FEEDS} (no /favicon.ico on any host)`,
      "requests by kind": JSON.stringify(iconsFirst.byKind),
      "icon requests": iconRequests(iconsFirst.byKind),
      [`round-trip floor s (${FEEDS} x ${DELAY} ms / ${CONCURRENCY})`]: floor,
      "all posts stored s": iconsFirst.contentSeconds,
      "all icons (whole sync) s": iconsFirst.seconds,
      "CPU s": iconsFirst.cpuSeconds,
      "blogs ok / failed": `${iconsFirst.stats.blogs.success} / ${iconsFirst.stats.blogs.failed}`,
      "blogs with an icon": `${withIcon} (expected ${Math.ceil(FEEDS / 2)})`,
      "peak RSS MB": iconsFirst.memory.peakMb,
      "event-loop delay p99 / max ms": `${iconsFirst.loopDelay.p99} / ${iconsFirst.loopDelay.max}`,
      "/api/items p99 ms": iconsFirst.latency.p99,
      "re-sync s": iconsSecond.seconds,
      "re-sync requests by kind": JSON.stringify(iconsSecond.byKind),
      "re-sync responses": JSON.stringify(iconsSecond.responses),
    },
    targets: [
      target("all posts stored", iconsFirst.contentSeconds, "<=", 20, "s"),
      target("whole sync including icons", iconsFirst.seconds, "<=", 30, "s"),
      target("all-304 re-sync wall time", iconsSecond.seconds, "<=", 15, "s"),
      target("icon requests in the re-sync", iconRequests(iconsSecond.byKind), "<=", 0, "requests"),
    ],
    notes: [
      "a separate fixture and store, synced after scenarios 1-3 in the same process",
      "icons are looked up in their own lane after each feed is stored; the posts time is when the run reported its content done",
    ],
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
      responses: JSON.stringify(second.responses),
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
