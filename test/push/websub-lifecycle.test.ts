/**
 * WebSub beyond the happy path, over loopback with the local hub: a restart
 * keeps subscriptions (SQLite, the mingo stand-in on bson 6 and 7), hub
 * redirects (307, 308), a topic that moved (301), a hub's `denied`, the
 * safety poll that stops trusting a push, hidden blogs let go, and no
 * subscription without a public address.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { BSON } from "mongodb";
import BlogrollEndpoint from "../../index.js";
import { createStandaloneApp } from "../../lib/standalone/app.js";
import { COLLECTION_NAMES } from "../../lib/storage/open.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { BSON6, createFakeDb } from "../support/fake-mongo.js";
import { startLocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { ADMIN_TOKEN, memoryLogger, startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { logIn } from "../admin/admin-session.js";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

function atomFeed(entries: Array<{ id: string; published: Date }>, head = ""): string {
  return (
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:feed</id><updated>2026-01-01T00:00:00Z</updated>${head}` +
    entries
      .map(
        (e) =>
          `<entry><id>urn:${e.id}</id><title>${e.id}</title><updated>${e.published.toISOString()}</updated></entry>`,
      )
      .join("") +
    `</feed>`
  );
}

async function titles(baseUrl: string, plugin: BlogrollEndpoint): Promise<string[]> {
  const body = (await (await fetch(`${baseUrl}${plugin.mountPath}/api/items?limit=100`)).json()) as {
    items: Array<{ title: string }>;
  };
  return body.items.map((item) => item.title);
}

/** A feed server whose /feed.xml announces `hub` in its Link header and serves `entries`. */
async function pushingFeed(
  hubUrl: () => string,
  entries: () => Array<{ id: string; published: Date }>,
): Promise<{ feeds: FeedServer; url: string }> {
  const feeds = await startFeedServer();
  const url = `${feeds.origins[0]}/feed.xml`;
  feeds.route("/feed.xml", (_request, response) => {
    response
      .writeHead(200, { "content-type": "application/atom+xml", link: `<${hubUrl()}>; rel="hub"` })
      .end(atomFeed(entries()));
  });
  return { feeds, url };
}

async function subscribedServer(
  feedUrl: string,
  options: Record<string, unknown> = {},
): Promise<{ server: TestServer; blog: Blog }> {
  const server = await startTestServer("sqlite", options);
  (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
  const blog = (await server.storage.blogs.upsertFromSource({ feedUrl, title: "Blog", source: "manual" })).blog;
  await server.plugin.context.scheduler.syncNow();
  await server.plugin.context.push.idle();
  return { server, blog };
}

describe("a restart keeps subscriptions and their callbacks", () => {
  const backends: Array<[string, () => { options: Record<string, unknown>; collections: Map<string, unknown> }]> = [];
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-push-restart-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  backends.push([
    "SQLite file",
    () => ({ options: { databasePath: path.join(folder, "blogroll.db"), mongodbUrl: null }, collections: new Map() }),
  ]);
  for (const [name, bson] of [
    ["bson 6", BSON6],
    ["bson 7", BSON],
  ] as const) {
    backends.push([
      `MongoDB adapter on the mingo stand-in (${name}; not a real MongoDB server)`,
      () => {
        const db = createFakeDb({ bson });
        const collections = new Map<string, unknown>();
        for (const collection of Object.values(COLLECTION_NAMES))
          collections.set(collection, db.collection(collection));
        return { options: {}, collections };
      },
    ]);
  }

  for (const [name, makeData] of backends) {
    it(`on ${name}`, async () => {
      trustLoopbackCertificate();
      const hub = await startLocalHub({ tls: true });
      let entries = [{ id: "before-restart", published: minutesAgo(30) }];
      const { feeds, url: feedUrl } = await pushingFeed(
        () => hub.url,
        () => entries,
      );
      const data = makeData();
      let port = 0;
      const start = async () => {
        const plugin = new BlogrollEndpoint(
          { scheduler: false, allowPrivateNetworks: true, ...data.options },
          memoryLogger([]),
        );
        const { app } = await createStandaloneApp(plugin, { adminToken: ADMIN_TOKEN, collections: data.collections });
        const server: Server = await new Promise((resolve) => {
          const listening = app.listen(port, "127.0.0.1", () => resolve(listening));
        });
        port = (server.address() as AddressInfo).port;
        const baseUrl = `http://127.0.0.1:${port}`;
        (plugin.settings as { publicUrl: string | null }).publicUrl = baseUrl;
        const storage: Storage = await plugin.getStorage();
        const stop = async () => {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
          await plugin.destroy();
        };
        return { plugin, storage, baseUrl, stop };
      };
      try {
        const first = await start();
        const blog = (await first.storage.blogs.upsertFromSource({ feedUrl, title: "Blog", source: "manual" })).blog;
        const verified = hub.verified(feedUrl);
        await first.plugin.context.scheduler.syncNow();
        await first.plugin.context.push.idle();
        assert.equal((await verified).outcome, "confirmed");
        const [before] = await first.storage.push.listByBlog(blog.id);
        await first.stop();

        const second = await start();
        try {
          assert.deepEqual(await second.storage.push.listByBlog(blog.id), [before], "the subscription came back whole");
          entries = [{ id: "after-restart", published: minutesAgo(1) }, ...entries];
          assert.deepEqual(await hub.publish(feedUrl, atomFeed(entries)), [200], "the old callback still answers");
          assert.ok((await titles(second.baseUrl, second.plugin)).includes("after-restart"));
        } finally {
          await second.stop();
        }
      } finally {
        await feeds.close();
        await hub.close();
      }
    });
  }
});

describe("redirects, refusals and letting go", () => {
  it("follows a hub's 307 and 308 with the same request, and keeps the new address after a 308", async () => {
    for (const status of [307, 308] as const) {
      const hub = await startLocalHub({ redirect: { status, to: "/moved" } });
      const { feeds, url: feedUrl } = await pushingFeed(
        () => hub.url,
        () => [{ id: "a", published: minutesAgo(5) }],
      );
      const verified = hub.verified(feedUrl);
      const { server, blog } = await subscribedServer(feedUrl);
      try {
        assert.equal((await verified).outcome, "confirmed", `${status}`);
        assert.equal(hub.requests.length, 1, "the request reached the hub at its new address");
        const [subscription] = await server.storage.push.listByBlog(blog.id);
        assert.equal(subscription.state, "active");
        assert.equal(subscription.hub, status === 308 ? `${hub.url}moved` : hub.url);
      } finally {
        await server.close();
        await feeds.close();
        await hub.close();
      }
    }
  });

  it("subscribes to the URL a topic moved to (301) when the feed names no self", async () => {
    const hub = await startLocalHub();
    const { feeds, url: feedUrl } = await pushingFeed(
      () => hub.url,
      () => [{ id: "a", published: minutesAgo(5) }],
    );
    const oldUrl = `${feeds.origins[0]}/old.xml`;
    feeds.route("/old.xml", (_request, response) => void response.writeHead(301, { location: "/feed.xml" }).end());
    const verified = hub.verified(feedUrl);
    const { server, blog } = await subscribedServer(oldUrl);
    try {
      assert.equal((await verified).topic, feedUrl);
      assert.equal((await server.storage.push.listByBlog(blog.id))[0].topic, feedUrl);
    } finally {
      await server.close();
      await feeds.close();
      await hub.close();
    }
  });

  it("records a hub's denial, and the blog stays polled", async () => {
    const hub = await startLocalHub({ deny: () => true });
    const { feeds, url: feedUrl } = await pushingFeed(
      () => hub.url,
      () => [{ id: "a", published: minutesAgo(5) }],
    );
    const denied = hub.verified(feedUrl, "denied");
    const { server, blog } = await subscribedServer(feedUrl);
    try {
      assert.equal((await denied).status, 200);
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      assert.equal(subscription.state, "denied");
      assert.match(subscription.lastError ?? "", /not on this hub/);
      assert.equal((await server.plugin.context.push.pushedBlogIds()).size, 0);
    } finally {
      await server.close();
      await feeds.close();
      await hub.close();
    }
  });

  it("stops trusting a push when a poll finds posts it did not bring", async () => {
    const hub = await startLocalHub();
    let entries = [{ id: "a", published: minutesAgo(50) }];
    const { feeds, url: feedUrl } = await pushingFeed(
      () => hub.url,
      () => entries,
    );
    const verified = hub.verified(feedUrl);
    const { server, blog } = await subscribedServer(feedUrl);
    try {
      await verified;
      assert.deepEqual([...(await server.plugin.context.push.pushedBlogIds())], [blog.id]);
      entries = [{ id: "never-pushed", published: minutesAgo(1) }, ...entries];
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      assert.ok(subscription.distrustedUntil && subscription.distrustedUntil > new Date());
      assert.equal((await server.plugin.context.push.pushedBlogIds()).size, 0, "polled on the schedule again");

      // When the spell is over the hub is asked again, on the same callback, and the push is trusted once it verifies.
      const again = hub.verified(feedUrl);
      await server.storage.push.put({ ...subscription, distrustedUntil: new Date(Date.now() - 1000) });
      await server.plugin.context.push.maintain();
      assert.equal((await again).outcome, "confirmed");
      const [renewed] = await server.storage.push.listByBlog(blog.id);
      assert.equal(renewed.callbackToken, subscription.callbackToken);
      assert.equal(renewed.distrustedUntil, null);
      assert.deepEqual([...(await server.plugin.context.push.pushedBlogIds())], [blog.id]);
    } finally {
      await server.close();
      await feeds.close();
      await hub.close();
    }
  });

  it("unsubscribes a blog the owner hides", async () => {
    const hub = await startLocalHub();
    const { feeds, url: feedUrl } = await pushingFeed(
      () => hub.url,
      () => [{ id: "a", published: minutesAgo(5) }],
    );
    const verified = hub.verified(feedUrl);
    const { server, blog } = await subscribedServer(feedUrl);
    try {
      await verified;
      const gone = hub.verified(feedUrl, "unsubscribe");
      await server.storage.blogs.edit(blog.id, { hidden: true });
      await server.plugin.context.push.maintain();
      assert.equal((await gone).outcome, "confirmed");
      assert.deepEqual(await server.storage.push.listByBlog(blog.id), []);
    } finally {
      await server.close();
      await feeds.close();
      await hub.close();
    }
  });

  it("makes no subscription without a public address, or with push off", async () => {
    for (const options of [
      {},
      { push: false, publicUrl: "https://blogroll.example" },
      { allowPrivateNetworks: false },
    ]) {
      const hub = await startLocalHub();
      const { feeds, url: feedUrl } = await pushingFeed(
        () => hub.url,
        () => [{ id: "a", published: minutesAgo(5) }],
      );
      const server = await startTestServer("sqlite", options);
      try {
        if ("allowPrivateNetworks" in options)
          (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
        const blog = (await server.storage.blogs.upsertFromSource({ feedUrl, title: "Blog", source: "manual" })).blog;
        await server.plugin.context.scheduler.syncNow();
        await server.plugin.context.push.idle();
        assert.equal(hub.requests.length, 0, JSON.stringify(options));
        assert.deepEqual(await server.storage.push.listByBlog(blog.id), []);
        assert.equal(server.plugin.context.push.address().ok, false);
        const page = await (await logIn(server)).page(`${server.plugin.mountPath}/blogs/${blog.id}`);
        const why =
          "allowPrivateNetworks" in options
            ? /loopback or private network/
            : "push" in options
              ? /Push is turned off/
              : /no public address/;
        assert.match(page.html, why, "the admin says why");
      } finally {
        await server.close();
        await feeds.close();
        await hub.close();
      }
    }
  });
});
