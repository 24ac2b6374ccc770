/**
 * The blogroll page, its fragment and its JSON at 1 000 blogs (20 posts
 * each, categories, icons), side by side in one run with /api/blogs?limit=1000
 * as a reference (manual, not in `npm run bench`). For each path, one request
 * after another over loopback:
 *
 * - rebuilt: each request follows a stored post, so the data is read and the
 *   body rendered anew (the cost after every change);
 * - repeat: nothing changed since the last request (the kept body is sent);
 * - 304: a revalidation with the current ETag.
 *
 * Prints median, p99 and max per path and case; targets: page and fragment
 * p99 ≤ 30 ms rebuilt, 304 p99 ≤ 5 ms.
 *
 *   node --import tsx bench/page.ts [rounds=200] [blogs=1000] [backend=sqlite|mongo-standin]
 */
import { cpus, loadavg } from "node:os";
import { addBlog, addItems, item } from "../test/support/seed.js";
import { startTestServer, type Backend } from "../test/support/server.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { percentile, report, round, target } from "./support/measure.js";

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
type Case = "rebuilt" | "repeat" | "304";
const times = new Map<string, number[]>();
const sizes = new Map<string, number>();
const record = (name: string, which: Case, ms: number) => {
  const key = `${name} ${which}`;
  times.set(key, [...(times.get(key) ?? []), ms]);
};

async function timed(path: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await server.get(path, { headers });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - started, response, bytes: body.byteLength };
}

let fresh = 0;
for (let round = 0; round < rounds; round++) {
  for (const [name, path] of Object.entries(paths)) {
    // A new post on one blog: the next answer is read and rendered anew.
    await addItems(server.storage, blogIds[fresh++ % blogIds.length], [item(`fresh${fresh}`, new Date())]);
    const rebuilt = await timed(path);
    if (rebuilt.response.status !== 200) throw new Error(`${path}: ${rebuilt.response.status}`);
    sizes.set(name, rebuilt.bytes);
    record(name, "rebuilt", rebuilt.ms);
    record(name, "repeat", (await timed(path)).ms);
    const etag = rebuilt.response.headers.get("etag") ?? "";
    const revalidated = await timed(path, { "If-None-Match": etag });
    if (revalidated.response.status !== 304)
      throw new Error(`${path}: expected 304, got ${revalidated.response.status}`);
    record(name, "304", revalidated.ms);
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
  const [name, which] = key.split(" ");
  const median = percentile(list, 50);
  const p99 = percentile(list, 99);
  console.log(
    `| ${name} | ${sizes.get(name)} | ${which} | ${round(median, 2)} | ${round(p99, 2)} | ${round(Math.max(...list), 2)} |`,
  );
  figures[`${key} p50`] = round(median, 2);
  figures[`${key} p99`] = round(p99, 2);
}
const p99 = (key: string) => percentile(times.get(key) ?? [], 99);
const targets = [
  target("page p99, rebuilt after a change", p99("/blogroll rebuilt"), "<=", 30, "ms"),
  target("fragment p99, rebuilt after a change", p99("/blogroll/embed rebuilt"), "<=", 30, "ms"),
  target("page p99, 304", p99("/blogroll 304"), "<=", 5, "ms"),
  target("fragment p99, 304", p99("/blogroll/embed 304"), "<=", 5, "ms"),
];
report({ scenario: `blogroll page at ${blogCount} blogs (${backend})`, figures, targets, notes: [] });
await server.close();
await closeParsePool();
