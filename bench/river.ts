/**
 * The river feeds beside /api/items (manual, not in `npm run bench`): the
 * same 100 newest posts (600 characters of HTML content each) from 100 blogs
 * of 20 posts, asked for one request after another, interleaved so all three
 * share the machine's state. Prints median and p90 per path, and the ratio
 * to /api/items.
 *
 *   node --import tsx bench/river.ts [rounds=200] [limit=100]
 */
import { addBlog, addItems, item } from "../test/support/seed.js";
import { startTestServer } from "../test/support/server.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { percentile, round } from "./support/measure.js";

const rounds = Number(process.argv[2] ?? 200);
const limit = Number(process.argv[3] ?? 100);

const server = await startTestServer("sqlite");
const now = Date.now();
for (let b = 0; b < 100; b++) {
  const blog = await addBlog(server.storage, {
    title: `Blog ${b}`,
    category: b % 2 ? "Odd" : "Even",
    siteUrl: `https://b${b}.example/`,
  });
  const posts = Array.from({ length: 20 }, (_, n) =>
    item(`b${b}-${n}`, new Date(now - (b + n * 100) * 60_000), {
      content: `<p>${"Some content, ".repeat(40)}</p>`,
      categories: ["notes"],
    }),
  );
  await addItems(server.storage, blog.id, posts);
}

const mount = server.plugin.mountPath;
const paths = {
  "/api/items": `${mount}/api/items?limit=${limit}`,
  "/river.atom": `${mount}/river.atom?limit=${limit}`,
  "/river.json": `${mount}/river.json?limit=${limit}`,
};
const times = new Map<string, number[]>(Object.keys(paths).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, path] of Object.entries(paths)) {
    const started = performance.now();
    const response = await server.get(path);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    times.get(name)?.push(performance.now() - started);
  }
}
const base = percentile(times.get("/api/items") ?? [], 50);
console.log(`${rounds} rounds, ${limit} posts per answer, Node ${process.version}`);
console.log("| Path | median ms | p90 ms | median / /api/items |\n|---|---|---|---|");
for (const [name, list] of times) {
  const median = percentile(list, 50);
  console.log(`| ${name} | ${round(median, 1)} | ${round(percentile(list, 90), 1)} | ${round(median / base, 2)} |`);
}
await server.close();
await closeParsePool();
