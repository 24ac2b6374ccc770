import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { addManualBlog } from "../../lib/sources/manual.js";
import { startTestServer, type TestServer } from "../support/server.js";

/**
 * Every source type through the plugin's own scheduler (`syncNow`: sources
 * refreshed, then due blogs fetched), against one fixture site on loopback
 * that serves OPML lists, a FeedLand instance, a home page and the feeds.
 */

const rss = (name: string, published: Date) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${name} (from the feed)</title><link>https://${name}.example/</link><description>d</description>` +
  `<item><title>${name} post</title><link>https://${name}.example/1</link><guid>${name}-1</guid><pubDate>${published.toUTCString()}</pubDate></item></channel></rss>`;

async function startSite() {
  const requests: string[] = [];
  const state = { origin: "", opmlVersion: 1, moved: false };
  const published = new Date(Date.now() - 3_600_000);
  const outline = (name: string, attributes = "") =>
    `<outline type="rss" text="${name}" xmlUrl="${state.origin}/feeds/${name}.xml" ${attributes}/>`;
  const opml = (body: string) =>
    `<?xml version="1.0"?><opml version="2.0"><head><title>List</title></head><body>${body}</body></opml>`;
  const server = createServer((request: IncomingMessage, response) => {
    const url = new URL(request.url ?? "/", state.origin);
    requests.push(url.pathname + url.search);
    const send = (type: string, body: string, headers: Record<string, string> = {}) =>
      response.writeHead(200, { "Content-Type": type, ...headers }).end(body);
    if (url.pathname === "/list.opml") {
      const etag = `"v${state.opmlVersion}"`;
      if (request.headers["if-none-match"] === etag) return void response.writeHead(304, { ETag: etag }).end();
      return send(
        "text/x-opml",
        opml(
          `<outline text="Friends"><outline text="Close">${outline("remote1")}</outline>${outline("remote2", 'category="/Work/Colleagues"')}</outline>`,
        ),
        { ETag: etag },
      );
    }
    if (url.pathname === "/opml" && url.searchParams.get("screenname") === "ada") {
      assert.equal(url.searchParams.get("catname"), "Blogs");
      return send("text/xml", opml(outline("fl1", 'category="Blogs,Tech"')));
    }
    if (url.pathname === "/home/")
      return send(
        "text/html",
        `<!doctype html><title>Home</title><link rel="alternate" type="application/rss+xml" href="/feeds/manual1.xml">`,
      );
    if (state.moved && url.pathname === "/feeds/remote2.xml")
      return void response.writeHead(301, { Location: "/moved/remote2.xml" }).end();
    const feed = /^\/(?:feeds|moved)\/(\w+)\.xml$/.exec(url.pathname);
    if (feed) return send("application/rss+xml", rss(feed[1], published));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    state,
    requests,
    outline,
    opml,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("each source type through the scheduler (MongoDB adapter on the mingo stand-in, not a real MongoDB server; fixture site on loopback)", () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  before(async () => {
    server = await startTestServer("mongo-standin");
    site = await startSite();
  });
  after(async () => {
    await server.close();
    await site.close();
  });

  const blogsByFeed = async () => {
    const body = await (await server.get(`${server.api}/blogs?limit=1000`)).json();
    return new Map<string, Record<string, unknown>>(
      body.items.map((blog: Record<string, unknown>) => [String(blog.feedUrl).replace(site.state.origin, ""), blog]),
    );
  };
  const itemTitles = async () =>
    ((await (await server.get(`${server.api}/items?limit=200`)).json()).items as Array<{ title: string }>)
      .map((item) => item.title)
      .sort();

  it("imports OPML URL, OPML file, FeedLand, manual and Microsub blogs, and fetches all but the Microsub ones", async () => {
    const { origin } = site.state;
    const db = server.fakeDb!;
    const channels = db.collection("microsub_channels");
    const feeds = db.collection("microsub_feeds");
    const channelId = new ObjectId();
    await channels.insertOne({ _id: channelId, uid: "news", name: "News", order: 0 });
    await feeds.insertOne({
      _id: new ObjectId(),
      channelId,
      url: `${origin}/feeds/ms1.xml`,
      title: "Microsub one",
      photo: null,
      status: "active",
    });
    server.collections.set("microsub_channels", channels);
    server.collections.set("microsub_feeds", feeds);

    const storage = server.storage;
    const remote = await storage.sources.create({
      type: "opml_url",
      name: "Remote",
      settings: { url: `${origin}/list.opml` },
    });
    const file = await storage.sources.create({
      type: "opml_file",
      name: "Upload",
      settings: { xml: site.opml(`<outline title="Uploaded">${site.outline("file1")}</outline>`) },
    });
    const feedland = await storage.sources.create({
      type: "feedland",
      name: "FeedLand",
      settings: { instance: origin, screenName: "ada", category: "Blogs" },
    });
    const microsub = await storage.sources.create({
      type: "microsub",
      name: "Microsub",
      settings: { categoryPrefix: "MS/" },
    });
    const manual = await storage.sources.create({ type: "manual", name: "By hand" });
    const added = await addManualBlog(storage, server.plugin.settings, { url: `${origin}/home/`, category: "Mine" });
    assert.ok(added.ok);

    assert.equal(await server.plugin.context.scheduler.syncNow(), true);

    const blogs = await blogsByFeed();
    const summary = Object.fromEntries(
      [...blogs].map(([feed, blog]) => [feed, [blog.source, blog.category, blog.microsubChannel ?? null, blog.status]]),
    );
    assert.deepEqual(summary, {
      "/feeds/remote1.xml": ["opml", "Close", null, "active"],
      "/feeds/remote2.xml": ["opml", "Colleagues", null, "active"],
      "/feeds/file1.xml": ["opml", "Uploaded", null, "active"],
      "/feeds/fl1.xml": ["feedland", "Blogs", null, "active"],
      "/feeds/manual1.xml": ["manual", "Mine", null, "active"],
      "/feeds/ms1.xml": ["microsub", "MS/News", "News", "pending"],
    });
    for (const created of [remote, file, feedland, microsub]) {
      const read = await storage.sources.get(created.id);
      assert.equal(read?.status, "ok", created.type);
      assert.equal(read?.lastError, null, created.type);
      assert.ok(read?.lastSyncAt instanceof Date, created.type);
      assert.equal(read?.lastImport?.added, created.type === "opml_url" ? 2 : 1, created.type);
    }
    assert.equal((await storage.sources.get(manual.id))?.lastSyncAt, null, "a manual source has nothing to refresh");
    assert.deepEqual(await itemTitles(), ["file1 post", "fl1 post", "manual1 post", "remote1 post", "remote2 post"]);
    assert.ok(!site.requests.includes("/feeds/ms1.xml"), "a Microsub blog is never fetched by our scheduler");
    assert.ok(site.requests.includes("/opml?screenname=ada&catname=Blogs"));

    // A second run: the OPML URL answers 304, nothing is added twice, the Microsub feed is still not fetched.
    site.requests.length = 0;
    assert.equal(await server.plugin.context.scheduler.syncNow(), true);
    assert.ok(site.requests.includes("/list.opml"));
    assert.deepEqual((await storage.sources.get(remote.id))?.lastImport, {
      added: 2,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      missing: 0,
    });
    assert.equal((await blogsByFeed()).size, 6);
    assert.ok(!site.requests.includes("/feeds/ms1.xml"));

    // Listings and feeds do not overwrite each other in turn: a listed blog keeps the list's title,
    // so re-reading an unchanged list finds nothing to update; a manual blog takes the feed's title.
    const titles = Object.fromEntries([...(await blogsByFeed())].map(([feed, blog]) => [feed, blog.title]));
    assert.equal(titles["/feeds/file1.xml"], "file1");
    assert.equal(titles["/feeds/fl1.xml"], "fl1");
    assert.equal(titles["/feeds/remote1.xml"], "remote1");
    assert.equal(titles["/feeds/manual1.xml"], "manual1 (from the feed)");
    for (const reread of [file, feedland]) {
      assert.deepEqual(
        (await storage.sources.get(reread.id))?.lastImport,
        { added: 0, updated: 0, unchanged: 1, skipped: 0, missing: 0 },
        reread.type,
      );
    }
  });

  it("a feed that moved with a permanent redirect is still the blog the list names under its old address", async () => {
    const before = await blogsByFeed();
    const id = before.get("/feeds/remote2.xml")?.id;
    assert.ok(id);
    site.state.moved = true;
    // The feed is fetched (due now) and moves; then the list, changed but still naming the old address, is imported.
    await server.storage.blogs.recordFetch(String(id), {
      at: new Date(),
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
    });
    assert.equal(await server.plugin.context.scheduler.syncNow(), true);
    assert.equal((await blogsByFeed()).get("/moved/remote2.xml")?.id, id, "the sync followed the 301");
    site.state.opmlVersion = 2;
    assert.equal(await server.plugin.context.scheduler.syncNow(), true);
    const remote = (await server.storage.sources.list()).find((source) => source.type === "opml_url");
    assert.deepEqual(
      { added: remote?.lastImport?.added, skipped: remote?.lastImport?.skipped, missing: remote?.lastImport?.missing },
      { added: 0, skipped: 0, missing: 0 },
    );
    const after = await blogsByFeed();
    assert.equal(after.size, 6, "no twin under the old address");
    assert.equal(after.get("/moved/remote2.xml")?.id, id);
    assert.equal(after.get("/moved/remote2.xml")?.category, "Colleagues");
  });
});
