import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { resolveOptions } from "../../lib/options.js";
import { addManualBlog } from "../../lib/sources/manual.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed title</title><link>https://blog.example/</link><description>d</description>
<item><title>One</title><link>https://blog.example/1</link><guid>1</guid></item></channel></rss>`;
const PAGES: Record<string, [string, string]> = {
  "/": ["text/html", `<!doctype html><html><head><title>Home page</title><link rel="alternate" type="application/rss+xml" href="/posts.rss"></head><body></body></html>`],
  "/posts.rss": ["application/rss+xml", RSS],
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
    assert.deepEqual(await addManualBlog(storage, options, { url: `${origin}/empty` }), { ok: false, error: "No feed found at this address", noFeed: true });
    assert.deepEqual(await addManualBlog(storage, options, { url: `${origin}/missing` }), { ok: false, error: "Not found (HTTP 404)" });
    assert.equal(await storage.blogs.getByFeedUrl(`${origin}/empty`), null);
  });
});
