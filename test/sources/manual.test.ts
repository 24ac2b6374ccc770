import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { feedParser } from "../../lib/sync/parse-pool.js";
import { HostLimiter } from "../../lib/http/host-limiter.js";
import { resolveOptions } from "../../lib/options.js";
import { addManualBlog } from "../../lib/sources/manual.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { syncBlog } from "../../lib/sync/fetch-blog.js";

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed title</title><link>https://blog.example/</link><description>d</description>
<item><title>One</title><link>https://blog.example/1</link><guid>1</guid></item></channel></rss>`;
const PAGES: Record<string, [string, string]> = {
  "/": [
    "text/html",
    `<!doctype html><html><head><title>Home page</title><link rel="alternate" type="application/rss+xml" href="/posts.rss"></head><body></body></html>`,
  ],
  "/posts.rss": ["application/rss+xml", RSS],
  "/linked": [
    "text/html",
    `<!doctype html><html><head><title>Linked home</title><link rel="alternate" type="application/rss+xml" title="Subscribe via RSS" href="/linked.rss"></head><body></body></html>`,
  ],
  "/linked.rss": ["application/rss+xml", RSS.replace("<title>Feed title</title>", "<title>Linked feed</title>")],
  "/empty": ["text/html", "<!doctype html><html><head><title>Empty</title></head><body></body></html>"],
};

describe("addManualBlog (SQLite in memory, fixture site on loopback)", () => {
  let storage: Storage;
  let server: Server;
  let origin: string;
  const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });

  before(async () => {
    storage = createSqliteStorage(":memory:");
    await storage.init();
    server = createServer((request, response) => {
      const page = PAGES[request.url ?? "/"];
      if (!page) return void response.writeHead(404).end();
      response.writeHead(200, { "Content-Type": page[0] }).end(page[1]);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await storage.close();
  });

  it("adds a blog from a site address through discovery, with the owner's title and category", async () => {
    const result = await addManualBlog(storage, options, { url: `${origin}/`, title: " Mine ", category: "Friends" });
    assert.ok(result.ok);
    assert.equal(result.outcome, "added");
    assert.equal(result.feedUrl, `${origin}/posts.rss`);
    assert.equal(result.blog.title, "Mine");
    assert.equal(result.blog.category, "Friends");
    assert.equal(result.blog.source, "manual");
    assert.equal(result.blog.feedType, "rss");
    assert.equal(result.blog.siteUrl, `${origin}/`);
  });

  it("takes a feed address as it is, but never brings back a blog the owner deleted", async () => {
    const direct = await addManualBlog(storage, options, { url: `${origin}/posts.rss` });
    assert.ok(direct.ok);
    assert.notEqual(direct.outcome, "added", "the same feed is not added twice");
    assert.equal(direct.blog.feedUrl, `${origin}/posts.rss`);
    await storage.blogs.softDelete(direct.blog.id);
    const again = await addManualBlog(storage, options, { url: `${origin}/posts.rss` });
    assert.ok(again.ok);
    assert.equal(again.outcome, "skipped-deleted", "an owner-deleted blog is not brought back silently");
  });

  it("fails with a message when the address has no feed or cannot be fetched", async () => {
    assert.deepEqual(await addManualBlog(storage, options, { url: `${origin}/empty` }), {
      ok: false,
      error: "No feed found at this address",
      noFeed: true,
    });
    assert.deepEqual(await addManualBlog(storage, options, { url: `${origin}/missing` }), {
      ok: false,
      error: "Not found (HTTP 404)",
    });
    assert.equal(await storage.blogs.getByFeedUrl(`${origin}/empty`), null);
  });

  const fetchOnce = (blog: Blog) =>
    syncBlog(storage, blog, options, new AbortController().signal, {
      limiter: new HostLimiter(2),
      parse: feedParser(false),
      now: () => new Date(),
    });

  it("names a blog added with no title after its feed, never after the page's <link> title", async () => {
    const added = await addManualBlog(storage, options, { url: `${origin}/linked` });
    assert.ok(added.ok);
    assert.equal(added.outcome, "added");
    assert.notEqual(added.blog.title, "Subscribe via RSS");
    assert.notEqual(added.blog.title, "Linked home");
    await fetchOnce(added.blog);
    assert.equal(
      (await storage.blogs.get(added.blog.id))?.title,
      "Linked feed",
      "the feed's own title after the first fetch",
    );
    await storage.blogs.purge(added.blog.id);
  });

  it("re-adding a blog already there changes nothing it shows: what the owner typed differently is proposed, not applied", async () => {
    const first = await addManualBlog(storage, options, { url: `${origin}/linked`, category: "Friends" });
    assert.ok(first.ok);
    await fetchOnce(first.blog);
    await storage.blogs.edit(first.blog.id, { notes: "kept" });
    const before = await storage.blogs.get(first.blog.id);
    const again = await addManualBlog(storage, options, { url: `${origin}/linked`, title: "", category: "" });
    assert.ok(again.ok);
    assert.equal(again.outcome, "unchanged");
    const afterwards = await storage.blogs.get(first.blog.id);
    assert.equal(afterwards?.title, "Linked feed", "not the <link> title");
    assert.equal(afterwards?.category, "Friends", "the category is not cleared");
    assert.deepEqual({ ...afterwards, updatedAt: null }, { ...before, updatedAt: null });
    const typed = await addManualBlog(storage, options, {
      url: `${origin}/linked.rss`,
      title: "Linked feed",
      category: "Family",
    });
    assert.ok(typed.ok);
    assert.deepEqual(
      { ...(await storage.blogs.get(first.blog.id)), updatedAt: null },
      { ...before, updatedAt: null },
      "nothing changed silently",
    );
    assert.equal(typed.outcome, "unchanged");
    assert.deepEqual(again.proposed, {});
    assert.deepEqual(
      typed.proposed,
      { category: { from: "Friends", to: "Family" } },
      "only what differs, for the owner to confirm",
    );
    await storage.blogs.purge(first.blog.id);
  });

  it("keeps a title and category typed when adding, like an edit, across later syncs", async () => {
    const added = await addManualBlog(storage, options, {
      url: `${origin}/linked`,
      title: "My name for it",
      category: "Work",
    });
    assert.ok(added.ok);
    assert.deepEqual([...added.blog.ownerEdited].sort(), ["category", "title"]);
    await fetchOnce(added.blog);
    const synced = await storage.blogs.get(added.blog.id);
    assert.equal(synced?.title, "My name for it");
    assert.equal(synced?.category, "Work");
    await storage.blogs.purge(added.blog.id);
  });
});
