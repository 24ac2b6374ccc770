/**
 * The blogroll page, its fragment and its JSON at 1 000 blogs (20 posts
 * each, categories, icons), side by side in one run with /api/blogs?limit=1000
 * as a reference (manual, not in `npm run bench`). For each path, one request
 * after another over loopback:
 *
 * - after a change: each request follows a stored post (the page is rebuilt
 *   in the background meanwhile: what a reader pays right after a change);
 * - repeat: the next request;
 * - 304: a revalidation with the ETag just received (a rebuild that ended in
 *   between makes it a 200: counted apart, not timed).
 *
 * Then, per page path, how long a stored post takes to show (the first body
 * with a new ETag), with writes more than a second apart.
 *
 * The requests are made and timed by a child process (bench/support/
 * request-timer.ts): the client's work shares no thread with the server's,
 * it reads each body as sent (br, as a browser asks for it; the bytes
 * printed are those on the wire) without decompressing or keeping it, and
 * it collects its garbage between requests (the collections that still
 * fall inside a timed request are counted and printed).
 *
 * Prints median, p99 and max per path and case; targets: page and fragment
 * p99 ≤ 30 ms after a change, 304 p99 ≤ 5 ms. And, to tell where a tail
 * is: per path and case the p99 of the server's own part (from its
 * "request" event to the answer's "finish"; the rest is waiting for the
 * server's thread to read the request, the transfer and the client), and
 * how many timed requests a collection of the server's heap overlapped.
 *
 *   node --import tsx bench/page.ts [rounds=200] [blogs=1000] [backend=sqlite|mongo-standin]
 */
import { setTimeout as sleep } from "node:timers/promises";
import { PerformanceObserver } from "node:perf_hooks";
import { cpus, loadavg } from "node:os";
import { addBlog, addItems, item } from "../test/support/seed.js";
import { startTestServer, type Backend } from "../test/support/server.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { percentile, report, round, target } from "./support/measure.js";
import { startRequestTimer } from "./support/request-timer.js";

const rounds = Number(process.argv[2] ?? 200);
const blogCount = Number(process.argv[3] ?? 1000);
const backend = (process.argv[4] ?? "sqlite") as Backend;

const server = await startTestServer(backend, { ownerName: "Ada Lovelace" });
const now = Date.now();
const blogIds: string[] = [];
for (let b = 0; b < blogCount; b++) {
  const blog = await addBlog(server.storage, {
    title: `Blog ${b}`,
    category: `Category ${b % 12}`,
    siteUrl: `https://b${b}.example/`,
    photo: b % 3 === 0 ? `https://b${b}.example/icon.png` : null,
  });
  blogIds.push(blog.id);
  const posts = Array.from({ length: 20 }, (_, n) =>
    item(`b${b}-${n}`, new Date(now - (b + n * 300) * 60_000), { url: `https://b${b}.example/${n}` }),
  );
  await addItems(server.storage, blog.id, posts);
}

const mount = server.plugin.mountPath;
const paths: Record<string, string> = {
  "/blogroll": `${mount}/blogroll`,
  "/blogroll/embed": `${mount}/blogroll/embed`,
  "/blogroll.json": `${mount}/blogroll.json`,
  "/api/blogs?limit=1000": `${mount}/api/blogs?limit=1000`,
};
type Case = "after-change" | "repeat" | "304";
const times = new Map<string, number[]>();
const sizes = new Map<string, number>();
const record = (name: string, which: Case | "shows-after" | `${Case} server`, ms: number) => {
  const key = `${name} ${which}`;
  times.set(key, [...(times.get(key) ?? []), ms]);
};
/** Revalidations answered 200 because a rebuild ended between the two requests. */
const changedMeanwhile = new Map<string, number>();

const timer = await startRequestTimer();
const clientGc = { requests: 0, ms: 0 };
/** The server's part of the last request: from its "request" event to its answer's "finish". */
let handledMs = Number.NaN;
server.http.on("request", (_request, response) => {
  const arrived = performance.now();
  response.once("finish", () => (handledMs = performance.now() - arrived));
});
/** The server's collections (start and end, this process's clock). */
const serverGcs: Array<{ start: number; end: number }> = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    serverGcs.push({ start: entry.startTime, end: entry.startTime + entry.duration });
});
gcObserver.observe({ entryTypes: ["gc"] });
/** Per path: timed requests a collection of the server overlapped, and those collections' time. */
const serverGc = new Map<string, { requests: number; ms: number }>();
const timed = async (path: string, headers: Record<string, string> = {}) => {
  handledMs = Number.NaN;
  serverGcs.length = 0;
  const asked = performance.now();
  const answer = await timer.get(`${server.baseUrl}${path}`, headers);
  const answered = performance.now();
  // Entries are delivered a little after the collection.
  await sleep(1);
  const overlapping = serverGcs.filter(({ start, end }) => start < answered && end > asked);
  if (overlapping.length > 0) {
    const counted = serverGc.get(path) ?? { requests: 0, ms: 0 };
    counted.requests++;
    counted.ms += overlapping.reduce((sum, { start, end }) => sum + end - start, 0);
    serverGc.set(path, counted);
  }
  if (answer.clientGcMs > 0) {
    clientGc.requests++;
    clientGc.ms += answer.clientGcMs;
  }
  return { ...answer, handledMs };
};

// Each address built once first: a first request waits for its first build, which is not the case measured.
for (const path of Object.values(paths)) await (await server.get(path)).arrayBuffer();

let fresh = 0;
const storePost = () =>
  addItems(server.storage, blogIds[fresh++ % blogIds.length], [item(`fresh${fresh}`, new Date())]);
for (let round = 0; round < rounds; round++) {
  for (const [name, path] of Object.entries(paths)) {
    // A new post on one blog: the page is rebuilt in the background, the API reads anew.
    await storePost();
    const afterChange = await timed(path);
    if (afterChange.status !== 200) throw new Error(`${path}: ${afterChange.status}`);
    sizes.set(name, afterChange.bytes);
    record(name, "after-change", afterChange.ms);
    record(name, "after-change server", afterChange.handledMs);
    const repeat = await timed(path);
    record(name, "repeat", repeat.ms);
    record(name, "repeat server", repeat.handledMs);
    const etag = repeat.etag ?? "";
    const revalidated = await timed(path, { "If-None-Match": etag });
    if (revalidated.status === 304) {
      record(name, "304", revalidated.ms);
      record(name, "304 server", revalidated.handledMs);
    } else if (revalidated.status === 200) changedMeanwhile.set(name, (changedMeanwhile.get(name) ?? 0) + 1);
    else throw new Error(`${path}: expected 304 or 200, got ${revalidated.status}`);
  }
}

// How long a stored post takes to show: writes over a second apart (rebuilds of one body start at most a second apart).
const showRounds = Math.min(10, rounds);
for (const name of ["/blogroll", "/blogroll/embed", "/blogroll.json"]) {
  for (let round = 0; round < showRounds; round++) {
    await sleep(1100);
    const before = (await server.get(paths[name])).headers.get("etag");
    const written = performance.now();
    await storePost();
    for (;;) {
      const response = await server.get(paths[name]);
      await response.arrayBuffer();
      if (response.headers.get("etag") !== before) break;
      await sleep(2);
    }
    record(name, "shows-after", performance.now() - written);
  }
}

const figures: Record<string, number | string> = {
  backend,
  blogs: blogCount,
  rounds,
  load: loadavg()
    .map((n) => round(n, 2))
    .join(" "),
  cpus: cpus().length,
};
console.log(
  `${blogCount} blogs × 20 posts, ${rounds} rounds, ${backend}, Node ${process.version}, load average ${figures.load} on ${figures.cpus} CPUs`,
);
console.log("| Path | bytes | case | median ms | p99 ms | max ms |\n|---|---|---|---|---|---|");
for (const [key, list] of times) {
  const name = key.slice(0, key.indexOf(" "));
  const which = key.slice(key.indexOf(" ") + 1);
  const median = percentile(list, 50);
  const p99 = percentile(list, 99);
  console.log(
    `| ${name} | ${sizes.get(name)} | ${which} | ${round(median, 2)} | ${round(p99, 2)} | ${round(Math.max(...list), 2)} |`,
  );
  figures[`${key} p50`] = round(median, 2);
  figures[`${key} p99`] = round(p99, 2);
}
console.log(
  `Timed requests with a collection of the client inside: ${clientGc.requests} (${round(clientGc.ms, 1)} ms in all)`,
);
figures["client collections inside timed requests"] = clientGc.requests;
for (const [name, path] of Object.entries(paths)) {
  const counted = serverGc.get(path) ?? { requests: 0, ms: 0 };
  console.log(
    `${name}: ${counted.requests} timed requests a collection of the server overlapped (${round(counted.ms, 1)} ms in all)`,
  );
  figures[`${name} server collections overlapping timed requests`] = counted.requests;
}
gcObserver.disconnect();
const p99 = (key: string) => percentile(times.get(key) ?? [], 99);
const targets = [
  target("page p99, after a change", p99("/blogroll after-change"), "<=", 30, "ms"),
  target("fragment p99, after a change", p99("/blogroll/embed after-change"), "<=", 30, "ms"),
  target("page p99, 304", p99("/blogroll 304"), "<=", 5, "ms"),
  target("fragment p99, 304", p99("/blogroll/embed 304"), "<=", 5, "ms"),
];
for (const [name, count] of changedMeanwhile) {
  console.log(`${name}: ${count} revalidations answered 200 (a rebuild ended between the two requests)`);
  figures[`${name} 304 asked, 200 (rebuilt meanwhile)`] = count;
}
report({ scenario: `blogroll page at ${blogCount} blogs (${backend})`, figures, targets, notes: [] });
timer.stop();
await server.close();
await closeParsePool();
