/**
 * Scenario 4: the public API at scale. Seeds a store with 10 000 blogs in
 * 50 categories and 500 000 items through the storage port, and a small one
 * (100 blogs, 1 000 items), then times each public endpoint over HTTP on
 * loopback, one request after another, without If-None-Match. The targets
 * apply to SQLite; with MONGODB_URL set the same figures are measured on that
 * MongoDB server too (in a database of their own, dropped afterwards).
 *
 *   node --import tsx bench/api-scale.ts [--blogs 10000] [--items 500000] [--requests 500]
 */
import { parseArgs } from "node:util";
import { Agent } from "undici";
import type { NewItem, Storage } from "../lib/storage/types.js";
import { startTestServer, type Backend, type TestServer } from "../test/support/server.js";
import { openSqliteFile } from "../test/support/sqlite-file.js";
import { seededRandom } from "./support/feeds.js";
import { percentile, report, round, target, type BenchResult } from "./support/measure.js";
import { DAY } from "../lib/time/durations.js";

const { values: args } = parseArgs({
  options: {
    blogs: { type: "string", default: "10000" },
    items: { type: "string", default: "500000" },
    requests: { type: "string", default: "500" },
  },
});
const REQUESTS = Number(args.requests);
const CATEGORIES = 50;
const SMALL_CATEGORY = "Small";

interface Seeded {
  server: TestServer;
  blogIds: string[];
  seedSeconds: number;
}

/** Seeds blogs and items through the storage port (as a sync would write them), newest dates within 7 days. */
async function seed(backend: Backend, blogCount: number, itemCount: number): Promise<Seeded> {
  const server = await startTestServer(backend, backend === "sqlite" ? { mongodbUrl: null } : {});
  const storage: Storage = server.storage;
  const random = seededRandom(42);
  const started = performance.now();
  const now = Date.now();
  const blogIds: string[] = [];
  for (let index = 0; index < blogCount; index++) {
    const { blog } = await storage.blogs.upsertFromSource({
      feedUrl: `https://blog${index}.example.net/feed.xml`,
      title: `Blog ${index} ${index % 7 === 0 ? "about cats" : "notes"}`,
      siteUrl: `https://blog${index}.example.net/`,
      description: "A blog seeded for the benchmark",
      category: `Category ${index % CATEGORIES}`,
      source: "opml",
    });
    blogIds.push(blog.id);
  }
  const perBlog = Math.floor(itemCount / blogCount);
  let extra = itemCount - perBlog * blogCount;
  for (const [index, blogId] of blogIds.entries()) {
    const count = perBlog + (extra-- > 0 ? 1 : 0);
    const items: NewItem[] = [];
    for (let n = 0; n < count; n++) {
      const undated = random() < 0.02;
      items.push({
        uid: `https://blog${index}.example.net/posts/${n}`,
        url: `https://blog${index}.example.net/posts/${n}`,
        title: `Post ${n} of blog ${index}`,
        summary: "A short plain-text summary of the post, as feeds give them, a sentence or two long.",
        content: `<p>${'Some paragraph text of a seeded post with a <a href="https://example.org/">link</a>. '.repeat(4)}</p>`,
        published: undated ? null : new Date(now - Math.floor(random() * 7 * DAY)),
        author: `Author ${index % 97}`,
        photo: n % 5 === 0 ? `https://blog${index}.example.net/img/${n}.jpg` : null,
        categories: ["indieweb", `topic-${n % 13}`],
      });
    }
    if (items.length > 0) await storage.items.upsertMany(blogId, items, new Date(now));
    await storage.blogs.recordFetch(blogId, {
      at: new Date(now),
      status: "active",
      error: null,
      nextFetchAt: null,
      failureCount: 0,
      metadata: { feedType: "rss", photo: `https://blog${index}.example.net/icon.png`, author: `Author ${index % 97}` },
    });
    await storage.blogs.refreshItemStats(blogId);
  }
  // A small category whose posts are all old: a newest-first walk over every item reaches them last.
  const { blog: small } = await storage.blogs.upsertFromSource({
    feedUrl: "https://small.example.net/feed.xml",
    title: "Small blog",
    category: SMALL_CATEGORY,
    source: "opml",
  });
  const old: NewItem[] = Array.from({ length: 50 }, (_, n) => ({
    uid: `https://small.example.net/posts/${n}`,
    url: `https://small.example.net/posts/${n}`,
    title: `Old post ${n}`,
    summary: null,
    content: null,
    published: new Date(now - 6.5 * DAY - n * 60_000),
    author: null,
    photo: null,
    categories: [],
  }));
  await storage.items.upsertMany(small.id, old, new Date(now));
  await storage.blogs.refreshItemStats(small.id);
  return { server, blogIds, seedSeconds: round((performance.now() - started) / 1000) };
}

/** The category query before issue 22: every item newest first, each checked against its blog, until the page is full. */
const WALK_SQL = `SELECT i.* FROM items i CROSS JOIN blogs b ON b.id = i.blog_id
  WHERE b.hidden = 0 AND b.status NOT IN ('deleted', 'inactive') AND b.category = ?
  ORDER BY i.published DESC, i.id DESC LIMIT ? OFFSET 0`;

/**
 * Before and after side by side on the same store (SQLite): the walk above,
 * on a connection of its own, against the adapter's category list, driven
 * from the category's blogs. p50 of `count` runs each, in ms.
 */
async function compareCategoryQueries(server: TestServer, file: string, count: number) {
  const db = openSqliteFile(file, { readonly: true });
  const walk = db.prepare(WALK_SQL);
  const out: Record<string, string> = {};
  try {
    for (const category of [SMALL_CATEGORY, "Category 7"]) {
      const before: number[] = [];
      const after: number[] = [];
      for (let i = 0; i < count; i++) {
        let started = performance.now();
        const walked = walk.all(category, 50) as unknown[];
        before.push(performance.now() - started);
        started = performance.now();
        const listed = await server.storage.items.list({ category, limit: 50, offset: 0 });
        after.push(performance.now() - started);
        if (walked.length !== listed.length)
          throw new Error(`${category}: ${walked.length} rows walked, ${listed.length} listed`);
      }
      const [b, a] = [percentile(before, 50), percentile(after, 50)];
      out[`category "${category}", 50 items: walk over items (before) -> from its blogs (after), p50`] =
        `${round(b, 2)} ms -> ${round(a, 2)} ms (${round(b / a, 1)}x)`;
    }
  } finally {
    db.close();
  }
  return out;
}

const agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });

/** Times `count` sequential GETs of `path` (after a short warm-up), in ms. */
async function time(
  server: TestServer,
  paths: () => string,
  count: number,
): Promise<{ p50: number; p99: number; bytes: number }> {
  const latencies: number[] = [];
  let bytes = 0;
  for (let i = -20; i < count; i++) {
    const url = `${server.api}${paths()}`;
    const started = performance.now();
    const response = await fetch(url, { dispatcher: agent } as RequestInit);
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    if (i >= 0) {
      latencies.push(elapsed);
      bytes = body.byteLength;
    }
  }
  return { p50: round(percentile(latencies, 50), 2), p99: round(percentile(latencies, 99), 2), bytes };
}

type Endpoint = [name: string, path: (seeded: Seeded) => () => string];
const ENDPOINTS: Endpoint[] = [
  ["/api/blogs", () => () => "/blogs"],
  ["/api/blogs?sort=recent&limit=200", () => () => "/blogs?sort=recent&limit=200"],
  ["/api/blogs?category=", () => () => `/blogs?category=${encodeURIComponent("Category 7")}`],
  [
    "/api/blogs/:id",
    (seeded) => {
      let n = 0;
      return () => `/blogs/${seeded.blogIds[(n++ * 7919) % seeded.blogIds.length]}`;
    },
  ],
  ["/api/items (offset 0)", () => () => "/items?limit=50"],
  ["/api/items?offset=10000", () => () => "/items?limit=50&offset=10000"],
  ["/api/items?category=", () => () => `/items?limit=50&category=${encodeURIComponent("Category 7")}`],
  ["/api/items?category= (small, old posts)", () => () => `/items?limit=50&category=${SMALL_CATEGORY}`],
  ["/api/categories", () => () => "/categories"],
  ["/api/status", () => () => "/status"],
  ["/api/opml", () => () => "/opml"],
];

async function measureAll(seeded: Seeded) {
  const out = new Map<string, { p50: number; p99: number; bytes: number }>();
  for (const [name, path] of ENDPOINTS) out.set(name, await time(seeded.server, path(seeded), REQUESTS));
  return out;
}

const BACKENDS: Array<[Backend, string]> = [["sqlite", "SQLite"]];
if (process.env.MONGODB_URL) BACKENDS.push(["mongodb", "MongoDB at MONGODB_URL"]);
const results: BenchResult[] = [];

for (const [backend, label] of BACKENDS) {
  const small = await seed(backend, 100, 1000);
  const smallTimes = await measureAll(small);
  await small.server.close();
  console.log(`${label}: small store seeded in ${small.seedSeconds} s`);

  const large = await seed(backend, Number(args.blogs), Number(args.items));
  console.log(`${label}: large store seeded in ${large.seedSeconds} s`);
  const largeTimes = await measureAll(large);
  const categoryFigures =
    backend === "sqlite"
      ? await compareCategoryQueries(large.server, large.server.plugin.settings.databasePath, 50)
      : {};
  await large.server.close();

  const figures: Record<string, string> = {};
  for (const [name] of ENDPOINTS) {
    const a = smallTimes.get(name)!;
    const b = largeTimes.get(name)!;
    figures[name] =
      `p50 ${a.p50} / p99 ${a.p99} ms (1 000 items) -> p50 ${b.p50} / p99 ${b.p99} ms (${args.items} items), ${round(b.bytes / 1024)} KB`;
  }
  const items0 = largeTimes.get("/api/items (offset 0)")!;
  const items0Small = smallTimes.get("/api/items (offset 0)")!;
  results.push({
    scenario: `4. API at scale (${label})`,
    figures: {
      [`seed s (${args.blogs} blogs, ${args.items} items)`]: large.seedSeconds,
      requests: REQUESTS,
      ...figures,
      ...categoryFigures,
    },
    // The issue sets its targets on SQLite; MongoDB figures are reported alongside.
    targets:
      backend === "sqlite"
        ? [
            target("/api/items?limit=50 p99 at offset 0", items0.p99, "<=", 15, "ms"),
            target("/api/items p99 growth 1 000 -> 500 000 items", items0.p99 / items0Small.p99, "<=", 2, "x"),
            target("/api/status p99", largeTimes.get("/api/status")!.p99, "<=", 30, "ms"),
            target("/api/categories p99", largeTimes.get("/api/categories")!.p99, "<=", 30, "ms"),
            target("/api/opml (1 000 blogs) p99", largeTimes.get("/api/opml")!.p99, "<=", 100, "ms"),
          ]
        : [],
    notes: [`${REQUESTS} sequential requests per endpoint after 20 warm-up requests, keep-alive, no If-None-Match`],
  });
}
await agent.close();
if (!process.env.MONGODB_URL) console.log("MongoDB: not measured (MONGODB_URL is not set)");
report(...results);
