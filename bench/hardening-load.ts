/**
 * Load test of the public API (issue "Load"): 50 connections for 30 s on a
 * SQLite store of 10 000 blogs / 200 000 items, first idle, then while a full
 * sync of every blog runs against local fixture feeds. Prints a Markdown
 * section for BENCHMARKS.md ("## Load (hardening)").
 *
 *   node --import tsx bench/hardening-load.ts [--blogs 10000] [--items 20] [--duration 30]
 */
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startTestServer } from "../test/support/server.js";
import { addBlog, daysAgo, item } from "../test/support/seed.js";
import { startFeedFarm } from "../test/hardening/standalone-process.js";

const { values } = parseArgs({
  options: {
    blogs: { type: "string", default: "10000" },
    items: { type: "string", default: "20" },
    duration: { type: "string", default: "30" },
  },
});
const BLOGS = Number(values.blogs);
const ITEMS_PER_BLOG = Number(values.items);
const DURATION = Number(values.duration);

const farm = await startFeedFarm(BLOGS, 0);
const server = await startTestServer("sqlite", { concurrency: 16, perHostConcurrency: 16, fetchTimeout: 15_000 });
const seeded = Date.now();
const ids: string[] = [];
const origin = new URL(farm.opmlUrl).origin;
for (let index = 0; index < BLOGS; index++) {
  const blog = await addBlog(server.storage, {
    title: `Blog ${index}`,
    category: `Group ${index % 25}`,
    feedUrl: `${origin}/feeds/${index}.xml`,
    source: "opml",
  });
  ids.push(blog.id);
  await server.storage.items.upsertMany(
    blog.id,
    Array.from({ length: ITEMS_PER_BLOG }, (_, n) => item(`b${index}-i${n}`, daysAgo((n % 6) + Math.random()))),
    new Date(),
  );
  await server.storage.blogs.refreshItemStats(blog.id);
}
const seedSeconds = (Date.now() - seeded) / 1000;

const requests = [
  "/blogs",
  "/blogs?limit=1000",
  "/blogs?sort=recent&category=Group%203",
  "/items",
  "/items?limit=200",
  "/categories",
  "/status",
  "/opml",
].map((path) => ({ method: "GET" as const, path: `${server.plugin.mountPath}/api${path}` }));
for (let n = 0; n < 20; n++) {
  const id = ids[Math.floor(Math.random() * ids.length)];
  requests.push(
    { method: "GET", path: `${server.plugin.mountPath}/api/blogs/${id}` },
    { method: "GET", path: `${server.plugin.mountPath}/api/items?blog=${id}` },
  );
}

async function load(label: string) {
  const result = await autocannon({ url: server.baseUrl, connections: 50, duration: DURATION, requests });
  return {
    label,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}

const idle = await load("idle");
const syncStarted = Date.now();
const sync = server.plugin.context.scheduler.syncNow();
const busy = await load("during a full sync");
const syncRunning = (await server.plugin.context.scheduler.getStatus()).isRunning;
await sync;
const status = await server.plugin.context.scheduler.getStatus();
await server.close();
await farm.server.close();

const row = (r: typeof idle) =>
  `| ${r.label} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.max} | ${r.errors} | ${r.timeouts} | ${r.non2xx} |`;
console.log(`## Load (hardening)

\`node --import tsx bench/hardening-load.ts\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}):
SQLite store of ${BLOGS} blogs / ${BLOGS * ITEMS_PER_BLOG} items (seeded in ${seedSeconds.toFixed(0)} s), autocannon with 50 connections for ${DURATION} s
cycling through ${requests.length} public API requests (lists, detail, items by blog, categories, status, OPML export).
The second run starts a full sync of all ${BLOGS} blogs against local fixture feeds at the same moment
(sync still running at the end of the load: ${syncRunning}; sync duration ${((Date.now() - syncStarted) / 1000).toFixed(0)} s, ${status.lastSyncStats?.blogs.success ?? "?"} blogs fetched).

| Run | Requests | Req/s | p50 ms | p99 ms | max ms | Errors | Timeouts | Non-2xx |
|---|---|---|---|---|---|---|---|---|
${row(idle)}
${row(busy)}
`);

// The bar is zero errors: any error, timeout or non-2xx answer fails the run.
const failing = [idle, busy].filter((r) => r.errors + r.timeouts + r.non2xx > 0);
if (failing.length > 0) {
  console.error(`load test failed: errors, timeouts or non-2xx answers in: ${failing.map((r) => r.label).join(", ")}`);
  process.exitCode = 1;
}
