import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, test } from "node:test";
import { randomBytes } from "node:crypto";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { USER_AGENT } from "../../lib/http/fetch.js";
import { HostLimiter } from "../../lib/http/host-limiter.js";
import type { Storage } from "../../lib/storage/types.js";
import { syncBlog, type SyncBlogDeps } from "../../lib/sync/fetch-blog.js";
import { closeParsePool, feedParser, parsePoolStats } from "../../lib/sync/parse-pool.js";
import { conditionalFeed, rss, startFeedServer, type FeedServer, type TestItem } from "./feed-server.js";
import { DAY, MINUTE } from "../../lib/time/durations.js";
import { addBlog, openTempStorage, reload, testOptions, type TempStorage } from "./harness.js";
import { createFaultyStorage } from "../support/faulty-storage.js";

let server: FeedServer;
let origin: string;
let temp: TempStorage;
let storage: Storage;
let clock: Date;

before(async () => {
  server = await startFeedServer();
  origin = server.origins[0];
});
after(() => server.close());
beforeEach(async () => {
  temp = await openTempStorage();
  storage = temp.storage;
  clock = new Date(Math.floor(Date.now() / 1000) * 1000);
});
afterEach(() => temp.cleanup());

const options = testOptions();
const deps = (): SyncBlogDeps => ({
  limiter: new HostLimiter(2),
  parse: feedParser(false),
  now: () => clock,
  random: () => 0.5,
});
const run = (blog: Parameters<typeof syncBlog>[1], signal = new AbortController().signal, opts = options) =>
  syncBlog(storage, blog, opts, signal, deps());
const recent = (hoursAgo: number) => new Date(clock.getTime() - hoursAgo * 3600_000);
const twoItems = (): TestItem[] => [
  { guid: "one", published: recent(1) },
  { guid: "two", published: recent(2) },
];
const serveFeed = (path: string, items: TestItem[] = twoItems(), channel = {}) =>
  server.route(
    path,
    conditionalFeed(() => rss(items, { title: "The feed title", ...channel })),
  );

test("200 stores items, stats, metadata and validators; then 304 writes nothing but the fetch record", async () => {
  serveFeed("/basic.xml");
  const blog = await addBlog(storage, `${origin}/basic.xml`, "placeholder");
  // The first read names the blog and makes it active: what the blogroll's exports show changed.
  assert.deepEqual(await run(blog), { outcome: "updated", itemsAdded: 2, itemsDeleted: 0, blogrollChanged: true });

  const sent = server.lastHeaders("/basic.xml")!;
  assert.equal(sent["user-agent"], USER_AGENT);
  for (const type of ["application/rss+xml", "application/atom+xml", "application/feed+json"])
    assert.ok(sent.accept?.includes(type), `Accept lists ${type}`);
  assert.equal(sent["accept-encoding"], "gzip, deflate, br");
  assert.equal(sent["if-none-match"], undefined, "nothing to be conditional on yet");

  const fetched = await reload(storage, blog);
  assert.equal(fetched.status, "active");
  assert.equal(fetched.title, "The feed title");
  assert.equal(fetched.feedType, "rss");
  assert.equal(fetched.photo, "https://example.org/logo.png");
  assert.equal(fetched.etag, '"v1"');
  assert.equal(fetched.itemCount, 2);
  assert.deepEqual(fetched.lastItemAt, recent(1));
  assert.deepEqual(fetched.lastFetchAt, clock);
  // Two posts in the last two hours: one an hour, fetched every sqrt(1 h × 3 min) ≈ 13 min, so after minFetchInterval (15 min).
  assert.equal(fetched.fetchReason, "posting-rate");
  assert.deepEqual(fetched.recentPosts, [recent(1), recent(2)]);
  assert.equal(fetched.nextFetchAt!.getTime() - clock.getTime(), options.minFetchInterval);
  const itemsBefore = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });

  clock = new Date(clock.getTime() + 3600_000);
  assert.deepEqual(await run(fetched), { outcome: "not-modified", itemsAdded: 0, itemsDeleted: 0 });
  assert.equal(server.lastHeaders("/basic.xml")?.["if-none-match"], '"v1"');
  const after304 = await reload(storage, blog);
  assert.deepEqual(after304.lastFetchAt, clock, "the fetch is recorded");
  assert.equal(after304.status, "active");
  assert.deepEqual(
    await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 }),
    itemsBefore,
    "item rows untouched",
  );
});

test("a fetch that finds posts writes twice: its items in one call (one transaction on SQLite), then the blog's fetch record", async () => {
  serveFeed("/writes.xml");
  const blog = await addBlog(storage, `${origin}/writes.xml`);
  const counting = createFaultyStorage(storage);
  await syncBlog(counting, blog, options, new AbortController().signal, deps());
  // Three calls and commits before (upsertMany, trimBlog, refreshItemStats) and the blog's row written twice.
  assert.deepEqual(
    counting.calls.map((call) => call.name),
    ["items.store", "blogs.recordFetch"],
  );
  assert.equal((await reload(storage, blog)).itemCount, 2);
});

test("feed metadata is refreshed on every fetch, except the fields the owner edited", async () => {
  let title = "First title";
  server.route("/meta.xml", (_request, response) => {
    const body = rss(twoItems(), { title }).replace(
      "<description>A test feed</description>",
      `<description>About ${title}</description>`,
    );
    response.writeHead(200, { "content-type": "application/rss+xml" }).end(body);
  });
  const blog = await addBlog(storage, `${origin}/meta.xml`, "placeholder");
  await run(blog);
  assert.equal((await reload(storage, blog)).title, "First title");
  title = "Second title";
  await run(await reload(storage, blog));
  assert.equal((await reload(storage, blog)).title, "Second title", "the feed's new title is taken");
  await storage.blogs.edit(blog.id, { title: "My own name" });
  title = "Third title";
  await run(await reload(storage, blog));
  const after = await reload(storage, blog);
  assert.equal(after.title, "My own name", "the owner's edit stays");
  assert.equal(after.description, "About Third title", "fields the owner did not edit still follow the feed");
});

test("a feed with only Last-Modified is asked If-Modified-Since and its 304 writes nothing", async () => {
  const stamp = "Mon, 23 Nov 2026 08:00:00 GMT";
  server.route("/dated.xml", (request, response) => {
    if (request.headers["if-modified-since"] === stamp) return void response.writeHead(304).end();
    response.writeHead(200, { "content-type": "application/rss+xml", "last-modified": stamp }).end(rss(twoItems()));
  });
  const blog = await addBlog(storage, `${origin}/dated.xml`);
  assert.equal((await run(blog)).outcome, "updated");
  const stored = await reload(storage, blog);
  assert.equal(stored.lastModified, stamp);
  assert.equal(stored.etag, null);
  const items = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
  assert.equal((await run(stored)).outcome, "not-modified");
  assert.equal(server.lastHeaders("/dated.xml")?.["if-modified-since"], stamp);
  assert.equal((await reload(storage, blog)).lastModified, stamp, "validator kept when the 304 does not repeat it");
  assert.deepEqual(await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 }), items);
});

const urlsOf = async (blogId: string) =>
  (await storage.items.list({ blogId, limit: 100, offset: 0 })).map((item) =>
    item.url?.replace("https://example.org/", ""),
  );

test("items older than maxItemAge are not stored (undated ones are)", async () => {
  serveFeed("/aged.xml", [
    { guid: "fresh", published: recent(1) },
    { guid: "undated", published: null },
    { guid: "ancient", published: new Date(clock.getTime() - 30 * DAY) },
  ]);
  const blog = await addBlog(storage, `${origin}/aged.xml`);
  assert.deepEqual(await run(blog), { outcome: "updated", itemsAdded: 2, itemsDeleted: 0, blogrollChanged: true });
  assert.deepEqual(await urlsOf(blog.id), ["fresh", "undated"]);
});

test("a blog keeps its newest maxItemsPerBlog items across fetches", async () => {
  let items: TestItem[] = [1, 2, 3].map((hours) => ({ guid: `old-${hours}`, published: recent(hours + 10) }));
  server.route(
    "/rolling.xml",
    (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(items)),
  );
  const blog = await addBlog(storage, `${origin}/rolling.xml`);
  const limited = testOptions({ maxItemsPerBlog: 3 });
  await run(blog, undefined, limited);
  items = [1, 2].map((hours) => ({ guid: `new-${hours}`, published: recent(hours) }));
  assert.deepEqual(await run(await reload(storage, blog), undefined, limited), {
    outcome: "updated",
    itemsAdded: 2,
    itemsDeleted: 2,
  });
  assert.deepEqual(await urlsOf(blog.id), ["new-1", "new-2", "old-1"]);
  assert.equal((await reload(storage, blog)).itemCount, 3);
});

for (const status of [301, 308]) {
  test(`${status} moves feedUrl to the target`, async () => {
    serveFeed(`/new-${status}.xml`);
    server.route(
      `/old-${status}.xml`,
      (_request, response) => void response.writeHead(status, { location: `/new-${status}.xml` }).end(),
    );
    const blog = await addBlog(storage, `${origin}/old-${status}.xml`);
    assert.equal((await run(blog)).outcome, "updated");
    assert.equal((await reload(storage, blog)).feedUrl, `${origin}/new-${status}.xml`);
  });
}

for (const status of [302, 307]) {
  test(`${status} keeps feedUrl`, async () => {
    serveFeed(`/new-${status}.xml`);
    server.route(
      `/old-${status}.xml`,
      (_request, response) => void response.writeHead(status, { location: `/new-${status}.xml` }).end(),
    );
    const blog = await addBlog(storage, `${origin}/old-${status}.xml`);
    assert.equal((await run(blog)).outcome, "updated");
    assert.equal((await reload(storage, blog)).feedUrl, `${origin}/old-${status}.xml`);
    assert.equal((await reload(storage, blog)).itemCount, 2);
  });
}

test("a 301 to a feed another blog already has leaves feedUrl alone", async () => {
  serveFeed("/taken.xml");
  server.route("/moving.xml", (_request, response) => void response.writeHead(301, { location: "/taken.xml" }).end());
  const other = await addBlog(storage, `${origin}/taken.xml`);
  const blog = await addBlog(storage, `${origin}/moving.xml`);
  assert.equal((await run(blog)).outcome, "updated");
  assert.equal((await reload(storage, blog)).feedUrl, `${origin}/moving.xml`);
  assert.equal((await reload(storage, other)).feedUrl, `${origin}/taken.xml`);
});

test("410 marks the blog gone, off the public list, checked again a week later", async () => {
  server.route("/gone.xml", (_request, response) => void response.writeHead(410).end());
  const blog = await addBlog(storage, `${origin}/gone.xml`);
  assert.equal((await run(blog)).outcome, "gone");
  const gone = await reload(storage, blog);
  assert.equal(gone.status, "gone");
  assert.equal(gone.lastError, "HTTP 410 Gone");
  assert.deepEqual(gone.nextFetchAt, new Date(clock.getTime() + 7 * DAY), "its weekly check");
  assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 0);
  const due = (at: number) =>
    storage.blogs
      .listDue(new Date(clock.getTime() + at), 100)
      .then((blogs) => blogs.some((candidate) => candidate.id === blog.id));
  assert.equal(await due(6 * DAY), false);
  assert.equal(await due(7 * DAY), true);
});

test("a gone feed stays gone through any failure at its weekly check, and comes back the first time it answers", async () => {
  let answer = 410;
  server.route("/back.xml", (request, response) => {
    if (answer === 200) return conditionalFeed(() => rss(twoItems(), { title: "Back again" }))(request, response);
    response.writeHead(answer).end();
  });
  const blog = await addBlog(storage, `${origin}/back.xml`);
  assert.equal((await run(blog)).outcome, "gone");
  for (const status of [404, 500, 410]) {
    answer = status;
    clock = new Date(clock.getTime() + 7 * DAY);
    assert.equal((await run(await reload(storage, blog))).outcome, "gone", `HTTP ${status}`);
    const still = await reload(storage, blog);
    assert.equal(still.status, "gone", `HTTP ${status}`);
    assert.match(still.lastError ?? "", new RegExp(`HTTP ${status}`));
    assert.deepEqual(still.nextFetchAt, new Date(clock.getTime() + 7 * DAY));
  }
  answer = 200;
  clock = new Date(clock.getTime() + 7 * DAY);
  assert.equal((await run(await reload(storage, blog))).outcome, "updated");
  const back = await reload(storage, blog);
  assert.equal(back.status, "active");
  assert.equal(back.lastError, null);
  assert.deepEqual(
    (await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).items.map((listed) => listed.id),
    [blog.id],
    "public again",
  );
});

test("redirects that end in 404 or 410: an error naming where they lead, gone once every fetch for 7 days ended so", async () => {
  let target = "/nowhere.xml";
  server.route(
    "/old-feed.xml",
    (_request, response) => void response.writeHead(301, { location: `${origin}${target}` }).end(),
  );
  server.route("/nowhere.xml", (_request, response) => void response.writeHead(404).end());
  server.route("/removed.xml", (_request, response) => void response.writeHead(410).end());
  server.route("/broken.xml", (_request, response) => void response.writeHead(500).end());
  const blog = await addBlog(storage, `${origin}/old-feed.xml`);
  const start = clock;
  assert.equal((await run(blog)).outcome, "failed");
  let after = await reload(storage, blog);
  assert.equal(after.status, "error", "listed with its status meanwhile");
  assert.equal(after.lastError, `The feed redirects to ${origin}/nowhere.xml, which answers HTTP 404 Not Found`);
  assert.deepEqual(after.deadEndSince, start);
  assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 1);

  // A 500 on the way breaks the run: the week starts again at the next dead end.
  target = "/broken.xml";
  clock = new Date(start.getTime() + 3 * DAY);
  await run(after);
  after = await reload(storage, blog);
  assert.equal(after.deadEndSince, null);
  target = "/removed.xml";
  for (const day of [4, 8, 10]) {
    clock = new Date(start.getTime() + day * DAY);
    assert.equal((await run(after)).outcome, "failed", `day ${day}: a run of ${day - 4} days`);
    after = await reload(storage, blog);
    assert.equal(after.status, "error");
  }
  clock = new Date(start.getTime() + 11 * DAY);
  assert.equal((await run(after)).outcome, "gone", "seven days of dead ends");
  after = await reload(storage, blog);
  assert.equal(after.status, "gone");
  assert.deepEqual(after.deadEndSince, new Date(start.getTime() + 4 * DAY));
  assert.match(after.lastError ?? "", /redirects to .*\/removed\.xml, which answers HTTP 410 Gone/);
  assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 0);
});

test("a plain 404 is an error like any other: listed with its status, however long it lasts", async () => {
  server.route("/missing.xml", (_request, response) => void response.writeHead(404).end());
  const blog = await addBlog(storage, `${origin}/missing.xml`);
  for (const day of [0, 5, 10, 30]) {
    clock = new Date(clock.getTime() + day * DAY);
    assert.equal((await run(await reload(storage, blog))).outcome, "failed");
  }
  const after = await reload(storage, blog);
  assert.equal(after.status, "error");
  assert.equal(after.deadEndSince, null);
  assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 1);
});

test("429 with Retry-After sets nextFetchAt to it; 503 without one backs off", async () => {
  const retryAt = new Date(clock.getTime() + 3 * 3600_000);
  server.route(
    "/busy.xml",
    (_request, response) => void response.writeHead(429, { "retry-after": retryAt.toUTCString() }).end(),
  );
  server.route("/down.xml", (_request, response) => void response.writeHead(503).end());
  const busy = await addBlog(storage, `${origin}/busy.xml`);
  const down = await addBlog(storage, `${origin}/down.xml`);
  assert.equal((await run(busy)).outcome, "failed");
  assert.equal((await run(down)).outcome, "failed");
  const busyAfter = await reload(storage, busy);
  assert.equal(busyAfter.status, "error");
  assert.equal(busyAfter.lastError, "HTTP 429 Too Many Requests");
  assert.deepEqual(busyAfter.nextFetchAt, retryAt);
  assert.deepEqual((await reload(storage, down)).nextFetchAt, new Date(clock.getTime() + 5 * MINUTE));
});

test("503 with Retry-After (seconds or a date) sets nextFetchAt to it, as 429 does; other errors' Retry-After is not read", async () => {
  const retryAt = new Date(clock.getTime() + 3 * 3600_000);
  server.route(
    "/maintenance.xml",
    (_request, response) => void response.writeHead(503, { "retry-after": retryAt.toUTCString() }).end(),
  );
  server.route(
    "/maintenance-seconds.xml",
    (_request, response) => void response.writeHead(503, { "retry-after": "7200" }).end(),
  );
  server.route(
    "/broken.xml",
    (_request, response) => void response.writeHead(500, { "retry-after": retryAt.toUTCString() }).end(),
  );
  const maintenance = await addBlog(storage, `${origin}/maintenance.xml`);
  const seconds = await addBlog(storage, `${origin}/maintenance-seconds.xml`);
  const broken = await addBlog(storage, `${origin}/broken.xml`);
  for (const blog of [maintenance, seconds, broken]) assert.equal((await run(blog)).outcome, "failed");
  const after = await reload(storage, maintenance);
  assert.equal(after.lastError, "HTTP 503 Service Unavailable");
  assert.deepEqual(after.nextFetchAt, retryAt);
  // Seconds count from when the response came (the real clock, not the test's).
  const inTwoHours = (await reload(storage, seconds)).nextFetchAt!.getTime() - 2 * 3600_000;
  assert.ok(
    inTwoHours >= clock.getTime() && inTwoHours <= Date.now(),
    `Retry-After: 7200 → ${new Date(inTwoHours + 2 * 3600_000).toISOString()}`,
  );
  assert.deepEqual(
    (await reload(storage, broken)).nextFetchAt,
    new Date(clock.getTime() + 5 * MINUTE),
    "a 500 backs off as usual",
  );
});

test("500s back off 5 min × 2^(n-1) up to a day, keep items, and success resets everything", async () => {
  let failing = false;
  server.route("/flaky.xml", (request, response) => {
    if (failing) return void response.writeHead(500).end("boom");
    return conditionalFeed(() => rss(twoItems()))(request, response);
  });
  let blog = await addBlog(storage, `${origin}/flaky.xml`);
  await run(blog);
  failing = true;
  const delays: number[] = [];
  for (let attempt = 1; attempt <= 11; attempt++) {
    blog = await reload(storage, blog);
    assert.equal((await run(blog)).outcome, "failed");
    const after = await reload(storage, blog);
    assert.equal(after.status, "error");
    assert.equal(after.lastError, "HTTP 500 Internal Server Error");
    assert.equal(after.failureCount, attempt);
    delays.push((after.nextFetchAt!.getTime() - clock.getTime()) / MINUTE);
  }
  assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1440, 1440]);
  assert.equal((await reload(storage, blog)).itemCount, 2, "items untouched by failures");

  failing = false;
  assert.equal((await run(await reload(storage, blog))).outcome, "not-modified");
  const healed = await reload(storage, blog);
  assert.equal(healed.status, "active");
  assert.equal(healed.failureCount, 0);
  assert.equal(healed.fetchReason, "posting-rate", "back on its schedule");
  assert.ok(healed.nextFetchAt! > clock);
  assert.equal(healed.lastError, null);
});

test("a timeout is an error with a short message and back-off", async () => {
  server.route("/slow.xml", () => undefined); // never answers
  const blog = await addBlog(storage, `${origin}/slow.xml`);
  assert.equal((await run(blog, undefined, testOptions({ fetchTimeout: 200 }))).outcome, "failed");
  const after = await reload(storage, blog);
  assert.equal(after.status, "error");
  assert.match(after.lastError ?? "", /^Timed out/);
  assert.deepEqual(after.nextFetchAt, new Date(clock.getTime() + 5 * MINUTE));
});

test("an unparseable body keeps the stored items and says why", async () => {
  let broken = false;
  server.route("/breaks.xml", (_request, response) => {
    response
      .writeHead(200, { "content-type": "application/rss+xml" })
      .end(broken ? "Database error: please try again later." : rss(twoItems()));
  });
  const blog = await addBlog(storage, `${origin}/breaks.xml`);
  await run(blog);
  const items = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
  broken = true;
  assert.equal((await run(await reload(storage, blog))).outcome, "failed");
  const after = await reload(storage, blog);
  assert.equal(after.status, "error");
  assert.match(after.lastError ?? "", /^Not a readable feed/);
  assert.equal(after.itemCount, 2);
  assert.deepEqual(await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 }), items);
});

test("a truncated feed keeps its whole items, drops the broken one and puts the blog in error until it is whole again", async () => {
  const whole = rss(twoItems());
  // Cut mid-item, its tags crossed, no closing tags: what readers get from a broken generator or transfer.
  const truncated = whole.replace(
    "</channel></rss>",
    "<item><title>Half an item<link>http://example.invalid/x</item></title>",
  );
  let body = truncated;
  server.route(
    "/truncated.xml",
    conditionalFeed(() => body),
  );
  const blog = await addBlog(storage, `${origin}/truncated.xml`);

  assert.deepEqual(await run(blog), { outcome: "failed", itemsAdded: 2, itemsDeleted: 0, blogrollChanged: true });
  const broken = await reload(storage, blog);
  assert.equal(broken.status, "error");
  assert.match(
    broken.lastError ?? "",
    /^Feed partly unreadable: Malformed XML: the document ends before its closing tags.*1 broken item was left out/,
  );
  assert.equal(broken.failureCount, 1);
  assert.ok(broken.nextFetchAt && broken.nextFetchAt > clock, "backs off like any failure");
  assert.equal(broken.etag, null, "no validator kept: the next fetch reads the feed afresh");
  const items = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
  assert.deepEqual(items.map((item) => item.uid).sort(), ["one", "two"]);
  for (const item of items) assert.ok(item.url, "no item without a URL");
  assert.ok(items.every((item) => !item.title?.includes("Half an item")));

  body = whole;
  clock = new Date(clock.getTime() + DAY);
  assert.equal((await run(await reload(storage, blog))).outcome, "updated");
  assert.equal(server.lastHeaders("/truncated.xml")?.["if-none-match"], undefined, "asked unconditionally");
  const healed = await reload(storage, blog);
  assert.deepEqual([healed.status, healed.lastError, healed.failureCount], ["active", null, 0]);
});

test("a connection refused is reported in words, without the resolved address", async () => {
  const blog = await addBlog(storage, "http://localhost:1/feed.xml");
  assert.equal((await run(blog)).outcome, "failed");
  const { lastError } = await reload(storage, blog);
  assert.match(lastError ?? "", /^Network error: /);
  assert.doesNotMatch(lastError ?? "", /127\.0\.0\.1|::1|\n|\bat /);
});

test("a storage failure while saving is caught and reported as failed", async () => {
  serveFeed("/ok.xml");
  const blog = await addBlog(storage, `${origin}/ok.xml`);
  const broken: Storage = {
    ...storage,
    items: { ...storage.items, store: () => Promise.reject(new Error("disk full")) },
  };
  const logged: string[] = [];
  const result = await syncBlog(broken, blog, options, new AbortController().signal, {
    ...deps(),
    log: (line) => logged.push(line),
  });
  assert.equal(result.outcome, "failed");
  const after = await reload(storage, blog);
  assert.equal(after.status, "error");
  assert.equal(after.lastError, "Could not save this blog's items");
  assert.deepEqual(logged, [`saving ${origin}/ok.xml failed: Error: disk full`], "the operator's log has the cause");
});

test("an unexpected parser failure shows the owner a generic message and gives the operator's log the cause", async () => {
  serveFeed("/odd.xml");
  const blog = await addBlog(storage, `${origin}/odd.xml`);
  const logged: string[] = [];
  const parse: SyncBlogDeps["parse"] = () => Promise.reject(new RangeError("worker went away"));
  const result = await syncBlog(storage, blog, options, new AbortController().signal, {
    ...deps(),
    parse,
    log: (line) => logged.push(line),
  });
  assert.equal(result.outcome, "failed");
  assert.equal((await reload(storage, blog)).lastError, "Unexpected error while syncing this blog");
  assert.deepEqual(logged, [`syncing ${origin}/odd.xml failed: RangeError: worker went away`]);
});

test("the run is told a feed is fetched once its response is in, before the parse; a failed request tells it too", async () => {
  serveFeed("/told.xml");
  const events: string[] = [];
  const told: SyncBlogDeps = {
    ...deps(),
    fetched: () => void events.push("fetched"),
    parse: (...args) => (events.push("parse"), feedParser(false)(...args)),
  };
  const ok = await syncBlog(
    storage,
    await addBlog(storage, `${origin}/told.xml`),
    options,
    new AbortController().signal,
    told,
  );
  assert.equal(ok.outcome, "updated");
  assert.deepEqual(events, ["fetched", "parse"]);

  events.length = 0;
  const refused = await addBlog(storage, "http://127.0.0.1:1/feed.xml");
  const failed = await syncBlog(storage, refused, options, new AbortController().signal, told);
  assert.equal(failed.outcome, "failed");
  assert.deepEqual(events, ["fetched"]);
});

test("an aborted fetch writes nothing", async () => {
  server.route("/hang.xml", () => undefined);
  const blog = await addBlog(storage, `${origin}/hang.xml`);
  const controller = new AbortController();
  const pending = run(blog, controller.signal);
  setTimeout(() => controller.abort(), 50);
  assert.equal((await pending).outcome, "aborted");
  assert.deepEqual(await reload(storage, blog), blog);
});

test("a blog without an image asks for its site's icon after a 200 and a 304 alike, and fetches nothing for it itself", async () => {
  server.route(
    "/site/",
    (_request, response) =>
      void response.writeHead(200, { "content-type": "text/html" }).end(`<head><link rel="icon" href="i.png"></head>`),
  );
  serveFeed("/iconless.xml", twoItems(), { image: null, link: `${origin}/site/` });
  const blog = await addBlog(storage, `${origin}/iconless.xml`);
  const first = await run(blog);
  assert.equal(first.outcome, "updated");
  assert.deepEqual(first.icon, { siteUrl: `${origin}/site/` });
  const second = await run(await reload(storage, blog));
  assert.equal(second.outcome, "not-modified");
  assert.deepEqual(second.icon, { siteUrl: `${origin}/site/` }, "the site as stored: a 304 asks for the same site");
  assert.equal(server.hits("/site/"), 0, "icons are the run's business, after the feeds");

  serveFeed("/pictured.xml", twoItems(), { image: `${origin}/logo.png` });
  assert.equal(
    (await run(await addBlog(storage, `${origin}/pictured.xml`))).icon,
    undefined,
    "the feed's own image needs no icon",
  );
  serveFeed("/edited.xml", twoItems(), { image: null });
  const edited = await addBlog(storage, `${origin}/edited.xml`);
  await storage.blogs.edit(edited.id, { photo: "https://owner.example/me.png" });
  assert.equal((await run(await reload(storage, edited))).icon, undefined, "nor does a photo the owner set");
});

test("an h-feed is its site's page: the page comes along with the icon wish", async () => {
  const page =
    `<!doctype html><html><head><link rel="icon" href="/me.png"></head><body><div class="h-feed">` +
    `<article class="h-entry"><a class="u-url p-name" href="/one">One</a><time class="dt-published" datetime="${recent(1).toISOString()}"></time></article></div></body></html>`;
  server.route(
    "/home/",
    (_request, response) => void response.writeHead(200, { "content-type": "text/html" }).end(page),
  );
  const result = await run(await addBlog(storage, `${origin}/home/`));
  assert.equal(result.outcome, "updated");
  assert.equal(result.icon?.page?.url, `${origin}/home/`);
  assert.equal(Buffer.from(result.icon?.page?.body ?? []).toString(), page);
});

test("a listed blog keeps the list's title and description; the feed fills in only what the list left out", async () => {
  serveFeed("/listed.xml");
  const listed = (
    await storage.blogs.upsertFromSource({
      feedUrl: `${origin}/listed.xml`,
      title: "Curated name",
      description: "Curated words",
      source: "opml",
    })
  ).blog;
  assert.equal((await run(listed)).outcome, "updated");
  const afterListed = await reload(storage, listed);
  assert.equal(afterListed.title, "Curated name");
  assert.equal(afterListed.description, "Curated words");

  serveFeed("/unnamed.xml");
  const host = new URL(origin).hostname;
  const unnamed = (
    await storage.blogs.upsertFromSource({ feedUrl: `${origin}/unnamed.xml`, title: null, source: "feedland" })
  ).blog;
  assert.equal(unnamed.title, host, "the host stands in for a title");
  assert.equal((await run(unnamed)).outcome, "updated");
  const afterUnnamed = await reload(storage, unnamed);
  assert.equal(afterUnnamed.title, "The feed title", "the feed's replaces it");
  assert.equal(afterUnnamed.description, "A test feed");
});

test("a feed's relative ids and links resolve against the Content-Location its server sends", async () => {
  server.route("/located.atom", (_request, response) => {
    const body = `<feed xmlns="http://www.w3.org/2005/Atom"><title>Located</title><entry><id>/posts/1</id><link href="1.html"/><updated>${recent(1).toISOString()}</updated></entry></feed>`;
    response
      .writeHead(200, {
        "content-type": "application/atom+xml",
        "content-location": "https://blog.example.net/feeds/main.atom",
      })
      .end(body);
  });
  const blog = await addBlog(storage, `${origin}/located.atom`, "placeholder");
  assert.equal((await run(blog)).outcome, "updated");
  const [stored] = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
  assert.equal(stored.url, "https://blog.example.net/feeds/1.html");
  assert.equal(stored.uid, "https://blog.example.net/posts/1");
});

test("the next fetch is never sooner than Cache-Control max-age, or <ttl> (also after a 304)", async () => {
  const items = twoItems(); // posting about hourly: on its own fetched every ~17 min
  server.route(
    "/cached.xml",
    (_request, response) =>
      void response
        .writeHead(200, { "content-type": "application/rss+xml", "cache-control": "public, max-age=7200" })
        .end(rss(items)),
  );
  const withTtl = rss(items).replace("<channel>", "<channel><ttl>180</ttl>");
  server.route(
    "/ttl.xml",
    conditionalFeed(() => withTtl),
  );
  const cached = await addBlog(storage, `${origin}/cached.xml`);
  const ttl = await addBlog(storage, `${origin}/ttl.xml`);
  for (const roll of [0, 0.999]) {
    await syncBlog(storage, await reload(storage, cached), options, new AbortController().signal, {
      ...deps(),
      random: () => roll,
    });
    const after = await reload(storage, cached);
    assert.equal(after.fetchReason, "server");
    assert.ok(after.nextFetchAt!.getTime() - clock.getTime() >= 7200_000, "jitter never goes below the floor");
  }
  await run(ttl);
  assert.equal((await reload(storage, ttl)).nextFetchAt!.getTime() - clock.getTime(), 3 * 3600_000);
  clock = new Date(clock.getTime() + 3 * 3600_000);
  assert.equal((await run(await reload(storage, ttl))).outcome, "not-modified");
  const after304 = await reload(storage, ttl);
  assert.equal(after304.fetchReason, "server");
  assert.equal(
    after304.nextFetchAt!.getTime() - clock.getTime(),
    3 * 3600_000,
    "the feed's floor holds while it is unchanged",
  );
});

test("a pushed blog is polled at maxFetchInterval; a poll that finds posts the push missed puts it back on its schedule", async () => {
  let items = twoItems();
  server.route(
    "/pushed.xml",
    (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(items)),
  );
  const blog = await addBlog(storage, `${origin}/pushed.xml`);
  let active = false;
  const pushSignal = { isActive: async () => active };
  const poll = async (answersPush = false) =>
    syncBlog(storage, await reload(storage, blog), options, new AbortController().signal, {
      ...deps(),
      pushSignal,
      answersPush,
    });

  await poll(); // before the subscription: the posts already there
  active = true;
  await poll(); // subscribed, nothing new since: the safety poll
  let after = await reload(storage, blog);
  assert.equal(after.fetchReason, "push");
  assert.equal(after.nextFetchAt!.getTime() - clock.getTime(), Math.round(options.maxFetchInterval * (1 - 0.01 * 0.5)));

  items = [{ guid: "three", published: recent(0.5) }, ...items];
  await poll(true);
  assert.equal(
    (await reload(storage, blog)).fetchReason,
    "push",
    "a fetch a notification asked for brings the push's posts: still pushed",
  );

  items = [{ guid: "four", published: recent(0.25) }, ...items];
  await poll();
  after = await reload(storage, blog);
  assert.equal(after.fetchReason, "posting-rate", "a safety poll found a post the push missed: back on the schedule");
});

test("a feed's body is moved to the parse worker, not copied; a page's is copied and kept for its icon", async () => {
  const inWorkers = { ...deps(), parse: feedParser(true) };
  try {
    // Past Buffer's pool (4 KB), as feeds are: a body read is then a buffer of its own.
    const items = Array.from({ length: 40 }, (_, index) => ({ guid: `post-${index}`, published: recent(index + 1) }));
    serveFeed("/moved.xml", items);
    const before = parsePoolStats().transferredBytes;
    const feed = await syncBlog(
      storage,
      await addBlog(storage, `${origin}/moved.xml`),
      options,
      new AbortController().signal,
      inWorkers,
    );
    assert.equal(feed.outcome, "updated");
    const body = rss(items, { title: "The feed title" });
    assert.ok(Buffer.byteLength(body) > 4096);
    // The whole body went to the worker: this thread keeps no copy of it to collect later.
    assert.equal(parsePoolStats().transferredBytes - before, Buffer.byteLength(body));

    const page =
      `<!doctype html><html><head><link rel="icon" href="/me.png"></head><body><div class="h-feed">` +
      `<article class="h-entry"><a class="u-url" href="/one">One</a><time class="dt-published" datetime="${recent(1).toISOString()}"></time></article>` +
      `</div></body></html>`;
    server.route(
      "/page/",
      (_request, response) => void response.writeHead(200, { "content-type": "text/html" }).end(page),
    );
    const moved = parsePoolStats().transferredBytes;
    const hfeed = await syncBlog(
      storage,
      await addBlog(storage, `${origin}/page/`),
      options,
      new AbortController().signal,
      inWorkers,
    );
    assert.equal(parsePoolStats().transferredBytes, moved, "a page is copied to the worker");
    assert.equal(Buffer.from(hfeed.icon?.page?.body ?? []).toString(), page, "and comes along with the icon wish");
  } finally {
    await closeParsePool();
  }
});

test("a compressed feed goes to the parse worker as it came, and is decompressed there", async () => {
  const inWorkers = { ...deps(), parse: feedParser(true) };
  try {
    // Past Buffer's pool (4 KB) once compressed, as feeds are: titles that do not compress away.
    const items = Array.from({ length: 200 }, (_, index) => ({
      guid: `post-${index}`,
      title: randomBytes(16).toString("hex"),
      published: recent(index + 1),
    }));
    const body = Buffer.from(rss(items, { title: "Compressed" }));
    const codings = { gzip: gzipSync(body), br: brotliCompressSync(body), deflate: deflateSync(body) };
    for (const [coding, sent] of Object.entries(codings)) {
      server.route(
        `/${coding}.xml`,
        (_request, response) =>
          void response.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": coding }).end(sent),
      );
      const before = parsePoolStats().transferredBytes;
      const blog = await addBlog(storage, `${origin}/${coding}.xml`);
      const result = await syncBlog(storage, blog, options, new AbortController().signal, inWorkers);
      assert.equal(result.outcome, "updated", coding);
      assert.equal(result.itemsAdded, options.maxItemsPerBlog, coding);
      assert.equal((await reload(storage, blog)).title, "Compressed", coding);
      // Only the compressed bytes were held here, and moved: the worker made the body.
      assert.equal(parsePoolStats().transferredBytes - before, sent.length, coding);
      assert.ok(sent.length < body.length / 4, coding);
    }
  } finally {
    await closeParsePool();
  }
});

test("a compressed feed too large once decompressed, or corrupt, fails as its read would, in a worker or not", async () => {
  const limits = { ...options, maxBodySize: 64 * 1024 };
  // A small bomb: a kilobyte on the wire, 1 MB decompressed.
  const bomb = gzipSync(Buffer.from(rss([{ guid: "one", title: "x".repeat(1024 * 1024), published: recent(1) }])));
  const cases: Array<[string, string, Buffer, string]> = [
    ["bomb", "gzip", bomb, "Response larger than 64 KiB"],
    [
      "corrupt",
      "gzip",
      Buffer.concat([bomb.subarray(0, 10), Buffer.from("not deflate data at all")]),
      "Network error: the response could not be decompressed",
    ],
    [
      "corrupt-br",
      "br",
      Buffer.from("not brotli data, not at all"),
      "Network error: the response could not be decompressed",
    ],
  ];
  try {
    for (const [where, parse] of [
      ["worker", feedParser(true)],
      ["here", feedParser(false)],
    ] as const) {
      for (const [name, coding, sent, expected] of cases) {
        const path = `/${name}-${where}.xml`;
        server.route(
          path,
          (_request, response) =>
            void response
              .writeHead(200, { "content-type": "application/rss+xml", "content-encoding": coding })
              .end(sent),
        );
        const blog = await addBlog(storage, `${origin}${path}`);
        const result = await syncBlog(storage, blog, limits, new AbortController().signal, { ...deps(), parse });
        assert.equal(result.outcome, "failed", path);
        const after = await reload(storage, blog);
        assert.equal(after.lastError, expected, path);
        assert.equal(after.failureCount, 1, path);
      }
    }
    assert.equal(await storage.items.count(), 0);
  } finally {
    await closeParsePool();
  }
});
