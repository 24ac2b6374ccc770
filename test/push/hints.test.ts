/**
 * A notification is a hint within a per-blog budget, never a command (over
 * loopback, a local rssCloud server and an https WebSub hub): a flood of
 * verified notices costs the blog's server the budget's burst, then one
 * fetch per interval at most, folded into the blog's next fetch; never a
 * request inside its Retry-After, none for a gone blog; the budget outlives
 * a restart; a fetch a notice brought forward keeps the push trusted.
 */
import assert from "node:assert/strict";
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import BlogrollEndpoint from "../../index.js";
import { HINT_BURST, HINT_INTERVAL } from "../../lib/schedule/hints.js";
import { createStandaloneApp } from "../../lib/standalone/app.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { startLocalCloud, startLocalHub, type LocalCloud, type LocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { ADMIN_TOKEN, memoryLogger, startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { HOUR } from "../../lib/time/durations.js";

const NOTICES = 25;

interface Post {
  id: string;
  published: Date;
}

/** An RSS feed with a <cloud>, a day's <ttl>, and the caching headers a feed that wants few requests sends. */
function cloudyRss(cloud: LocalCloud, posts: Post[]): string {
  return (
    `<?xml version="1.0"?><rss version="2.0"><channel><title>Cloudy</title><link>https://cloudy.example/</link><description>d</description><ttl>1440</ttl>` +
    `<cloud domain="${cloud.domain}" port="${cloud.port}" path="${cloud.path}" registerProcedure="" protocol="http-post"/>` +
    posts
      .map(
        (post) =>
          `<item><guid>${post.id}</guid><title>${post.id}</title><pubDate>${post.published.toUTCString()}</pubDate></item>`,
      )
      .join("") +
    `</channel></rss>`
  );
}

/** Serves `body()` at `path` with max-age=86400 and an ETag, answering 304 when the client has it. */
function serveCached(feeds: FeedServer, path: string, body: () => string): void {
  feeds.route(path, (request, response) => {
    const text = body();
    const etag = `"${Buffer.from(text).length}-${text.length % 97}"`;
    if (request.headers["if-none-match"] === etag) return void response.writeHead(304, { etag }).end();
    response
      .writeHead(200, { "content-type": "application/rss+xml", "cache-control": "max-age=86400", etag })
      .end(text);
  });
}

describe("push notifications are hints within a per-blog budget", () => {
  let server: TestServer;
  let feeds: FeedServer;
  let cloud: LocalCloud;
  let hub: LocalHub;

  before(async () => {
    trustLoopbackCertificate();
    cloud = await startLocalCloud();
    hub = await startLocalHub({ tls: true });
    feeds = await startFeedServer(["127.0.0.1", "127.0.0.2"]);
    server = await startTestServer("sqlite");
    (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
  });
  after(async () => {
    await server.close();
    await feeds.close();
    await cloud.close();
    await hub.close();
  });

  /** A blog at `path` pushed by the cloud server, subscribed and fetched once. */
  async function cloudBlog(path: string, posts: Post[]): Promise<{ blog: Blog; feedUrl: string }> {
    const feedUrl = `${feeds.origins[0]}${path}`;
    serveCached(feeds, path, () => cloudyRss(cloud, posts));
    const { blog } = await server.storage.blogs.upsertFromSource({ feedUrl, title: path, source: "manual" });
    await server.plugin.context.scheduler.syncNow();
    await server.plugin.context.push.idle();
    assert.ok(
      cloud.registrations.some((registration) => registration.feedUrl === feedUrl),
      "registered with the cloud server",
    );
    return { blog, feedUrl };
  }

  /** A blog at `path` pushed by the cloud server, subscribed and fetched once; after `change()` its feed answers with `later`. */
  async function changingBlog(
    path: string,
    later: (response: ServerResponse) => void,
  ): Promise<{ blog: Blog; feedUrl: string; change(): void }> {
    let changed = false;
    const feedUrl = `${feeds.origins[0]}${path}`;
    const posts = [{ id: "old", published: new Date(Date.now() - HOUR) }];
    feeds.route(path, (_request, response) => {
      if (changed) return later(response);
      response.writeHead(200, { "content-type": "application/rss+xml" }).end(cloudyRss(cloud, posts));
    });
    const { blog } = await server.storage.blogs.upsertFromSource({ feedUrl, title: path, source: "manual" });
    await server.plugin.context.scheduler.syncNow();
    await server.plugin.context.push.idle();
    return { blog, feedUrl, change: () => void (changed = true) };
  }

  /** Sends `count` notices, each after the work the previous one caused has ended (the flood that once fetched every time). */
  async function notify(feedUrl: string, count: number): Promise<void> {
    for (let n = 0; n < count; n++) {
      assert.deepEqual(await cloud.notify(feedUrl), [200]);
      await server.plugin.context.push.idle();
    }
  }

  it(`${NOTICES} notices to a feed that asks for a day between fetches cost the burst, and bring the next fetch forward by one interval`, async () => {
    const { blog, feedUrl } = await cloudBlog("/flooded.xml", [{ id: "old", published: new Date(Date.now() - HOUR) }]);
    const before = feeds.hits("/flooded.xml");
    const startedAt = Date.now();
    await notify(feedUrl, NOTICES);
    assert.equal(feeds.hits("/flooded.xml") - before, HINT_BURST, "the burst, then nothing more at once");
    const stored = (await server.storage.blogs.get(blog.id)) as Blog;
    assert.ok(
      stored.nextFetchAt && stored.nextFetchAt.getTime() <= Date.now() + HINT_INTERVAL,
      "the rest folded into one fetch an interval from now",
    );
    assert.ok(stored.nextFetchAt.getTime() >= startedAt + HINT_INTERVAL - 60_000, "not sooner than the budget allows");
    assert.ok(stored.hintBudgetAt && stored.hintBudgetAt.getTime() > Date.now(), "the budget is spent");
  });

  it("never fetches inside a server's Retry-After", async () => {
    const { blog, feedUrl, change } = await changingBlog(
      "/resting.xml",
      (response) => void response.writeHead(503, { "retry-after": "86400" }).end("resting"),
    );
    change();
    await notify(feedUrl, 1);
    const told = (await server.storage.blogs.get(blog.id)) as Blog;
    assert.ok(told.waitUntil && told.waitUntil.getTime() > Date.now() + 12 * HOUR, "the server asked us to wait a day");
    const before = feeds.hits("/resting.xml");
    await notify(feedUrl, 50);
    assert.equal(feeds.hits("/resting.xml"), before, "no request while it asks us to wait");
  });

  it("costs another host no more than the budget when the feed redirects there", async () => {
    const { feedUrl, change } = await changingBlog(
      "/wandering.xml",
      (response) => void response.writeHead(302, { location: `${feeds.origins[1]}/elsewhere.xml` }).end(),
    );
    feeds.route(
      "/elsewhere.xml",
      (_request, response) =>
        void response.writeHead(200, { "content-type": "application/rss+xml" }).end(cloudyRss(cloud, [])),
    );
    change();
    await notify(feedUrl, 50);
    assert.ok(feeds.hits("/elsewhere.xml") <= HINT_BURST, `${feeds.hits("/elsewhere.xml")} requests to the other host`);
  });

  it("answers a gone blog's callback 410 and fetches nothing", async () => {
    const { blog, feedUrl, change } = await changingBlog(
      "/ending.xml",
      (response) => void response.writeHead(410).end("gone"),
    );
    change();
    await server.plugin.context.scheduler.syncNow();
    assert.equal((await server.storage.blogs.get(blog.id))?.status, "gone");
    const before = feeds.hits("/ending.xml");
    const registration = cloud.registrations.find((entry) => entry.feedUrl === feedUrl)!;
    const response = await fetch(registration.notifyUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `url=${encodeURIComponent(feedUrl)}`,
    });
    assert.equal(response.status, 410);
    await server.plugin.context.push.idle();
    assert.equal(feeds.hits("/ending.xml"), before);
  });

  it("keeps a push trusted when the fetch a notice brought forward finds the announced posts", async () => {
    const posts = [{ id: "old", published: new Date(Date.now() - HOUR) }];
    const { blog, feedUrl } = await cloudBlog("/announced.xml", posts);
    await notify(feedUrl, HINT_BURST + 1);
    posts.unshift({ id: "announced", published: new Date() });
    // The fetch the last notice brought forward (run here by "Sync now") finds the post that notice announced.
    await server.plugin.context.scheduler.syncNow();
    await server.plugin.context.push.idle();
    const [subscription] = await server.storage.push.listByBlog(blog.id);
    assert.equal(subscription.distrustedUntil, null, "not taken for a post the push missed");
    assert.ok((await server.plugin.context.push.pushedBlogIds()).has(blog.id));
  });

  it(`${NOTICES} signed empty WebSub pings cost the burst too`, async () => {
    const path = "/thin.atom";
    const feedUrl = `${feeds.origins[0]}${path}`;
    const atom =
      `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Thin</title><id>urn:thin</id><updated>2026-01-01T00:00:00Z</updated>` +
      `<link rel="hub" href="${hub.url}"/><link rel="self" href="${feedUrl}"/><entry><id>urn:e</id><title>e</title><updated>2026-01-01T00:00:00Z</updated></entry></feed>`;
    feeds.route(
      path,
      (_request, response) => void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom),
    );
    const verified = hub.verified(feedUrl);
    await server.storage.blogs.upsertFromSource({ feedUrl, title: "Thin", source: "manual" });
    await server.plugin.context.scheduler.syncNow();
    await server.plugin.context.push.idle();
    assert.equal((await verified).outcome, "confirmed");
    const before = feeds.hits(path);
    for (let n = 0; n < NOTICES; n++) {
      assert.deepEqual(await hub.publish(feedUrl, ""), [202]);
      await server.plugin.context.push.idle();
    }
    assert.equal(feeds.hits(path) - before, HINT_BURST);
  });
});

describe("the hint budget outlives a restart", () => {
  it("a restarted server does not fetch again for a blog whose budget is spent", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "blogroll-hints-restart-"));
    const cloud = await startLocalCloud();
    const feeds = await startFeedServer();
    const feedUrl = `${feeds.origins[0]}/feed.xml`;
    serveCached(feeds, "/feed.xml", () => cloudyRss(cloud, [{ id: "old", published: new Date(Date.now() - HOUR) }]));
    let port = 0;
    const start = async () => {
      const plugin = new BlogrollEndpoint(
        {
          scheduler: false,
          allowPrivateNetworks: true,
          mongodbUrl: null,
          databasePath: path.join(folder, "blogroll.db"),
        },
        memoryLogger([]),
      );
      const { app } = await createStandaloneApp(plugin, { adminToken: ADMIN_TOKEN });
      const listening: Server = await new Promise((resolve) => {
        const server = app.listen(port, "127.0.0.1", () => resolve(server));
      });
      port = (listening.address() as AddressInfo).port;
      (plugin.settings as { publicUrl: string | null }).publicUrl = `http://127.0.0.1:${port}`;
      const storage: Storage = await plugin.getStorage();
      const stop = async () => {
        listening.closeAllConnections();
        await new Promise((resolve) => listening.close(resolve));
        await plugin.destroy();
      };
      return { plugin, storage, stop };
    };
    try {
      const first = await start();
      await first.storage.blogs.upsertFromSource({ feedUrl, title: "Blog", source: "manual" });
      await first.plugin.context.scheduler.syncNow();
      await first.plugin.context.push.idle();
      for (let n = 0; n < HINT_BURST; n++) {
        assert.deepEqual(await cloud.notify(feedUrl), [200]);
        await first.plugin.context.push.idle();
      }
      await first.stop();
      const hitsBefore = feeds.hits("/feed.xml");
      const second = await start();
      try {
        assert.deepEqual(await cloud.notify(feedUrl), [200]);
        await second.plugin.context.push.idle();
        assert.equal(feeds.hits("/feed.xml"), hitsBefore, "the spent budget came back with the blog");
      } finally {
        await second.stop();
      }
    } finally {
      await feeds.close();
      await cloud.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
