import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { resolveOptions } from "../../lib/options.js";
import { refreshSources } from "../../lib/sources/refresh.js";
import { feedlandOpmlUrl, listFeedlandCategories } from "../../lib/sources/feedland.js";
import { detectMicrosub } from "../../lib/microsub/detect.js";
import type { Source } from "../../lib/storage/types.js";
import { startTestServer, type TestServer } from "../support/server.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A fixture HTTP server on loopback whose behaviour a test can swap; requests are recorded. */
async function startSite(initial: Handler) {
  const state = { handler: initial, requests: [] as Array<{ url: string; headers: IncomingMessage["headers"] }> };
  const server = createServer((request, response) => {
    state.requests.push({ url: request.url ?? "/", headers: request.headers });
    state.handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const opml = (outlines: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>List</title></head><body>${outlines}</body></opml>`;
const outline = (host: string, attributes = "") =>
  `<outline type="rss" text="${host}" xmlUrl="https://${host}/feed.xml" htmlUrl="https://${host}/" ${attributes}/>`;

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });

async function publicFeedUrls(server: TestServer): Promise<string[]> {
  const body = await (await server.get(`${server.api}/blogs`)).json();
  return body.items.map((blog: { feedUrl: string }) => blog.feedUrl).sort();
}

describe("refreshSources: OPML URL, OPML file and FeedLand (SQLite, fixture servers on loopback)", () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  before(async () => {
    server = await startTestServer("sqlite");
    site = await startSite((_request, response) => response.writeHead(404).end());
  });
  after(async () => {
    await server.close();
    await site.close();
  });

  const source = async (id: string) => (await server.storage.sources.get(id)) as Source;

  it("OPML URL: imports, answers 304 with nothing to do, follows changes, and survives a broken remote", async () => {
    let document = opml(
      `<outline text="Tech">${outline("a.example")}${outline("b.example")}</outline>${outline("c.example")}`,
    );
    let version = 1;
    site.state.handler = (request, response) => {
      if (request.url !== "/list.opml") return void response.writeHead(404).end();
      const etag = `"v${version}"`;
      if (request.headers["if-none-match"] === etag) return void response.writeHead(304, { ETag: etag }).end();
      response.writeHead(200, { "Content-Type": "text/x-opml", ETag: etag }).end(document);
    };
    const created = await server.storage.sources.create({
      type: "opml_url",
      name: "Remote",
      settings: { url: `${site.origin}/list.opml` },
    });

    assert.deepEqual(await refreshSources(server.storage, options, null), { total: 1, success: 1, failed: 0 });
    let read = await source(created.id);
    assert.equal(read.status, "ok");
    assert.equal(read.lastError, null);
    assert.deepEqual(read.lastImport, { added: 3, updated: 0, unchanged: 0, skipped: 0, missing: 0 });
    assert.equal(read.etag, '"v1"');
    const firstSync = read.lastSyncAt;
    assert.ok(firstSync instanceof Date);
    assert.equal((await server.storage.blogs.getByFeedUrl("https://a.example/feed.xml"))?.category, "Tech");
    assert.equal((await server.storage.blogs.getByFeedUrl("https://a.example/feed.xml"))?.source, "opml");

    // Unchanged document: the conditional request gets a 304 and the last import stays as it was.
    site.state.requests.length = 0;
    assert.deepEqual(await refreshSources(server.storage, options, null), { total: 1, success: 1, failed: 0 });
    assert.equal(site.state.requests[0].headers["if-none-match"], '"v1"');
    read = await source(created.id);
    assert.deepEqual(read.lastImport, { added: 3, updated: 0, unchanged: 0, skipped: 0, missing: 0 });
    assert.ok((read.lastSyncAt as Date).getTime() >= (firstSync as Date).getTime());

    // A feed leaves the list: unlisted, hidden from the public API.
    version = 2;
    document = opml(`${outline("a.example")}${outline("c.example")}`);
    await refreshSources(server.storage, options, null);
    read = await source(created.id);
    assert.equal(read.lastImport?.missing, 1);
    assert.deepEqual((await server.storage.blogs.getByFeedUrl("https://b.example/feed.xml"))?.origins, []);
    assert.deepEqual(await publicFeedUrls(server), ["https://a.example/feed.xml", "https://c.example/feed.xml"]);

    // Broken remotes: truncated XML, an empty list, a server error. The blogroll stays exactly as it was.
    const before = await publicFeedUrls(server);
    for (const [label, reply, message] of [
      [
        "truncated",
        (r: ServerResponse) => r.writeHead(200, { "Content-Type": "text/xml" }).end(document.slice(0, 80)),
        /OPML/,
      ],
      [
        "empty",
        (r: ServerResponse) => r.writeHead(200, { "Content-Type": "text/xml" }).end(opml("")),
        /^OPML lists no feeds$/,
      ],
      ["server error", (r: ServerResponse) => r.writeHead(500).end("oops"), /^The site answered HTTP 500$/],
    ] as const) {
      site.state.handler = (_request, response) => reply(response);
      assert.deepEqual(await refreshSources(server.storage, options, null), { total: 1, success: 0, failed: 1 }, label);
      read = await source(created.id);
      assert.equal(read.status, "error", label);
      assert.match(read.lastError ?? "", message, label);
      assert.equal(read.etag, '"v2"', `${label}: validators of the last good import are kept`);
      assert.deepEqual(await publicFeedUrls(server), before, label);
    }
    await server.storage.sources.update(created.id, { enabled: false });
  });

  it("OPML file: imports the stored document; disabled and manual sources are not refreshed", async () => {
    const disabled = await server.storage.sources.create({
      type: "opml_file",
      name: "Off",
      enabled: false,
      settings: { xml: opml(outline("off.example")) },
    });
    await server.storage.sources.create({ type: "manual", name: "By hand" });
    const file = await server.storage.sources.create({
      type: "opml_file",
      name: "Upload",
      settings: {
        xml: opml(
          `<outline text="Friends">${outline("f1.example")}<outline text="Close">${outline("f2.example")}</outline></outline>`,
        ),
      },
    });
    assert.deepEqual(await refreshSources(server.storage, options, null), { total: 1, success: 1, failed: 0 });
    assert.equal((await source(file.id)).lastImport?.added, 2);
    assert.equal((await server.storage.blogs.getByFeedUrl("https://f1.example/feed.xml"))?.category, "Friends");
    assert.equal((await server.storage.blogs.getByFeedUrl("https://f2.example/feed.xml"))?.category, "Close");
    assert.equal(await server.storage.blogs.getByFeedUrl("https://off.example/feed.xml"), null);
    assert.equal((await source(disabled.id)).lastSyncAt, null);
    await server.storage.sources.update(file.id, { enabled: false });
  });

  it("FeedLand: asks for the user's category and files its blogs under it; lists categories", async () => {
    site.state.handler = (request, response) => {
      const url = new URL(request.url ?? "/", site.origin);
      if (url.pathname === "/opml" && url.searchParams.get("screenname") === "dave w") {
        const category = url.searchParams.get("catname");
        const body =
          category === "Tech"
            ? opml(`${outline("t1.example", 'category="News,Tech"')}${outline("t2.example", 'category="Tech"')}`)
            : opml(outline("any.example", 'category="Life"'));
        return void response.writeHead(200, { "Content-Type": "text/xml" }).end(body);
      }
      if (url.pathname === "/getusercategories" && url.searchParams.get("screenname") === "dave w") {
        return void response
          .writeHead(200, { "Content-Type": "application/json" })
          .end(
            JSON.stringify({ screenname: "dave w", categories: "Tech, News,,Life,Tech", homePageCategories: "Tech" }),
          );
      }
      if (url.pathname === "/getusercategories")
        return void response.writeHead(200, { "Content-Type": "application/json" }).end('["One","Two"]');
      response.writeHead(404).end();
    };
    const feedland = await server.storage.sources.create({
      type: "feedland",
      name: "FeedLand",
      settings: { instance: `${site.origin}/`, screenName: "dave w", category: "Tech" },
    });
    site.state.requests.length = 0;
    assert.deepEqual(await refreshSources(server.storage, options, null), { total: 1, success: 1, failed: 0 });
    const asked = new URL(site.state.requests[0].url, site.origin);
    assert.equal(asked.pathname, "/opml");
    assert.equal(asked.searchParams.get("catname"), "Tech");
    const t1 = await server.storage.blogs.getByFeedUrl("https://t1.example/feed.xml");
    assert.equal(t1?.source, "feedland");
    assert.equal(t1?.category, "Tech", "the chosen FeedLand category wins over the outline's first one");
    assert.deepEqual(
      t1?.origins.map((origin) => origin.id),
      [feedland.id],
    );

    assert.deepEqual(await listFeedlandCategories(site.origin, "dave w", options), ["Tech", "News", "Life"]);
    assert.deepEqual(await listFeedlandCategories(site.origin, "someone", options), ["One", "Two"]);
    await assert.rejects(listFeedlandCategories(site.origin, "  ", options), /screen name/);
  });

  it("FeedLand: the OPML address defaults to feedland.com and encodes the screen name and category", () => {
    assert.equal(feedlandOpmlUrl({ screenName: " davewiner " }), "https://feedland.com/opml?screenname=davewiner");
    assert.equal(
      feedlandOpmlUrl({ instance: "https://feeds.example/land//", screenName: "a&b", category: "News & Views" }),
      "https://feeds.example/land/opml?screenname=a%26b&catname=News+%26+Views",
    );
    assert.throws(() => feedlandOpmlUrl({ instance: "ftp://x.example", screenName: "a" }), /not a valid address/);
  });
});

describe("refreshSources: Microsub mirroring (MongoDB adapter on the mingo stand-in, not a real MongoDB server)", () => {
  let server: TestServer;
  before(async () => (server = await startTestServer("mongo-standin")));
  after(() => server.close());

  it("mirrors channels and feeds as blogs, soft-deletes feeds that left, and is skipped without Microsub", async () => {
    const db = server.fakeDb!;
    const channels = db.collection("microsub_channels");
    const feeds = db.collection("microsub_feeds");
    const friends = new ObjectId();
    const news = new ObjectId();
    await channels.insertMany([
      { _id: news, uid: "news", name: "News", order: 1 },
      { _id: friends, uid: "friends", name: "Friends", order: 0 },
    ]);
    const aliceId = new ObjectId();
    const bobId = new ObjectId();
    await feeds.insertMany([
      {
        _id: aliceId,
        channelId: friends,
        url: "https://alice.example/feed.xml",
        title: "Alice",
        photo: "https://alice.example/me.jpg",
        status: "active",
      },
      { _id: bobId, channelId: friends, url: "https://bob.example/feed", title: null, photo: null, status: "active" },
      {
        _id: new ObjectId(),
        channelId: news,
        url: "https://paper.example/rss",
        title: "Paper",
        photo: null,
        status: "active",
      },
    ]);
    const all = await server.storage.sources.create({
      type: "microsub",
      name: "Microsub",
      settings: { categoryPrefix: "MS: " },
    });

    // Without the Microsub collections the source is left alone.
    assert.deepEqual(await refreshSources(server.storage, options, detectMicrosub(server.collections)), {
      total: 0,
      success: 0,
      failed: 0,
    });
    assert.equal((await server.storage.sources.get(all.id))?.status, "pending");

    server.collections.set("microsub_channels", channels);
    server.collections.set("microsub_feeds", feeds);
    const microsub = detectMicrosub(server.collections);
    assert.ok(microsub);
    assert.deepEqual(await refreshSources(server.storage, options, microsub), { total: 1, success: 1, failed: 0 });
    assert.deepEqual((await server.storage.sources.get(all.id))?.lastImport, {
      added: 3,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      missing: 0,
    });
    const alice = await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml");
    assert.ok(alice);
    assert.equal(alice.source, "microsub");
    assert.equal(alice.category, "MS: Friends");
    assert.equal(alice.microsubChannelName, "Friends");
    assert.equal(alice.microsubFeedId, aliceId.toHexString());
    assert.equal(alice.microsubChannelId, friends.toHexString());
    assert.equal(alice.skipItemFetch, true);
    assert.equal(alice.photo, "https://alice.example/me.jpg");
    assert.equal((await server.storage.blogs.getByFeedUrl("https://bob.example/feed"))?.title, "bob.example");
    const listed = (await (await server.get(`${server.api}/blogs?category=${encodeURIComponent("MS: News")}`)).json())
      .items;
    assert.deepEqual(
      listed.map((blog: { title: string; microsubChannel: string }) => [blog.title, blog.microsubChannel]),
      [["Paper", "News"]],
    );

    // Bob is unfollowed in Microsub: his blog is soft-deleted on the next refresh.
    await feeds.deleteOne({ _id: bobId });
    await refreshSources(server.storage, options, microsub);
    assert.equal((await server.storage.sources.get(all.id))?.lastImport?.missing, 1);
    assert.equal((await server.storage.blogs.getByFeedUrl("https://bob.example/feed"))?.status, "deleted");
    assert.equal(alice.status, (await server.storage.blogs.get(alice.id))?.status);

    // One channel only; a channel that no longer exists is an error that touches nothing.
    await server.storage.sources.update(all.id, { enabled: false });
    const one = await server.storage.sources.create({
      type: "microsub",
      name: "News only",
      settings: { channelUid: "news" },
    });
    await refreshSources(server.storage, options, microsub);
    assert.deepEqual((await server.storage.sources.get(one.id))?.lastImport, {
      added: 0,
      updated: 1,
      unchanged: 0,
      skipped: 0,
      missing: 0,
    });
    await server.storage.sources.update(one.id, { settings: { channelUid: "gone" } });
    assert.deepEqual(await refreshSources(server.storage, options, microsub), { total: 1, success: 0, failed: 1 });
    const failed = await server.storage.sources.get(one.id);
    assert.equal(failed?.status, "error");
    assert.equal(failed?.lastError, 'Microsub channel "gone" not found');
    assert.notEqual((await server.storage.blogs.getByFeedUrl("https://paper.example/rss"))?.status, "deleted");
  });
});
