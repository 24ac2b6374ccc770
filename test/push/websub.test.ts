/**
 * WebSub end to end over loopback: a blog's feed announces a local hub
 * (test/support/local-push.ts), a sync discovers it, the plugin subscribes,
 * the hub verifies intent at the plugin's public callback and distributes
 * signed content, which shows on /api/items. Forged notifications change
 * nothing. Run on SQLite and on the MongoDB adapter over the mingo stand-in.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { startLocalHub, type LocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import type { Blog, PushSubscription } from "../../lib/storage/types.js";
import { logIn } from "../admin/admin-session.js";

interface Entry {
  id: string;
  title: string;
  published: Date;
}

function atom(entries: Entry[], links: { hub?: string; self?: string } = {}): string {
  const head = [
    links.hub ? `<link rel="hub" href="${links.hub}"/>` : "",
    links.self ? `<link rel="self" href="${links.self}"/>` : "",
  ].join("");
  const body = entries
    .map(
      (entry) =>
        `<entry><id>urn:test:${entry.id}</id><title>${entry.title}</title><link href="https://blog.example/${entry.id}"/>` +
        `<updated>${entry.published.toISOString()}</updated><content type="text">Text of ${entry.id}</content></entry>`,
    )
    .join("");
  return (
    `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Pushed blog</title><id>urn:test:feed</id>` +
    `<updated>2026-01-01T00:00:00Z</updated>${head}${body}</feed>`
  );
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

async function itemTitles(server: TestServer): Promise<string[]> {
  const response = await server.get(`${server.api}/items?limit=100`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { items: Array<{ title: string }> };
  return body.items.map((item) => item.title);
}

/** Lets the plugin offer the test server's own loopback address to hubs. */
function usePublicUrl(server: TestServer): void {
  (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
}

for (const backend of httpBackends()) {
  describe(`WebSub subscriber on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let feeds: FeedServer;
    let hub: LocalHub;
    let feedUrl: string;
    let blog: Blog;
    let entries: Entry[];
    let subscription: PushSubscription;

    before(async () => {
      trustLoopbackCertificate();
      hub = await startLocalHub({ leaseSeconds: 7200, tls: true });
      feeds = await startFeedServer();
      feedUrl = `${feeds.origins[0]}/feed.xml`;
      entries = [{ id: "first", title: "First post", published: minutesAgo(60) }];
      feeds.route("/feed.xml", (_request, response) => {
        response
          .writeHead(200, { "content-type": "application/atom+xml", link: `<${hub.url}>; rel="hub"` })
          .end(atom(entries, { self: feedUrl }));
      });
      server = await startTestServer(backend);
      usePublicUrl(server);
      blog = (await server.storage.blogs.upsertFromSource({ feedUrl, title: "Pushed blog", source: "manual" })).blog;
      const verified = hub.verified(feedUrl);
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
      const event = await verified;
      assert.equal(event.outcome, "confirmed", "the plugin echoed the hub's challenge");
      [subscription] = await server.storage.push.listByBlog(blog.id);
    });
    after(async () => {
      await server.close();
      await feeds.close();
      await hub.close();
    });

    it("subscribes with an unguessable callback under the public routes, a secret and a lease, and records the verified lease", async () => {
      const request = hub.requests.find((fields) => fields["hub.mode"] === "subscribe");
      assert.ok(request);
      assert.equal(request["hub.topic"], feedUrl);
      assert.match(
        request["hub.callback"],
        new RegExp(`^${server.baseUrl}${server.plugin.mountPath}/push/websub/[A-Za-z0-9_-]{32}$`),
      );
      assert.ok(request["hub.secret"].length >= 32);
      assert.ok(Number(request["hub.lease_seconds"]) > 0);
      assert.equal(subscription.state, "active");
      assert.equal(subscription.leaseSeconds, 7200, "the lease the hub granted");
      assert.ok(
        subscription.expiresAt && Math.abs(subscription.expiresAt.getTime() - (Date.now() + 7200_000)) < 60_000,
      );
      assert.equal(subscription.hub, hub.url);
      assert.deepEqual([...(await server.plugin.context.push.pushedBlogIds())], [blog.id]);
    });

    it("says on the blog's admin page which hub pushes it and until when", async () => {
      const admin = await logIn(server);
      const page = await admin.page(`${server.plugin.mountPath}/blogs/${blog.id}`);
      assert.equal(page.status, 200);
      const section = /<section[^>]*id="push"[\s\S]*?<\/section>/.exec(page.html)?.[0] ?? page.html;
      assert.match(section, /Pushed by the WebSub hub https:\/\/127\.0\.0\.1:\d+\/, lease until/);
    });

    it("stores the posts of a signed notification at once, without fetching the feed", async () => {
      const fetchesBefore = feeds.hits("/feed.xml");
      assert.deepEqual(await itemTitles(server), ["First post"]);
      for (const [n, algorithm] of (["sha1", "sha256", "sha384", "sha512"] as const).entries()) {
        const pushed = [
          { id: `pushed-${algorithm}`, title: `Pushed with ${algorithm}`, published: minutesAgo(5 - n) },
          ...entries,
        ];
        assert.deepEqual(await hub.publish(feedUrl, atom(pushed), { algorithm }), [200]);
      }
      const titles = await itemTitles(server);
      for (const algorithm of ["sha1", "sha256", "sha384", "sha512"])
        assert.ok(titles.includes(`Pushed with ${algorithm}`), algorithm);
      assert.equal(feeds.hits("/feed.xml"), fetchesBefore, "the pushed body was enough");
    });

    it("answers forged notifications 2xx and changes nothing", async () => {
      const before = await itemTitles(server);
      const forged = atom([{ id: "forged", title: "Forged post", published: minutesAgo(1) }]);
      assert.deepEqual(await hub.publish(feedUrl, forged, { signature: "wrong" }), [202]);
      assert.deepEqual(await hub.publish(feedUrl, forged, { signature: "none" }), [202]);
      // A signature of the right form but over other bytes.
      const callback = hub.requests.find((fields) => fields["hub.mode"] === "subscribe")!["hub.callback"];
      const signature = `sha256=${createHmac("sha256", subscription.secret!).update("something else").digest("hex")}`;
      const response = await fetch(callback, {
        method: "POST",
        headers: { "content-type": "application/atom+xml", "x-hub-signature": signature },
        body: forged,
      });
      assert.equal(response.status, 202);
      await server.plugin.context.push.idle();
      assert.deepEqual(await itemTitles(server), before);
    });

    it("answers 410 to notifications at unknown callbacks, and 404 to verifications it did not ask for", async () => {
      const base = `${server.baseUrl}${server.plugin.mountPath}/push/websub`;
      const unknown = await fetch(`${base}/${"x".repeat(32)}`, {
        method: "POST",
        headers: { "content-type": "application/atom+xml" },
        body: atom([]),
      });
      assert.equal(unknown.status, 410, "the hub may stop");
      assert.equal((await fetch(`${base}/not-a-token`, { method: "POST", body: "x" })).status, 410);
      assert.equal((await fetch(`${base}/not-a-token`)).status, 404);
      const callback = new URL(`${base}/${subscription.callbackToken}`);
      const ask = async (params: Record<string, string>) => {
        const url = new URL(callback);
        for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
        const reply = await fetch(url);
        return { status: reply.status, text: await reply.text() };
      };
      assert.equal(
        (
          await ask({
            "hub.mode": "subscribe",
            "hub.topic": `${feedUrl}?other`,
            "hub.challenge": "c1",
            "hub.lease_seconds": "60",
          })
        ).status,
        404,
        "another topic",
      );
      assert.equal(
        (await ask({ "hub.mode": "unsubscribe", "hub.topic": feedUrl, "hub.challenge": "c2" })).status,
        404,
        "an unsubscription never asked for",
      );
      assert.equal((await ask({ "hub.mode": "subscribe", "hub.topic": feedUrl })).status, 404, "no challenge");
      assert.equal((await ask({ "hub.mode": "anything", "hub.topic": feedUrl, "hub.challenge": "c3" })).status, 404);
      // The subscription is verified and no renewal is pending: a hub confirming it again (with or without a lease) is not agreed to.
      assert.equal(
        (
          await ask({
            "hub.mode": "subscribe",
            "hub.topic": feedUrl,
            "hub.challenge": "c4",
            "hub.lease_seconds": "315360000",
          })
        ).status,
        404,
        "a re-confirmation never asked for",
      );
      assert.equal(
        (await ask({ "hub.mode": "subscribe", "hub.topic": feedUrl, "hub.challenge": "c5" })).status,
        404,
        "no lease",
      );
      const unknownToken = new URL(`${base}/${"y".repeat(32)}`);
      unknownToken.searchParams.set("hub.mode", "subscribe");
      unknownToken.searchParams.set("hub.topic", feedUrl);
      unknownToken.searchParams.set("hub.challenge", "c6");
      unknownToken.searchParams.set("hub.lease_seconds", "60");
      assert.equal((await fetch(unknownToken)).status, 404);
      const after = await server.storage.push.get(subscription.id);
      const lease = (record: PushSubscription | null) => [
        record?.state,
        record?.leaseSeconds,
        record?.expiresAt?.getTime(),
        record?.verifiedAt?.getTime(),
      ];
      assert.deepEqual(lease(after), lease(subscription), "none of it changed the subscription or its lease");
    });

    it("fetches the feed when a notification is empty", async () => {
      entries = [{ id: "thin", title: "Announced by a thin ping", published: minutesAgo(2) }, ...entries];
      const fetchesBefore = feeds.hits("/feed.xml");
      assert.deepEqual(await hub.publish(feedUrl, ""), [202]);
      await server.plugin.context.push.idle();
      assert.equal(feeds.hits("/feed.xml"), fetchesBefore + 1);
      assert.ok((await itemTitles(server)).includes("Announced by a thin ping"));
    });

    it("stores a signed JSON Feed sent as application/json: the callback reads its own bytes (no server parser takes them first)", async () => {
      const fetchesBefore = feeds.hits("/feed.xml");
      const jsonFeed = {
        version: "https://jsonfeed.org/version/1.1",
        title: "Pushed blog",
        items: [
          {
            id: "json-pushed",
            title: "Pushed as JSON Feed",
            url: "https://blog.example/json",
            date_published: minutesAgo(3).toISOString(),
          },
        ],
      };
      assert.deepEqual(
        await hub.publish(feedUrl, JSON.stringify(jsonFeed), { contentType: "application/json" }),
        [200],
      );
      assert.ok((await itemTitles(server)).includes("Pushed as JSON Feed"));
      assert.equal(feeds.hits("/feed.xml"), fetchesBefore, "stored without a fetch");
    });

    it("makes unsigned form and JSON posts fetch nothing", async () => {
      const fetchesBefore = feeds.hits("/feed.xml");
      const callback = hub.requests.find((fields) => fields["hub.mode"] === "subscribe")!["hub.callback"];
      for (let n = 0; n < 20; n++) {
        const json = n % 2 === 0;
        const response = await fetch(callback, {
          method: "POST",
          headers: { "content-type": json ? "application/json" : "application/x-www-form-urlencoded" },
          body: json ? JSON.stringify({ items: [{ id: `forged-${n}` }] }) : `hub.mode=publish&n=${n}`,
        });
        assert.equal(response.status, 202);
        await server.plugin.context.push.idle();
      }
      assert.equal(feeds.hits("/feed.xml"), fetchesBefore);
    });

    it("refuses a notification body larger than maxBodySize", async () => {
      const huge = Buffer.alloc(server.plugin.settings.maxBodySize + 1, 0x20);
      assert.deepEqual(await hub.publish(feedUrl, huge), [413]);
    });

    it("unsubscribes when the owner deletes the blog, and the hub's verification of it is answered", async () => {
      const unsubscribed = hub.verified(feedUrl, "unsubscribe");
      const admin = await logIn(server);
      assert.equal((await admin.post(`${server.plugin.mountPath}/blogs/${blog.id}/delete`, {})).status, 303);
      await server.plugin.context.push.idle();
      const event = await unsubscribed;
      assert.equal(event.outcome, "confirmed");
      assert.deepEqual(await server.storage.push.listByBlog(blog.id), []);
      assert.equal(hub.subscriptions.size, 0);
    });
  });
}
