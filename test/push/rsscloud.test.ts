/**
 * rssCloud over loopback: an RSS feed's <cloud> names a local cloud server
 * (test/support/local-push.ts); the plugin registers with pleaseNotify
 * (http-post, domain, port, path, url1), answers the server's challenge,
 * fetches the feed when notified, ignores names of other feeds, and
 * registers again after 24 hours.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { startLocalCloud, type LocalCloud } from "../support/local-push.js";
import type { Blog } from "../../lib/storage/types.js";
import { HOUR } from "../../lib/time/durations.js";

function rssWithCloud(cloud: LocalCloud, items: Array<{ guid: string; published: Date }>): string {
  return (
    `<?xml version="1.0"?><rss version="2.0"><channel><title>Cloudy</title><link>https://cloudy.example/</link><description>d</description>` +
    `<cloud domain="${cloud.domain}" port="${cloud.port}" path="${cloud.path}" registerProcedure="" protocol="http-post"/>` +
    items
      .map(
        (item) =>
          `<item><guid>${item.guid}</guid><title>${item.guid}</title><pubDate>${item.published.toUTCString()}</pubDate></item>`,
      )
      .join("") +
    `</channel></rss>`
  );
}

async function titles(server: TestServer): Promise<string[]> {
  const body = (await (await server.get(`${server.api}/items?limit=100`)).json()) as {
    items: Array<{ title: string }>;
  };
  return body.items.map((item) => item.title);
}

for (const backend of httpBackends()) {
  describe(`rssCloud client on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let feeds: FeedServer;
    let cloud: LocalCloud;
    let feedUrl: string;
    let blog: Blog;
    let items: Array<{ guid: string; published: Date }>;

    before(async () => {
      cloud = await startLocalCloud();
      feeds = await startFeedServer();
      feedUrl = `${feeds.origins[0]}/rss.xml`;
      items = [{ guid: "one", published: new Date(Date.now() - HOUR) }];
      feeds.route("/rss.xml", (_request, response) => {
        response.writeHead(200, { "content-type": "application/rss+xml" }).end(rssWithCloud(cloud, items));
      });
      server = await startTestServer(backend);
      (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
      blog = (await server.storage.blogs.upsertFromSource({ feedUrl, title: "Cloudy", source: "manual" })).blog;
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
    });
    after(async () => {
      await server.close();
      await feeds.close();
      await cloud.close();
    });

    it("registers with pleaseNotify over http-post, answering the server's challenge", async () => {
      assert.equal(cloud.requests.length, 1);
      const { fields, success } = cloud.requests[0];
      assert.equal(success, true, "the challenge was echoed");
      assert.equal(fields.protocol, "http-post");
      assert.equal(fields.notifyProcedure, "");
      assert.equal(fields.domain, "127.0.0.1");
      assert.equal(fields.port, new URL(server.baseUrl).port);
      assert.match(fields.path, new RegExp(`^${server.plugin.mountPath}/push/rsscloud/[A-Za-z0-9_-]{32}$`));
      assert.equal(fields.url1, feedUrl);
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      assert.equal(subscription.kind, "rsscloud");
      assert.equal(subscription.state, "active");
      const lifetime = (subscription.expiresAt?.getTime() ?? 0) - Date.now();
      assert.ok(lifetime > 24.9 * HOUR && lifetime <= 25 * HOUR, "registrations last 25 hours");
      assert.deepEqual([...(await server.plugin.context.push.pushedBlogIds())], [blog.id]);
    });

    it("fetches the feed at once when notified", async () => {
      items = [{ guid: "two", published: new Date(Date.now() - 60_000) }, ...items];
      const before = feeds.hits("/rss.xml");
      assert.deepEqual(await cloud.notify(feedUrl), [200]);
      await server.plugin.context.push.idle();
      assert.equal(feeds.hits("/rss.xml"), before + 1);
      assert.ok((await titles(server)).includes("two"));
    });

    it("ignores a notification naming another feed; 410 to unknown callbacks; 404 to challenges outside a registration of ours", async () => {
      const before = feeds.hits("/rss.xml");
      assert.deepEqual(await cloud.notify(feedUrl, "https://elsewhere.example/feed.xml"), [200]);
      await server.plugin.context.push.idle();
      assert.equal(feeds.hits("/rss.xml"), before, "not fetched");
      const base = `${server.baseUrl}${server.plugin.mountPath}/push/rsscloud`;
      const unknown = await fetch(`${base}/${"z".repeat(32)}`, {
        method: "POST",
        body: new URLSearchParams({ url: feedUrl }),
      });
      assert.equal(unknown.status, 410);
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      const check = new URL(`${base}/${subscription.callbackToken}`);
      check.searchParams.set("url", "https://elsewhere.example/feed.xml");
      check.searchParams.set("challenge", "abc");
      assert.equal((await fetch(check)).status, 404);
      // The registration was confirmed while it was made (the first test); a challenge now is nobody's request of ours.
      check.searchParams.set("url", feedUrl);
      assert.equal((await fetch(check)).status, 404);
    });

    it("takes notices only from the cloud server it registered with", async () => {
      const before = feeds.hits("/rss.xml");
      const { notifyUrl } = cloud.registrations[0];
      // The same callback and feed, sent from another address than the cloud server's.
      const status = await new Promise<number>((resolve, reject) => {
        const body = new URLSearchParams({ url: feedUrl }).toString();
        const forged = httpRequest(
          notifyUrl,
          {
            method: "POST",
            localAddress: "127.0.0.2",
            headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        forged.on("error", reject);
        forged.end(body);
      });
      assert.equal(status, 403);
      await server.plugin.context.push.idle();
      assert.equal(feeds.hits("/rss.xml"), before, "nothing fetched");
    });

    it("registers again after 24 hours", async () => {
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      const dayAgo = new Date(Date.now() - 24 * HOUR - 60_000);
      await server.storage.push.put({ ...subscription, verifiedAt: dayAgo, requestedAt: dayAgo });
      await server.plugin.context.push.maintain();
      assert.equal(cloud.requests.length, 2);
      assert.equal(cloud.requests[1].success, true);
      const [renewed] = await server.storage.push.listByBlog(blog.id);
      assert.equal(renewed.callbackToken, subscription.callbackToken, "the same callback");
      assert.ok((renewed.verifiedAt?.getTime() ?? 0) > Date.now() - 60_000);
    });
  });
}
