/**
 * Verification and leases as the WebSub Recommendation says, on time (over
 * loopback with the local hub): the secret only to https hubs; a challenge
 * echoed only within a pending request's window; leases renewed before they
 * end by a timer, not a tick; a renewal that fails becomes `failed` with its
 * back-off when the lease runs out, and the page never shows a past lease;
 * a blog dropped by its source or hidden in bulk is unsubscribed within
 * seconds; ended callbacks answer 410.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { logIn } from "../admin/admin-session.js";
import type { Blog, PushSubscription } from "../../lib/storage/types.js";
import { dueAt, RETRY_FAILED_MS } from "../../lib/push/timing.js";
import { startLocalHub, type LocalHub, type LocalHubOptions } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

function atom(hubUrl: string, feedUrl: string, entries: Array<{ id: string; published: Date }>): string {
  return (
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:feed</id><updated>2026-01-01T00:00:00Z</updated>` +
    `<link rel="hub" href="${hubUrl}"/><link rel="self" href="${feedUrl}"/>` +
    entries
      .map(
        (entry) =>
          `<entry><id>urn:${entry.id}</id><title>${entry.id}</title><updated>${entry.published.toISOString()}</updated></entry>`,
      )
      .join("") +
    `</feed>`
  );
}

interface Setup {
  server: TestServer;
  hub: LocalHub;
  feeds: FeedServer;
  feedUrl: string;
  blog: Blog;
  entries: Array<{ id: string; published: Date }>;
  subscription: () => Promise<PushSubscription>;
  close(): Promise<void>;
}

/** A test server (timers on, as in production) following one blog whose feed names `hub`, subscribed and verified. */
async function pushedBlog(
  hubOptions: LocalHubOptions = {},
  serverOptions: Record<string, unknown> = {},
): Promise<Setup> {
  trustLoopbackCertificate();
  const hub = await startLocalHub(hubOptions);
  const feeds = await startFeedServer();
  const feedUrl = `${feeds.origins[0]}/feed.atom`;
  const entries = [{ id: "first", published: minutesAgo(60) }];
  feeds.route(
    "/feed.atom",
    (_request, response) =>
      void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom(hub.url, feedUrl, entries)),
  );
  const server = await startTestServer("sqlite", serverOptions);
  (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
  // The subscriptions' timer runs as it does in production (the test server has the sync scheduler off).
  server.plugin.context.push.start();
  const verified = hub.verified(feedUrl);
  const { blog } = await server.storage.blogs.upsertFromSource({ feedUrl, title: "Blog", source: "manual" });
  await server.plugin.context.scheduler.syncNow();
  await server.plugin.context.push.idle();
  assert.equal((await verified).outcome, "confirmed");
  return {
    server,
    hub,
    feeds,
    feedUrl,
    blog,
    entries,
    subscription: async () => (await server.storage.push.listByBlog(blog.id))[0],
    close: async () => {
      await server.close();
      await feeds.close();
      await hub.close();
    },
  };
}

/** Resolves once `check` holds, polling storage; the test's own timeout bounds the wait. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe("WebSub verification and leases", () => {
  const open: Setup[] = [];
  after(async () => {
    for (const setup of open) await setup.close();
  });
  const setUp = async (hubOptions: LocalHubOptions = {}, serverOptions: Record<string, unknown> = {}) => {
    const setup = await pushedBlog(hubOptions, serverOptions);
    open.push(setup);
    return setup;
  };

  it("sends hub.secret only to an https hub; an http hub's pings are thin hints, never stored", async () => {
    const plain = await setUp();
    const request = plain.hub.requests.find((fields) => fields["hub.mode"] === "subscribe")!;
    assert.equal(request["hub.secret"], undefined, "no secret over plain http");
    assert.equal((await plain.subscription()).secret, null);
    plain.entries.unshift({ id: "fetched", published: minutesAgo(1) });
    const before = plain.feeds.hits("/feed.atom");
    const forged = atom(plain.hub.url, plain.feedUrl, [{ id: "from-the-body", published: minutesAgo(1) }]);
    assert.deepEqual(await plain.hub.publish(plain.feedUrl, forged), [202]);
    await plain.server.plugin.context.push.idle();
    assert.equal(plain.feeds.hits("/feed.atom"), before + 1, "the feed itself was read");
    const titles = (
      (await (await plain.server.get(`${plain.server.api}/items`)).json()) as { items: Array<{ title: string }> }
    ).items.map((item) => item.title);
    assert.ok(titles.includes("fetched") && !titles.includes("from-the-body"));

    const secure = await setUp({ tls: true });
    const secureRequest = secure.hub.requests.find((fields) => fields["hub.mode"] === "subscribe")!;
    assert.ok(secureRequest["hub.secret"].length >= 32, "a secret for the https hub");
  });

  it("echoes a challenge only within its request's window", async () => {
    const setup = await setUp({ tls: true });
    // Only the callback is under test: the keeper (which would ask the hub again for the overdue request
    // written below, whenever a pass of its came between that write and the ask) is stopped, its work done.
    await setup.server.plugin.context.push.stop();
    const subscription = await setup.subscription();
    const ask = async () => {
      const url = new URL(
        `${setup.server.baseUrl}${setup.server.plugin.mountPath}/push/websub/${subscription.callbackToken}`,
      );
      for (const [key, value] of Object.entries({
        "hub.mode": "subscribe",
        "hub.topic": setup.feedUrl,
        "hub.challenge": "late",
        "hub.lease_seconds": "600",
      }))
        url.searchParams.set(key, value);
      return (await fetch(url)).status;
    };
    // A renewal asked two hours ago that the hub never verified: too late now.
    await setup.server.storage.push.put({ ...subscription, requestedAt: minutesAgo(120), verifiedAt: minutesAgo(180) });
    assert.equal(await ask(), 404);
    await setup.server.storage.push.put({ ...subscription, requestedAt: minutesAgo(1), verifiedAt: minutesAgo(180) });
    assert.equal(await ask(), 200, "within the hour it is agreed to");
    const renewed = await setup.subscription();
    assert.equal(renewed.leaseSeconds, 600);
    assert.equal(await ask(), 404, "and only once: it is no longer pending");
  });

  it(
    "renews a 20-second lease before it ends, with a timer rather than a tick, and the hub keeps delivering",
    { timeout: 120_000 },
    async () => {
      const setup = await setUp({ tls: true, leaseSeconds: 20 });
      const [first] = setup.hub.events.filter((event) => event.mode === "subscribe");
      const renewal = await setup.hub.verified(setup.feedUrl);
      assert.equal(renewal.outcome, "confirmed");
      assert.ok(renewal.at < first.at + 20_000, "renewed before the lease ended");
      await eventually(async () => Date.now() > first.at + 21_000);
      setup.entries.unshift({ id: "after-the-first-lease", published: new Date() });
      assert.deepEqual(
        await setup.hub.publish(setup.feedUrl, atom(setup.hub.url, setup.feedUrl, setup.entries)),
        [200],
        "still subscribed at the hub",
      );
    },
  );

  it(
    "gives a renewal the hub refuses up when the lease ends: failed, retried after its back-off, and the page shows no past lease",
    { timeout: 120_000 },
    async () => {
      let requests = 0;
      const setup = await setUp({ tls: true, leaseSeconds: 4, answer: () => (++requests === 1 ? 202 : 500) });
      await eventually(async () => (await setup.subscription()).state === "failed");
      const failed = await setup.subscription();
      assert.match(failed.lastError ?? "", /HTTP 500/);
      assert.equal(
        dueAt(failed).getTime(),
        failed.updatedAt.getTime() + RETRY_FAILED_MS,
        "asked again after the back-off, not at every tick",
      );
      assert.equal(requests, 2, "the first request and one renewal");
      const admin = await logIn(setup.server);
      const page = (await admin.page(`${setup.server.plugin.mountPath}/blogs/${setup.blog.id}`)).html;
      assert.match(page, /Subscribing at https:\/\/127\.0\.0\.1:\d+\/ failed/);
      assert.doesNotMatch(page, /lease until/);
      // While a renewal waits for the hub past the lease's end, the page says the lease ended.
      await setup.server.storage.push.put({
        ...failed,
        state: "active",
        expiresAt: minutesAgo(1),
        requestedAt: minutesAgo(2),
        verifiedAt: minutesAgo(10),
      });
      const waiting = (await admin.page(`${setup.server.plugin.mountPath}/blogs/${setup.blog.id}`)).html;
      assert.match(waiting, /The lease at https:\/\/127\.0\.0\.1:\d+\/ ended on/);
      assert.doesNotMatch(waiting, /lease until/);
    },
  );

  it(
    "unsubscribes within seconds a blog its source drops, and answers 410 at its callback once it ended",
    { timeout: 60_000 },
    async () => {
      trustLoopbackCertificate();
      const hub = await startLocalHub({ tls: true });
      const feeds = await startFeedServer();
      const server = await startTestServer("sqlite");
      open.push({
        close: async () => {
          await server.close();
          await feeds.close();
          await hub.close();
        },
      } as Setup);
      (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
      server.plugin.context.push.start();
      const feedUrl = `${feeds.origins[0]}/listed.atom`;
      feeds.route(
        "/listed.atom",
        (_request, response) =>
          void response
            .writeHead(200, { "content-type": "application/atom+xml" })
            .end(atom(hub.url, feedUrl, [{ id: "a", published: minutesAgo(5) }])),
      );
      const opml = (outlines: string) =>
        `<?xml version="1.0"?><opml version="2.0"><head><title>List</title></head><body>${outlines}</body></opml>`;
      const source = await server.storage.sources.create({
        type: "opml_file",
        name: "List",
        settings: { xml: opml(`<outline type="rss" text="Listed" xmlUrl="${feedUrl}"/>`) },
      });
      const verified = hub.verified(feedUrl);
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
      assert.equal((await verified).outcome, "confirmed");
      const blog = (await server.storage.blogs.getByFeedUrl(feedUrl))!;
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      const callback = `${server.baseUrl}${server.plugin.mountPath}/push/websub/${subscription.callbackToken}`;

      const unsubscribed = hub.verified(feedUrl, "unsubscribe");
      // The list now names another blog only (an empty list is taken for a broken one and changes nothing).
      await server.storage.sources.update(source.id, {
        settings: { xml: opml(`<outline type="rss" text="Other" xmlUrl="${feeds.origins[0]}/other.xml"/>`) },
      });
      await server.plugin.context.scheduler.syncNow();
      assert.equal(
        (await unsubscribed).outcome,
        "confirmed",
        "the hub was told without waiting for a renewal or a tick",
      );
      assert.equal(hub.subscriptions.size, 0);
      assert.equal(
        (
          await fetch(callback, {
            method: "POST",
            headers: { "content-type": "application/atom+xml" },
            body: "<feed/>",
          })
        ).status,
        410,
      );
    },
  );

  it("unsubscribes within seconds the blogs the owner hides in bulk", { timeout: 60_000 }, async () => {
    const setup = await setUp({ tls: true });
    const unsubscribed = setup.hub.verified(setup.feedUrl, "unsubscribe");
    const admin = await logIn(setup.server);
    const response = await admin.post(`${setup.server.plugin.mountPath}/blogs/bulk`, {
      action: "hide",
      ids: setup.blog.id,
    });
    assert.equal(response.status, 303);
    assert.equal((await unsubscribed).outcome, "confirmed");
  });
});
