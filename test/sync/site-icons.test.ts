import assert from "node:assert/strict";
import { after, afterEach, beforeEach, test } from "node:test";
import { ICON_RECORD_TTL, iconRecordKey } from "../../lib/discovery/icon-records.js";
import { addManualBlog } from "../../lib/sources/manual.js";
import type { Storage } from "../../lib/storage/types.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import type { RunContext } from "../../lib/sync/scheduler.js";
import { conditionalFeed, rss, startFeedServer, type FeedServer } from "./feed-server.js";
import { addBlog, openTempStorage, reload, testOptions, type TempStorage } from "./harness.js";

let temp: TempStorage;
let storage: Storage;
let server: FeedServer;
let clock: Date;

beforeEach(async () => {
  temp = await openTempStorage();
  storage = temp.storage;
  server = await startFeedServer(["127.0.0.1", "127.0.0.2"]);
  clock = new Date();
});
afterEach(async () => {
  await server.close();
  await temp.cleanup();
});
after(() => closeParsePool());

/** "Sync now" runs: every blog is asked each time, whatever its schedule (this file is about icons). */
const run = (context: Partial<RunContext> = {}) =>
  createSyncRunner({ options: testOptions(), now: () => clock })(storage, {
    signal: new AbortController().signal,
    progress: () => undefined,
    everyone: true,
    ...context,
  });
const html = (head: string) =>
  `<!doctype html><html><head><title>Home</title>${head}</head><body><p>Posts</p></body></html>`;
/** A feed without an image whose site is `site`, served at `path`. */
function iconlessFeed(path: string, site: string) {
  server.route(
    path,
    conditionalFeed(() =>
      rss([{ guid: `${path}-1`, published: new Date(clock.getTime() - 3600_000) }], { image: null, link: site }),
    ),
  );
}
function servePage(path: string, head: string) {
  server.route(
    path,
    (_request, response) =>
      void response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html(head)),
  );
}
const iconRequests = (paths: string[]) => paths.reduce((sum, path) => sum + server.hits(path), 0);

test("posts are stored and reported before icon lookups end; icons follow in the same run", async () => {
  const [origin] = server.origins;
  let releaseHome!: () => void;
  const homeHeld = new Promise<void>((resolve) => (releaseHome = resolve));
  server.route("/slow-site/", async (_request, response) => {
    await homeHeld;
    response.writeHead(200, { "content-type": "text/html" }).end(html(`<link rel="icon" href="/slow-site/i.png">`));
  });
  iconlessFeed("/slow.xml", `${origin}/slow-site/`);
  const blog = await addBlog(storage, `${origin}/slow.xml`);

  const seenAtContentDone: { items: number; at: string }[] = [];
  const stats = run({
    contentDone: (at) => {
      void storage.items.count().then((items) => {
        seenAtContentDone.push({ items, at });
        releaseHome();
      });
    },
  });
  const result = await stats;
  assert.equal(seenAtContentDone.length, 1, "content was reported done while the home page was still held");
  assert.equal(seenAtContentDone[0].items, 1, "with the posts already stored");
  assert.equal(result.contentDoneAt, seenAtContentDone[0].at);
  assert.ok(result.extrasDoneAt! >= result.contentDoneAt!);
  assert.equal(result.lastFullSync, result.extrasDoneAt);
  assert.deepEqual(result.icons, { requests: 1, updated: 1 });
  assert.equal((await reload(storage, blog)).iconUrl, `${origin}/slow-site/i.png`);
});

test("one lookup per site and one /favicon.ico per origin, however many feeds share them", async () => {
  const [first, second] = server.origins;
  servePage("/shared/", `<link rel="apple-touch-icon" href="/shared/touch.png">`);
  for (const name of ["a", "b", "c"]) {
    iconlessFeed(`/shared-${name}.xml`, `${first}/shared/`);
    await addBlog(storage, `${first}/shared-${name}.xml`);
  }
  server.route(
    "/favicon.ico",
    (_request, response) =>
      void response.writeHead(200, { "content-type": "image/x-icon" }).end(Buffer.from([0, 0, 1, 0])),
  );
  for (const name of ["x", "y", "z"]) {
    servePage(`/${name}/`, `<meta name="description" content="no icon here">`);
    iconlessFeed(`/${name}.xml`, `${second}/${name}/`);
    await addBlog(storage, `${second}/${name}.xml`);
  }
  const stats = await run();
  assert.equal(server.hits("/shared/"), 1, "three feeds of one site: its page read once");
  for (const name of ["x", "y", "z"]) assert.equal(server.hits(`/${name}/`), 1);
  assert.equal(
    server.hits("/favicon.ico"),
    1,
    "three sites without a declared icon on one origin: one favicon request",
  );
  assert.deepEqual(stats.icons, { requests: 5, updated: 6 });
  const { items: blogs } = await storage.blogs.list({ limit: 10, offset: 0, visibility: "admin" });
  const icons = Object.fromEntries(blogs.map((blog) => [new URL(blog.feedUrl).pathname, blog.iconUrl]));
  assert.deepEqual(icons, {
    "/shared-a.xml": `${first}/shared/touch.png`,
    "/shared-b.xml": `${first}/shared/touch.png`,
    "/shared-c.xml": `${first}/shared/touch.png`,
    "/x.xml": `${second}/favicon.ico`,
    "/y.xml": `${second}/favicon.ico`,
    "/z.xml": `${second}/favicon.ico`,
  });
});

test("found icons and misses are remembered: no icon request until their record expires", async () => {
  const [origin] = server.origins;
  servePage("/found/", `<link rel="icon" href="/found/i.png">`);
  servePage("/bare/", "");
  iconlessFeed("/found.xml", `${origin}/found/`);
  iconlessFeed("/bare.xml", `${origin}/bare/`);
  const found = await addBlog(storage, `${origin}/found.xml`);
  const bare = await addBlog(storage, `${origin}/bare.xml`);
  const lookups = ["/found/", "/bare/", "/favicon.ico"];

  const first = await run();
  assert.equal(iconRequests(lookups), 3, "the found page, the bare page, then its origin's favicon (404)");
  assert.equal((await reload(storage, found)).iconUrl, `${origin}/found/i.png`);
  assert.ok(!(await reload(storage, bare)).iconUrl);
  assert.equal(first.icons?.requests, 3);

  const again = await run();
  assert.equal(again.blogs.notModified, 2);
  assert.equal(iconRequests(lookups), 3, "the re-sync asks nothing (a 404 favicon included)");
  assert.deepEqual(again.icons, { requests: 0, updated: 0 });

  // Misses are asked again after a week, found icons after a month.
  clock = new Date(clock.getTime() + ICON_RECORD_TTL.none + 60_000);
  await run();
  assert.equal(server.hits("/found/"), 1);
  assert.equal(server.hits("/bare/"), 2);
  assert.equal(server.hits("/favicon.ico"), 2);
  clock = new Date(clock.getTime() + ICON_RECORD_TTL.found);
  servePage("/found/", `<link rel="icon" href="/found/new.png">`);
  await run();
  assert.equal(server.hits("/found/"), 2);
  assert.equal(
    (await reload(storage, found)).iconUrl,
    `${origin}/found/new.png`,
    "a changed icon is picked up when its record expires",
  );
});

test("a home page read by discovery is not fetched again for its icon", async () => {
  const [origin] = server.origins;
  server.route(
    "/",
    (_request, response) =>
      void response
        .writeHead(200, { "content-type": "text/html" })
        .end(
          html(
            `<link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="icon" href="/me.png" sizes="64x64">`,
          ),
        ),
  );
  iconlessFeed("/feed.xml", `${origin}/`);
  const added = await addManualBlog(storage, testOptions(), { url: `${origin}/` });
  assert.ok(added.ok);
  assert.equal(server.hits("/"), 1);
  const stats = await run();
  assert.equal(server.hits("/"), 1, "the page discovery read gave the icon");
  assert.equal(stats.icons?.requests, 0);
  assert.equal((await reload(storage, added.blog)).iconUrl, `${origin}/me.png`);
});

test("an h-feed page in hand gives its icon without a request", async () => {
  const [origin] = server.origins;
  const body =
    `<!doctype html><html><head><link rel="icon" href="/h.png"></head><body><div class="h-feed">` +
    `<article class="h-entry"><a class="u-url p-name" href="/one">One</a><time class="dt-published" datetime="${new Date(clock.getTime() - 3600_000).toISOString()}"></time></article></div></body></html>`;
  server.route("/", (_request, response) => void response.writeHead(200, { "content-type": "text/html" }).end(body));
  const blog = await addBlog(storage, `${origin}/`);
  const stats = await run();
  assert.equal(stats.blogs.success, 1);
  assert.equal(server.hits("/"), 1, "fetched once, as the feed");
  assert.equal(stats.icons?.requests, 0);
  assert.equal((await reload(storage, blog)).iconUrl, `${origin}/h.png`);
});

test("a hostile home page (endless nesting, never finished) ends the icon lookup at its head, within the byte cap", async () => {
  const [origin] = server.origins;
  const hungUp: Promise<void>[] = [];
  const endless = (prefix: string) => (_request: unknown, response: import("node:http").ServerResponse) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.write(prefix);
    hungUp.push(new Promise((resolve) => response.on("close", () => resolve())));
    const pump = () => {
      while (!response.destroyed && response.write("<div>".repeat(2000)));
      if (!response.destroyed) response.once("drain", pump);
    };
    pump();
  };
  server.route("/hostile/", endless(`<html><head><link rel="icon" href="/hostile/i.png"></head><body>`));
  server.route("/headless/", endless(`<html><head><link rel="icon" href="/headless/i.png">`));
  iconlessFeed("/hostile.xml", `${origin}/hostile/`);
  iconlessFeed("/headless.xml", `${origin}/headless/`);
  const hostile = await addBlog(storage, `${origin}/hostile.xml`);
  const headless = await addBlog(storage, `${origin}/headless.xml`);

  const stats = await run();
  assert.equal(stats.blogs.success, 2);
  assert.equal(
    (await reload(storage, hostile)).iconUrl,
    `${origin}/hostile/i.png`,
    "read up to </head>, not to the body cap",
  );
  assert.equal(
    (await reload(storage, headless)).iconUrl,
    `${origin}/headless/i.png`,
    "cut at the cap, then read up to the first body element",
  );
  await Promise.all(hungUp);
  assert.equal(hungUp.length, 2, "both endless pages were hung up on");
});

test("a run stopped while icons are being looked up rejects, records no icon and leaves nothing running", async () => {
  const [origin] = server.origins;
  server.route("/hanging/", () => undefined);
  iconlessFeed("/hanging.xml", `${origin}/hanging/`);
  const blog = await addBlog(storage, `${origin}/hanging.xml`);
  const controller = new AbortController();
  const stopped = run({
    signal: controller.signal,
    contentDone: () => setTimeout(() => controller.abort(new Error("stopped")), 50),
  });
  await assert.rejects(stopped, /stopped/);
  assert.equal(server.hits("/hanging/"), 1);
  assert.equal((await reload(storage, blog)).iconUrl, null, "no icon written");
  assert.equal(
    await storage.meta.get(iconRecordKey("page", `${origin}/hanging/`)!),
    null,
    "no record: the next run asks again",
  );
  assert.equal(await storage.items.count(), 1, "the posts stored before the stop stay");
});

test("siteIcons: false asks for no home page and no favicon; the posts come as ever", async () => {
  const [origin] = server.origins;
  servePage("/quiet-site/", `<link rel="icon" href="/quiet-site/i.png">`);
  server.route(
    "/favicon.ico",
    (_request, response) =>
      void response.writeHead(200, { "content-type": "image/x-icon" }).end(Buffer.from([0, 0, 1, 0])),
  );
  iconlessFeed("/quiet.xml", `${origin}/quiet-site/`);
  const blog = await addBlog(storage, `${origin}/quiet.xml`);
  const stats = await createSyncRunner({ options: testOptions({ siteIcons: false }), now: () => clock })(storage, {
    signal: new AbortController().signal,
    progress: () => undefined,
    everyone: true,
  });
  assert.equal(stats.items.added, 1);
  assert.deepEqual(stats.icons, { requests: 0, updated: 0 });
  assert.equal(iconRequests(["/quiet-site/", "/favicon.ico"]), 0);
  assert.equal((await reload(storage, blog)).iconUrl, null);
});
