/**
 * Each push subscription is a sender of its own (over loopback, an https
 * WebSub hub): one body at a time, a read deadline, a rate of fat pings;
 * one sender's slow or heavy pings never delay another's; what remote
 * parties send reaches the log aggregated per sender and printable.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { request as httpRequest, type ClientRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { HINT_BURST, HINT_INTERVAL } from "../../lib/schedule/hints.js";
import { FAT_PINGS_PER_MINUTE } from "../../lib/push/sender-limits.js";
import type { PushSubscription } from "../../lib/storage/types.js";
import { startLocalHub, type LocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";

interface Entry {
  id: string;
  published: Date;
}

function atom(feedUrl: string, hubUrl: string, entries: Entry[]): string {
  return (
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:${feedUrl}</id><updated>2026-01-01T00:00:00Z</updated>` +
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

/** A POST that sends its headers and a first byte of a longer body, then nothing more; resolves with its status once answered. */
function trickle(callback: string, secret: string): { request: ClientRequest; status: Promise<number> } {
  const body = Buffer.alloc(1000, 0x20);
  const request = httpRequest(callback, {
    method: "POST",
    headers: {
      "content-type": "application/atom+xml",
      "content-length": String(body.length),
      "x-hub-signature": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
  });
  const status = new Promise<number>((resolve, reject) => {
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
  request.write(body.subarray(0, 1));
  return { request, status };
}

describe("each subscription is bounded as a sender of its own", () => {
  let server: TestServer;
  let feeds: FeedServer;
  let hub: LocalHub;
  const blogs: Record<
    "slow" | "busy",
    { feedUrl: string; entries: Entry[]; subscription: PushSubscription; callback: string }
  > = {} as never;

  before(async () => {
    trustLoopbackCertificate();
    hub = await startLocalHub({ tls: true });
    feeds = await startFeedServer();
    // The read deadline is fetchTimeout: short here, so a trickling body is cut within the test.
    server = await startTestServer("sqlite", { fetchTimeout: 3000 });
    (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
    for (const name of ["slow", "busy"] as const) {
      const feedUrl = `${feeds.origins[0]}/${name}.atom`;
      const entries: Entry[] = [{ id: `${name}-old`, published: new Date(Date.now() - 3_600_000) }];
      feeds.route(
        `/${name}.atom`,
        (_request, response) =>
          void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom(feedUrl, hub.url, entries)),
      );
      const verified = hub.verified(feedUrl);
      const { blog } = await server.storage.blogs.upsertFromSource({ feedUrl, title: name, source: "manual" });
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
      assert.equal((await verified).outcome, "confirmed");
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      blogs[name] = {
        feedUrl,
        entries,
        subscription,
        callback: `${server.baseUrl}${server.plugin.mountPath}/push/websub/${subscription.callbackToken}`,
      };
    }
  });
  after(async () => {
    await server.close();
    await feeds.close();
    await hub.close();
  });

  it(
    "reads one body per subscription at a time, cuts a slow one at the read deadline, and delays no other subscription meanwhile",
    { timeout: 60_000 },
    async () => {
      const slow = blogs.slow;
      const first = trickle(slow.callback, slow.subscription.secret!);
      // Let the first take its subscription's slot before the others come.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const more = [1, 2, 3, 4].map(() => trickle(slow.callback, slow.subscription.secret!));
      assert.deepEqual(
        await Promise.all(more.map((one) => one.status)),
        [503, 503, 503, 503],
        "the same subscription's other bodies wait their turn (Retry-After)",
      );
      const busy = blogs.busy;
      busy.entries.unshift({ id: "delivered-meanwhile", published: new Date() });
      assert.deepEqual(
        await hub.publish(busy.feedUrl, atom(busy.feedUrl, hub.url, busy.entries)),
        [200],
        "another subscription's signed delivery is stored meanwhile",
      );
      assert.equal(await first.status, 408, "the trickling body is cut at the read deadline");
      for (const one of [first, ...more]) one.request.destroy();
    },
  );

  it(`stores ${FAT_PINGS_PER_MINUTE} fat pings a minute per subscription; more are answered 202 and folded into one fetch`, async () => {
    const busy = blogs.busy;
    const before = feeds.hits("/busy.atom");
    const statuses: number[] = [];
    for (let n = 0; n < FAT_PINGS_PER_MINUTE + 4; n++) {
      busy.entries.unshift({ id: `fat-${n}`, published: new Date() });
      statuses.push(...(await hub.publish(busy.feedUrl, atom(busy.feedUrl, hub.url, busy.entries))));
    }
    await server.plugin.context.push.idle();
    // The delivery of the test before was the minute's first of this subscription.
    const stored = FAT_PINGS_PER_MINUTE - 1;
    assert.deepEqual(statuses, [...Array(stored).fill(200), ...Array(FAT_PINGS_PER_MINUTE + 4 - stored).fill(202)]);
    assert.ok(feeds.hits("/busy.atom") - before <= HINT_BURST, "the pings past the rate cost the budget at most");
    // The last post came by the fetch the budget allowed, or comes by the one it brought forward.
    const titles = (
      (await (await server.get(`${server.api}/items?limit=100`)).json()) as { items: Array<{ title: string }> }
    ).items.map((item) => item.title);
    const blog = await server.storage.blogs.get(busy.subscription.blogId);
    assert.ok(
      titles.includes(`fat-${FAT_PINGS_PER_MINUTE + 3}`) ||
        (blog?.nextFetchAt && blog.nextFetchAt.getTime() <= Date.now() + HINT_INTERVAL),
    );
  });

  it("logs what senders send aggregated per sender, and never a control character", async () => {
    const busy = blogs.busy;
    const logged = () => server.logs.filter((line) => line.includes("without a valid signature")).length;
    const before = logged();
    for (let n = 0; n < 1025; n++) {
      const response = await fetch(busy.callback, {
        method: "POST",
        headers: { "content-type": "application/atom+xml", "x-hub-signature": "sha256=00" },
        body: "<feed/>",
      });
      assert.equal(response.status, 202);
    }
    assert.ok(logged() - before <= 1, `${logged() - before} lines for 1025 forged notifications`);
    const denial = new URL(blogs.slow.callback);
    denial.searchParams.set("hub.mode", "denied");
    denial.searchParams.set("hub.topic", blogs.slow.feedUrl);
    denial.searchParams.set("hub.reason", "no\n[blogroll] admin login accepted\r\u2028");
    assert.equal((await fetch(denial)).status, 200);
    assert.ok(server.logs.some((line) => line.includes("denied the subscription")));
    for (const line of server.logs)
      assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, JSON.stringify(line));
  });
});
