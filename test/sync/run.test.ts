import assert from "node:assert/strict";
import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { after, afterEach, beforeEach, test } from "node:test";
import { resolveOptions } from "../../lib/options.js";
import type { Storage } from "../../lib/storage/types.js";
import { createSyncRunner, type SyncRunnerDeps } from "../../lib/sync/run.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { RunContext } from "../../lib/sync/scheduler.js";
import { conditionalFeed, rss, startFeedServer, type FeedServer } from "./feed-server.js";
import { DAY } from "../../lib/time/durations.js";
import { addBlog, openTempStorage, reload, testOptions, type TempStorage } from "./harness.js";

const LOOPBACKS = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];

let temp: TempStorage;
let storage: Storage;
let server: FeedServer | null = null;

beforeEach(async () => {
  temp = await openTempStorage();
  storage = temp.storage;
});
afterEach(async () => {
  await server?.close();
  server = null;
  await temp.cleanup();
});
after(() => closeParsePool());

function context(
  signal = new AbortController().signal,
  everyone = false,
): RunContext & { reports: [number, number][] } {
  const reports: [number, number][] = [];
  return { signal, everyone, reports, progress: (done, total) => void reports.push([done, total]) };
}
/** A "Sync now" run: every blog, whatever its schedule. */
const syncNow = () => context(undefined, true);

const runner = (overrides: Partial<SyncRunnerDeps> = {}, options = testOptions()) =>
  createSyncRunner({ options, ...overrides });
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);

/** Every blog's itemCount matches the items actually stored. */
async function assertStatsTrue(storage: Storage): Promise<void> {
  const { items: blogs } = await storage.blogs.list({ limit: 10_000, offset: 0, visibility: "admin" });
  for (const blog of blogs) {
    const items = await storage.items.list({ blogId: blog.id, limit: 10_000, offset: 0 });
    assert.equal(blog.itemCount, items.length, `itemCount of ${blog.feedUrl}`);
  }
}

test("a first run stores every blog's items; the second gets 304s and writes no item", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  for (let index = 0; index < 5; index++) {
    server.route(
      `/feed-${index}.xml`,
      conditionalFeed(() =>
        rss([
          { guid: `a${index}`, published: hoursAgo(1) },
          { guid: `b${index}`, published: hoursAgo(2) },
        ]),
      ),
    );
    await addBlog(storage, `${origin}/feed-${index}.xml`);
  }
  const run = runner();
  const first = context();
  const stats = await run(storage, first);
  assert.deepEqual(stats.blogs, { total: 5, success: 5, failed: 0, notModified: 0 });
  assert.deepEqual(stats.items, { added: 10, deleted: 0 });
  assert.deepEqual(first.reports.at(-1), [5, 5]);
  assert.ok(!Number.isNaN(Date.parse(stats.lastFullSync)));
  const itemsBefore = await storage.items.list({ limit: 100, offset: 0 });
  assert.equal(itemsBefore.length, 10);

  const scheduled = await run(storage, context());
  assert.deepEqual(
    scheduled.blogs,
    { total: 0, success: 0, failed: 0, notModified: 0 },
    "a scheduled run right after: nobody is due",
  );
  const second = await run(storage, syncNow());
  assert.deepEqual(second.blogs, { total: 5, success: 5, failed: 0, notModified: 5 });
  assert.deepEqual(second.items, { added: 0, deleted: 0 });
  assert.deepEqual(await storage.items.list({ limit: 100, offset: 0 }), itemsBefore);
  for (let index = 0; index < 5; index++) assert.equal(server.hits(`/feed-${index}.xml`), 2);
});

test("40 blogs on 4 hosts: never more than perHostConcurrency per host nor concurrency in all", async () => {
  server = await startFeedServer(LOOPBACKS);
  for (let index = 0; index < 40; index++) {
    const path = `/slow-${index}.xml`;
    server.route(path, async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: `s${index}`, published: hoursAgo(1) }]));
    });
    await addBlog(storage, `${server.origins[index % 4]}${path}`);
  }
  const stats = await runner({}, testOptions({ concurrency: 6, perHostConcurrency: 2 }))(storage, context());
  assert.equal(stats.blogs.success, 40);
  assert.deepEqual([...server.peak.perHost.keys()].sort(), LOOPBACKS);
  for (const [host, peak] of server.peak.perHost) assert.ok(peak <= 2, `${host} saw ${peak} at once`);
  assert.ok(server.peak.total <= 6, `total peak ${server.peak.total}`);
  assert.ok(server.peak.total > 2, "hosts were fetched in parallel");
});

test("out of the box one host gets two requests at a time, however many of its blogs are due", async () => {
  server = await startFeedServer();
  const feeds = 6;
  // Each request is held a moment so that any further one allowed to start arrives while it waits.
  for (let index = 0; index < feeds; index++) {
    server.route(`/held-${index}.xml`, async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 250));
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: `h${index}`, published: hoursAgo(1) }]));
    });
    await addBlog(storage, `${server.origins[0]}/held-${index}.xml`);
  }
  const options = resolveOptions({ allowPrivateNetworks: true });
  assert.ok(options.concurrency >= feeds, "the pool would take them all at once");
  const stats = await runner({}, options)(storage, context());
  assert.equal(stats.blogs.success, feeds);
  assert.equal(server.peak.perHost.get("127.0.0.1"), 2);
});

test("a fetch slot goes to the next blog once a feed is read, before that feed's writes end (concurrency 1)", async () => {
  server = await startFeedServer();
  const events: string[] = [];
  let secondAsked: () => void = () => undefined;
  const secondRequest = new Promise<void>((resolve) => (secondAsked = resolve));
  const names = new Map<string, string>();
  for (const name of ["one", "two"]) {
    server.route(`/${name}.xml`, (_request, response) => {
      events.push(`asked ${name}`);
      if (events.length === 2) secondAsked();
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: name, published: hoursAgo(1) }]));
    });
    names.set((await addBlog(storage, `${server.origins[0]}/${name}.xml`)).id, name);
  }
  // The first feed's writes wait for the next request: bounded, so the old order fails the test instead of hanging it.
  const items = Object.create(storage.items) as Storage["items"];
  let stores = 0;
  items.store = async (blogId, ...rest) => {
    if (++stores === 1)
      await Promise.race([secondRequest, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    const result = await storage.items.store(blogId, ...rest);
    events.push(`stored ${names.get(blogId)}`);
    return result;
  };
  const stats = await runner({}, testOptions({ concurrency: 1 }))({ ...storage, items }, context());
  assert.equal(stats.blogs.success, 2);
  const [first, second] = events.filter((event) => event.startsWith("asked")).map((event) => event.slice(6));
  assert.deepEqual(events, [`asked ${first}`, `asked ${second}`, `stored ${first}`, `stored ${second}`]);
});

test("the runner's dispatcher carries every request: host names mapped to loopback keep their own limits", async () => {
  server = await startFeedServer();
  const port = new URL(server.origins[0]).port;
  const names = ["alpha.test", "beta.test", "gamma.test"];
  // Every name resolves to 127.0.0.1; the server tells hosts apart by the Host header.
  const lookup = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
    options?.all
      ? callback(null, [{ address: "127.0.0.1", family: 4 }])
      : callback(null, "127.0.0.1", 4)) as unknown as LookupFunction;
  const dispatcher = new Agent({ connect: { lookup } });
  for (let index = 0; index < 15; index++) {
    server.route(`/named-${index}.xml`, async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: `n${index}`, published: hoursAgo(1) }]));
    });
    await addBlog(storage, `http://${names[index % 3]}:${port}/named-${index}.xml`);
  }
  try {
    const stats = await runner({ dispatcher }, testOptions({ concurrency: 3, perHostConcurrency: 1 }))(
      storage,
      context(),
    );
    assert.equal(stats.blogs.success, 15);
  } finally {
    await dispatcher.close();
  }
  assert.deepEqual([...server.peak.perHost.keys()].sort(), names);
  for (const [host, peak] of server.peak.perHost) assert.equal(peak, 1, `${host} saw ${peak} at once`);
  assert.ok(server.peak.total <= 3);
});

test("every due blog is synced in one run, beyond the 1000-blog batch, each exactly once", async () => {
  server = await startFeedServer(LOOPBACKS);
  const count = 1100;
  const feed = rss([{ guid: "only", published: hoursAgo(1) }]);
  for (let index = 0; index < count; index++) {
    server.route(
      `/tiny-${index}.xml`,
      (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(feed),
    );
    await addBlog(storage, `${server.origins[index % 4]}/tiny-${index}.xml`);
  }
  const run = context();
  const stats = await runner({}, testOptions({ concurrency: 64, perHostConcurrency: 16 }))(storage, run);
  assert.deepEqual(stats.blogs, { total: count, success: count, failed: 0, notModified: 0 });
  assert.equal(stats.items.added, count);
  assert.equal(await storage.items.count(), count);
  for (let index = 0; index < count; index++) assert.equal(server.hits(`/tiny-${index}.xml`), 1, `blog ${index}`);
  assert.deepEqual(run.reports.at(-1), [count, count]);
  assert.equal(await storage.blogs.count({ status: "active" }), count);
});

test("retention prunes old items (by date, or fetch time when undated), keeps future ones, and keeps stats true", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  const past = new Date(Date.now() - 10 * DAY); // the first run happens "10 days ago"
  const future = new Date(Date.now() + 5 * DAY);
  server.route(
    "/aging.xml",
    conditionalFeed(() =>
      rss([
        { guid: "future", published: future },
        { guid: "recent-then-and-now", published: new Date(past.getTime() + 9 * DAY) },
        { guid: "recent-then-old-now", published: new Date(past.getTime() - DAY) },
        { guid: "undated", published: null },
      ]),
    ),
  );
  server.route(
    "/stale.xml",
    conditionalFeed(() => rss([{ guid: "stale", published: new Date(past.getTime() - 2 * DAY) }])),
  );
  const aging = await addBlog(storage, `${origin}/aging.xml`);
  const stale = await addBlog(storage, `${origin}/stale.xml`);

  const firstStats = await runner({ now: () => past })(storage, context());
  assert.equal(firstStats.items.added, 5);
  assert.equal((await reload(storage, aging)).itemCount, 4);

  const stats = await runner()(storage, context());
  assert.equal(stats.blogs.notModified, 2, "nothing re-added by the fetch");
  assert.equal(stats.items.deleted, 3);
  const left = await storage.items.list({ limit: 100, offset: 0 });
  assert.deepEqual(left.map((item) => item.title).sort(), ["future", "recent-then-and-now"]);
  const agingAfter = await reload(storage, aging);
  assert.equal(agingAfter.itemCount, 2);
  // A post five days ahead is kept but does not make the blog recent (issue 22): the newest post within a day ahead does.
  assert.deepEqual(agingAfter.lastItemAt, new Date(Math.floor((past.getTime() + 9 * DAY) / 1000) * 1000));
  const staleAfter = await reload(storage, stale);
  assert.equal(staleAfter.itemCount, 0);
  assert.equal(staleAfter.lastItemAt, null);
});

test("stopping mid-run aborts requests in flight, rejects, and leaves a consistent database", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  const controller = new AbortController();
  let hanging = true;
  let waiting = 0;
  const recordedCount = async (count: number) => {
    for (;;) {
      const { items } = await storage.blogs.list({ limit: 100, offset: 0, visibility: "admin" });
      if (items.filter((blog) => blog.lastFetchAt !== null).length >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  for (let index = 0; index < 12; index++) {
    const path = `/stop-${index}.xml`;
    server.route(path, (_request, response) => {
      if (index >= 6 && hanging) {
        // The stop comes while these requests are in flight, once the six
        // that answered are written: a blog gives its slot on when its
        // response is in, so the last of them may still be in its parse
        // when these arrive (a stop then drops it, unwritten).
        if (++waiting === 2) void recordedCount(6).then(() => controller.abort());
        return;
      }
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: `x${index}`, published: hoursAgo(1) }]));
    });
    await addBlog(storage, `${origin}${path}`);
  }
  const run = runner({}, testOptions({ concurrency: 2, perHostConcurrency: 2 }));
  await assert.rejects(run(storage, context(controller.signal)), { name: "AbortError" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(server.clientAborts >= 1, "the hanging requests were cancelled");
  await assertStatsTrue(storage);
  const { items: blogs } = await storage.blogs.list({ limit: 100, offset: 0, visibility: "admin" });
  const fetched = blogs.filter((blog) => blog.lastFetchAt !== null);
  assert.equal(fetched.length, 6, "only the blogs that answered were recorded");
  assert.ok(fetched.every((blog) => blog.status === "active" && blog.itemCount === 1));

  hanging = false;
  const stats = await run(storage, syncNow());
  assert.equal(stats.blogs.success, 12);
  assert.equal(await storage.items.count(), 12, "no duplicates, nothing lost");
  await assertStatsTrue(storage);
});

test("refreshSources runs first; its counts are reported and its failure does not stop the run", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  server.route(
    "/from-source.xml",
    conditionalFeed(() => rss([{ guid: "s", published: hoursAgo(1) }])),
  );
  let seenSignal: AbortSignal | null = null;
  const stats = await runner({
    refreshSources: async (given, signal) => {
      seenSignal = signal;
      await addBlog(given, `${origin}/from-source.xml`);
      return { total: 1, success: 1, failed: 0 };
    },
  })(storage, context());
  assert.ok(seenSignal);
  assert.deepEqual(stats.sources, { total: 1, success: 1, failed: 0 });
  assert.equal(stats.blogs.success, 1, "the blog the source added was fetched in the same run");

  await storage.sources.create({ type: "manual", name: "Mine" });
  const logs: string[] = [];
  const failing = await runner({
    log: (message) => logs.push(message),
    refreshSources: () => Promise.reject(new Error("OPML down")),
  })(storage, syncNow());
  assert.deepEqual(failing.sources, { total: 1, success: 0, failed: 1 });
  assert.equal(failing.blogs.total, 1);
  assert.match(logs.join("\n"), /OPML down/);
});

test("failed blogs are counted, and not due again in the same run", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  server.route(
    "/ok.xml",
    conditionalFeed(() => rss([{ guid: "ok", published: hoursAgo(1) }])),
  );
  server.route("/bad.xml", (_request, response) => void response.writeHead(500).end());
  await addBlog(storage, `${origin}/ok.xml`);
  const bad = await addBlog(storage, `${origin}/bad.xml`);
  const stats = await runner({ parseInWorkers: false })(storage, context());
  assert.deepEqual(stats.blogs, { total: 2, success: 1, failed: 1, notModified: 0 });
  assert.equal(server.hits("/bad.xml"), 1);
  assert.equal((await reload(storage, bad)).status, "error");
  await runner()(storage, context());
  assert.equal(server.hits("/bad.xml"), 1, "backing off: not due at the next run");
  assert.equal(server.hits("/ok.xml"), 1, "on its schedule: not due yet either");
});

test("the per-host limit holds on the host redirects lead to, not only on the hosts blogs are listed under", async () => {
  // Blogs listed under three hosts all redirect to a fourth, as custom domains pointing at one platform do.
  server = await startFeedServer(LOOPBACKS);
  const platform = server.origins[0];
  for (let index = 0; index < 12; index++) {
    server.route(
      `/listed-${index}.xml`,
      (_request, response) => void response.writeHead(302, { location: `${platform}/hosted-${index}.xml` }).end(),
    );
    server.route(`/hosted-${index}.xml`, async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss([{ guid: `h${index}`, published: hoursAgo(1) }]));
    });
    await addBlog(storage, `${server.origins[1 + (index % 3)]}/listed-${index}.xml`);
  }
  const stats = await runner({}, testOptions({ concurrency: 6, perHostConcurrency: 2 }))(storage, context());
  assert.equal(stats.blogs.success, 12);
  const platformHost = new URL(platform).hostname;
  const peak = server.peak.perHost.get(platformHost) ?? 0;
  assert.ok(peak >= 1, "the platform was fetched");
  assert.ok(peak <= 2, `${platformHost} saw ${peak} requests at once`);
});

test("a new-blogs-only run fetches the blogs never fetched, reads no source and prunes nothing", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  server.route(
    "/old.xml",
    conditionalFeed(() => rss([{ guid: "o1", published: hoursAgo(1) }])),
  );
  server.route(
    "/new.xml",
    conditionalFeed(() => rss([{ guid: "n1", published: hoursAgo(1) }])),
  );
  await addBlog(storage, `${origin}/old.xml`);
  let sourceReads = 0;
  const run = runner({ refreshSources: async () => ({ total: 1, success: 1, failed: sourceReads++ }) });
  await run(storage, context());
  assert.equal(sourceReads, 1);
  // Only the new one is fetched, whether the old one is due or not.
  const added = await addBlog(storage, `${origin}/new.xml`);
  const stats = await run(storage, { ...context(), newBlogsOnly: true });
  assert.equal(sourceReads, 1, "no source re-read");
  assert.deepEqual(stats.sources, { total: 0, success: 0, failed: 0 });
  assert.equal(stats.blogs.total, 1);
  assert.equal(server.hits("/new.xml"), 1);
  assert.equal(server.hits("/old.xml"), 1, "a blog fetched before waits for the sync");
  assert.equal((await reload(storage, added)).itemCount, 1);
});

test('scheduled runs fetch only due blogs and re-read sources hourly; "Sync now" asks everyone but blogs told to wait', async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  server.route(
    "/often.xml",
    conditionalFeed(() =>
      rss([
        { guid: "o1", published: hoursAgo(1) },
        { guid: "o2", published: hoursAgo(2) },
      ]),
    ),
  );
  server.route("/busy.xml", (_request, response) => void response.writeHead(429, { "retry-after": "7200" }).end());
  const often = await addBlog(storage, `${origin}/often.xml`);
  await addBlog(storage, `${origin}/busy.xml`);
  let clock = new Date();
  let sourceReads = 0;
  const refreshSources = async () => {
    sourceReads++;
    return { total: 1, success: 1, failed: 0 };
  };
  const run = runner({ now: () => clock, refreshSources });

  await run(storage, context());
  assert.deepEqual([server.hits("/often.xml"), server.hits("/busy.xml"), sourceReads], [1, 1, 1]);
  const next = (await reload(storage, often)).nextFetchAt!;

  clock = new Date(next.getTime() - 1000);
  await run(storage, context());
  assert.deepEqual(
    [server.hits("/often.xml"), server.hits("/busy.xml"), sourceReads],
    [1, 1, 1],
    "not due yet; sources read less than an hour ago",
  );

  clock = new Date(next.getTime() + 1000);
  await run(storage, context());
  assert.deepEqual(
    [server.hits("/often.xml"), server.hits("/busy.xml")],
    [2, 1],
    "due on its schedule; the busy one waits for its Retry-After",
  );

  await run(storage, syncNow());
  assert.deepEqual(
    [server.hits("/often.xml"), server.hits("/busy.xml"), sourceReads],
    [3, 1, 2],
    "Sync now: everyone but the one told to wait, and the sources",
  );

  clock = new Date(clock.getTime() + 2 * 3600_000 + 1000);
  await run(storage, context());
  assert.equal(server.hits("/busy.xml"), 2, "asked again once its Retry-After has passed");
  assert.equal(sourceReads, 3, "sources re-read an hour later");
});

test("a gone blog is left alone by runs and Sync now until its weekly check, which brings it back when the feed answers", async () => {
  server = await startFeedServer();
  const origin = server.origins[0];
  let gone = true;
  server.route("/comeback.xml", (request, response) => {
    if (gone) return void response.writeHead(410).end();
    return conditionalFeed(() => rss([{ guid: "back", published: hoursAgo(1) }], { title: "Back" }))(request, response);
  });
  const blog = await addBlog(storage, `${origin}/comeback.xml`);
  let clock = new Date();
  const run = runner({ now: () => clock });
  await run(storage, context());
  assert.equal((await reload(storage, blog)).status, "gone");
  gone = false;
  for (const [days, everyone] of [
    [1, false],
    [3, true],
    [6.9, false],
  ] as const) {
    clock = new Date(Date.now() + days * DAY);
    const stats = await run(storage, context(undefined, everyone));
    assert.equal(stats.blogs.total, 0, `day ${days}${everyone ? ", Sync now" : ""}: not asked`);
  }
  assert.equal(server.hits("/comeback.xml"), 1);
  clock = new Date(Date.now() + 7 * DAY + 60_000);
  const weekly = await run(storage, context());
  assert.deepEqual(weekly.blogs, { total: 1, success: 1, failed: 0, notModified: 0 });
  const back = await reload(storage, blog);
  assert.equal(back.status, "active");
  assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 1);
});
