import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { after, before, describe, it } from "node:test";
import express from "express";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { addBlog } from "../support/seed.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";

const rss = (
  guids: string[],
) => `<?xml version="1.0"?><rss version="2.0"><channel><title>Fixture</title><link>https://fixture.example/</link>
${guids.map((guid, n) => `<item><guid>${guid}</guid><title>${guid}</title><link>https://fixture.example/${guid}</link><pubDate>${new Date(Date.now() - (n + 1) * 3_600_000).toUTCString()}</pubDate></item>`).join("")}
</channel></rss>`;

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("public response headers follow the options", () => {
  it("cors names the allowed origin (with Vary: Origin) and cacheMaxAge the max-age", async () => {
    const server = await startTestServer("sqlite", { cors: "https://site.example", cacheMaxAge: 60 });
    try {
      for (const path of ["/blogs", "/items", "/categories", "/status", "/opml"]) {
        const response = await server.get(`${server.api}${path}`);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("access-control-allow-origin"), "https://site.example", path);
        assert.match(response.headers.get("vary") ?? "", /Origin/, path);
        assert.equal(response.headers.get("cache-control"), "public, max-age=60", path);
        assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/, path);
      }
      const error = await server.get(`${server.api}/blogs/nope`);
      assert.equal(error.status, 400);
      assert.equal(
        error.headers.get("access-control-allow-origin"),
        "https://site.example",
        "widgets can read error bodies too",
      );
      assert.equal(error.headers.get("cache-control"), null, "errors are not marked cacheable");
    } finally {
      await server.close();
    }
  });

  it('cors "" sends no CORS header at all', async () => {
    const server = await startTestServer("sqlite", { cors: "" });
    try {
      const response = await server.get(`${server.api}/blogs`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), null);
      assert.equal(response.headers.get("cache-control"), "public, max-age=300");
    } finally {
      await server.close();
    }
  });

  it("the ETag follows the body: a change answers 200 with a new ETag, then 304 again", async () => {
    const server = await startTestServer("sqlite");
    try {
      const first = await server.get(`${server.api}/blogs`);
      const etag = first.headers.get("etag")!;
      assert.equal((await server.get(`${server.api}/blogs`, { headers: { "If-None-Match": etag } })).status, 304);
      await addBlog(server.storage, { title: "New" });
      const changed = await server.get(`${server.api}/blogs`, { headers: { "If-None-Match": etag } });
      assert.equal(changed.status, 200);
      const next = changed.headers.get("etag")!;
      assert.notEqual(next, etag);
      const again = await server.get(`${server.api}/blogs`, { headers: { "If-None-Match": next } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), next);
      assert.equal(again.headers.get("cache-control"), "public, max-age=300");
    } finally {
      await server.close();
    }
  });
});

for (const backend of httpBackends()) {
  describe(`public API inside a host whose query parser builds objects (qs "extended"), on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let host: Server;
    let base: string;
    before(async () => {
      server = await startTestServer(backend);
      await addBlog(server.storage, { title: "Tech blog", category: "Tech", source: "opml" });
      await addBlog(server.storage, { title: "Life blog", category: "Life", source: "manual" });
      // Indiekit (or any Express host) may parse ?a[b]=c into objects: the plugin's routes must still see only text.
      const app = express();
      app.set("query parser", "extended");
      app.use(server.plugin.mountPath, server.plugin.routesPublic);
      host = await new Promise((resolve) => {
        const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
      });
      base = `http://127.0.0.1:${(host.address() as AddressInfo).port}${server.plugin.mountPath}/api`;
    });
    after(async () => {
      host.closeAllConnections();
      await new Promise((resolve) => host.close(resolve));
      await server.close();
    });

    it("an operator-shaped parameter is refused, never passed to the database", async () => {
      const cases: Array<[string, string]> = [
        ["/blogs?category[$ne]=x", "Invalid category"],
        ["/blogs?category[$regex]=.*", "Invalid category"],
        ["/blogs?source[$gt]=", "Invalid source"],
        ["/blogs?category[]=Tech", "Invalid category"],
        ["/blogs?sort[$ne]=x", "Invalid sort"],
        ["/blogs?limit[$gt]=0", "Invalid limit"],
        ["/blogs?offset[0]=1", "Invalid offset"],
        ["/items?category[$ne]=x", "Invalid category"],
        ["/items?blog[$ne]=x", "Invalid blog"],
        ["/items?limit[]=1", "Invalid limit"],
      ];
      for (const [path, error] of cases) {
        const response = await fetch(`${base}${path}`);
        assert.equal(response.status, 400, path);
        assert.deepEqual(await response.json(), { error }, path);
      }
      const plain = await (await fetch(`${base}/blogs?category=Tech`)).json();
      assert.deepEqual(
        plain.items.map((blog: { title: string }) => blog.title),
        ["Tech blog"],
      );
    });
  });
}

describe("GET /api/status while and after a sync (SQLite, over HTTP)", () => {
  let server: TestServer;
  let feeds: FixtureServer;
  before(async () => {
    feeds = await startFixtureServer();
    feeds.route("/fast.xml", respond.text(rss(["a1", "a2"]), { headers: { "content-type": "application/rss+xml" } }));
    feeds.route(
      "/slow.xml",
      respond.delayed(800, respond.text(rss(["b1"]), { headers: { "content-type": "application/rss+xml" } })),
    );
    // The scheduler runs, with its first sync far away: the test starts one itself.
    server = await startTestServer("sqlite", { concurrency: 1, scheduler: true, initialSyncDelay: 600_000 });
    await addBlog(server.storage, { title: "Fast", feedUrl: `${feeds.url}/fast.xml` });
    await addBlog(server.storage, { title: "Slow", feedUrl: `${feeds.url}/slow.xml` });
  });
  after(async () => {
    await server.close();
    await feeds.close();
  });

  const status = async () => {
    const response = await server.get(`${server.api}/status`);
    assert.equal(response.status, 200);
    return response.json();
  };

  it("shows isRunning and progress during the run, then lastSync, lastSyncStats and nextSync", async () => {
    const idle = await status();
    assert.equal(idle.isRunning, false);
    assert.equal(idle.lastSync, null);
    assert.ok(Date.parse(idle.nextSync) > Date.now() + 500_000, "the first sync is planned");
    const run = server.plugin.context.scheduler.syncNow();
    await until(async () => {
      const body = await status();
      return body.isRunning === true && body.progress !== null && body.progress.total === 2;
    }, 5000);
    const running = await status();
    assert.equal(running.status, "ok");
    assert.deepEqual(Object.keys(running.progress).sort(), ["done", "total"]);
    assert.ok(running.progress.done >= 0 && running.progress.done <= 2);
    await run;
    const done = await status();
    assert.equal(done.isRunning, false);
    assert.equal(done.progress, null);
    assert.ok(!Number.isNaN(Date.parse(done.lastSync)));
    assert.ok(
      Date.parse(done.nextSync) > Date.now() + 50_000,
      "the next look for due blogs is an interval (a minute) later",
    );
    const stats = done.lastSyncStats;
    assert.equal(stats.lastFullSync, done.lastSync);
    assert.equal(typeof stats.duration, "number");
    assert.deepEqual(Object.keys(stats.sources).sort(), ["failed", "success", "total"]);
    assert.deepEqual(
      { total: stats.blogs.total, success: stats.blogs.success, failed: stats.blogs.failed },
      { total: 2, success: 2, failed: 0 },
    );
    assert.deepEqual(stats.items, { added: 3, deleted: 0 });
  });

  it("counts agree with /api/items and /api/blogs right after a sync, an added or removed blog and cleared items", async () => {
    const counts = async () => {
      const body = await status();
      const items = await (await server.get(`${server.api}/items?limit=200`)).json();
      const blogs = await (await server.get(`${server.api}/blogs`)).json();
      return {
        blogs: body.blogs.count,
        items: body.items.count,
        listedItems: items.items.length,
        listedBlogs: blogs.total,
        isRunning: body.isRunning,
      };
    };
    const storage = server.storage;
    await storage.items.deleteAll();
    assert.deepEqual(await counts(), { blogs: 2, items: 0, listedItems: 0, listedBlogs: 2, isRunning: false });

    // The counts were just computed (and are cached): a sync ends with items the other endpoints list at once.
    feeds.route("/slow.xml", respond.text(rss(["b1", "b2"]), { headers: { "content-type": "application/rss+xml" } }));
    await server.plugin.context.scheduler.syncNow();
    assert.deepEqual(await counts(), { blogs: 2, items: 4, listedItems: 4, listedBlogs: 2, isRunning: false });

    const added = await addBlog(storage, { title: "Added", feedUrl: `${feeds.url}/added.xml` });
    assert.equal((await counts()).blogs, 3);
    await storage.blogs.softDelete(added.id);
    assert.equal((await counts()).blogs, 2);
    await storage.items.deleteAll();
    assert.deepEqual(await counts(), { blogs: 2, items: 0, listedItems: 0, listedBlogs: 2, isRunning: false });
  });
});

describe("GET /api/status while a sync finishes its site icons (SQLite, over HTTP)", () => {
  let server: TestServer;
  let feeds: FixtureServer;
  let releaseHome!: () => void;
  const homeHeld = new Promise<void>((resolve) => (releaseHome = resolve));
  before(async () => {
    feeds = await startFixtureServer();
    const feed = rss(["c1"]).replace("https://fixture.example/", `${feeds.url}/home/`);
    feeds.route("/iconless.xml", respond.text(feed, { headers: { "content-type": "application/rss+xml" } }));
    // The home page answers only once the test has seen the run in its extras phase.
    feeds.route("/home/", async (request, response) => {
      await homeHeld;
      respond.text(`<head><link rel="icon" href="/me.png"></head>`, { headers: { "content-type": "text/html" } })(
        request,
        response,
      );
    });
    server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: 600_000 });
    await addBlog(server.storage, { title: "Iconless", feedUrl: `${feeds.url}/iconless.xml` });
  });
  after(async () => {
    releaseHome();
    await server.close();
    await feeds.close();
  });

  it("says when the posts were all stored while the icons are still being looked up, then both ends in lastSyncStats", async () => {
    const run = server.plugin.context.scheduler.syncNow();
    let extrasPhase: Record<string, unknown> | null = null;
    await until(async () => {
      const body = await (await server.get(`${server.api}/status`)).json();
      if (body.isRunning && body.contentDoneAt) extrasPhase = body;
      return extrasPhase !== null;
    }, 20_000);
    releaseHome();
    assert.ok(extrasPhase);
    const { contentDoneAt, progress } = extrasPhase as { contentDoneAt: string; progress: unknown };
    assert.ok(!Number.isNaN(Date.parse(contentDoneAt)));
    assert.deepEqual(progress, { done: 1, total: 1 });
    assert.equal(await server.storage.items.count(), 1, "the posts are in before the icon");
    await run;
    const done = await (await server.get(`${server.api}/status`)).json();
    assert.equal(done.contentDoneAt, null);
    assert.equal(done.lastSyncStats.contentDoneAt, contentDoneAt);
    assert.ok(Date.parse(done.lastSyncStats.extrasDoneAt) >= Date.parse(contentDoneAt));
    assert.deepEqual(done.lastSyncStats.icons, { requests: 1, updated: 1 });
    const [blog] = (await (await server.get(`${server.api}/blogs`)).json()).items;
    assert.equal(blog.photo, `${feeds.url}/me.png`);
  });
});
