import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { dataOf, openEventStream, type EventStreamClient } from "../support/event-stream.js";
import { addBlog, item } from "../support/seed.js";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { HOUR } from "../../lib/time/durations.js";

/** A blog the public sees, fetched once before (its feed showed a post an hour ago): posts newer than that are news. */
async function fetchedBlog(storage: Storage, fields: Parameters<typeof addBlog>[1] = {}): Promise<Blog> {
  const blog = await addBlog(storage, fields);
  await storage.blogs.recordFetch(blog.id, {
    at: new Date(),
    status: "active",
    nextFetchAt: null,
    failureCount: 0,
    schedule: {
      recentPosts: [new Date(Date.now() - HOUR)],
      fetchInterval: HOUR,
      fetchReason: "schedule",
      waitUntil: null,
    },
  });
  return blog;
}

/** Stores a new post on a blog, as a fetch or a push does. */
async function storePost(storage: Storage, blogId: string, uid: string): Promise<void> {
  await storage.items.upsertMany(blogId, [item(uid, new Date())], new Date());
}

/** Waits until the server has noticed `count` live clients (a closed one goes when its socket closes). */
async function connectionsBecome(server: TestServer, count: number): Promise<void> {
  while (server.plugin.context.live.connections !== count) await sleep(10);
}

for (const backend of httpBackends()) {
  describe(`live events over HTTP on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    const clients: EventStreamClient[] = [];
    const open = async (query = "", headers: Record<string, string> = {}) => {
      const client = await openEventStream(`${server.api}/events${query}`, headers);
      clients.push(client);
      return client;
    };
    before(async () => (server = await startTestServer(backend, { liveKeepAlive: 1000 })));
    after(() => server.close());
    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      await connectionsBecome(server, 0);
    });

    it("answers with an event stream: its headers, the API's CORS, a retry delay and where the log stands", async () => {
      const client = await open();
      assert.equal(client.status, 200);
      assert.equal(client.headers["content-type"], "text/event-stream");
      assert.equal(client.headers["cache-control"], "no-cache, no-transform");
      assert.equal(client.headers["x-accel-buffering"], "no");
      assert.equal(client.headers["access-control-allow-origin"], "*");
      assert.equal(client.headers["content-encoding"], undefined);
      await client.until("the opening frame", () => /^retry: \d+\nid: \d+\n\n/.test(client.raw));
      assert.ok(client.retries[0] >= 5000 && client.retries[0] <= 10_000);
    });

    it("sends a post stored while connected as an Item with blog context, exactly as /api/items gives it", async () => {
      const blog = await fetchedBlog(server.storage, { title: "Example", siteUrl: "https://example.org/" });
      const client = await open();
      await client.until("the opening frame", () => client.raw.includes("\n\n"));
      await storePost(server.storage, blog.id, "live-post");
      const event = await client.next();
      assert.equal(event.event, "post");
      assert.match(event.id ?? "", /^\d+$/);
      const listed = (await (await server.get(`${server.api}/items?blog=${blog.id}`)).json()) as { items: unknown[] };
      assert.deepEqual(dataOf(event), listed.items[0]);
      assert.equal(dataOf<{ blog: { title: string } }>(event).blog.title, "Example");
    });

    it("sends blog events: added, updated for what the page shows, removed when hidden; nothing of blogs the public does not see", async () => {
      const hidden = await fetchedBlog(server.storage, { hidden: true });
      const client = await open();
      await client.until("the opening frame", () => client.raw.includes("\n\n"));
      const blog = await addBlog(server.storage, { title: "Newcomer" });
      assert.deepEqual(dataOf(await client.next()), { id: blog.id, change: "added" });
      await server.storage.blogs.edit(blog.id, { title: "Renamed" });
      assert.deepEqual(dataOf(await client.next()), { id: blog.id, change: "updated" });
      await server.storage.blogs.edit(blog.id, { notes: "only for the owner" });
      await storePost(server.storage, hidden.id, "private-post");
      await server.storage.blogs.edit(blog.id, { hidden: true });
      const removed = await client.next();
      assert.equal(removed.event, "blog");
      assert.deepEqual(dataOf(removed), { id: blog.id, change: "removed" });
      assert.equal(client.events.length, 3, "the notes, the hidden blog and its post sent nothing");
      const ids = client.events.map((event) => Number(event.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(new Set(ids).size, 3);
    });

    it("replays what a client missed, from the Last-Event-ID header or the lastEventId query, in order, then goes on live", async () => {
      const blog = await fetchedBlog(server.storage);
      const first = await open();
      await first.until("the opening frame", () => first.raw.includes("\n\n"));
      await storePost(server.storage, blog.id, "seen");
      const seen = await first.next("post");
      first.close();
      await storePost(server.storage, blog.id, "missed-1");
      await storePost(server.storage, blog.id, "missed-2");
      const byHeader = await open("", { "Last-Event-ID": String(seen.id) });
      const byQuery = await open(`?lastEventId=${seen.id}`);
      const title = async (client: EventStreamClient) => dataOf<{ title: string }>(await client.next()).title;
      for (const client of [byHeader, byQuery]) {
        assert.deepEqual([await title(client), await title(client)], ["Post missed-1", "Post missed-2"]);
        assert.doesNotMatch(client.raw.split("\n\n")[0], /^id:/m, "no opening id: the replayed events carry theirs");
      }
      await storePost(server.storage, blog.id, "after");
      for (const client of [byHeader, byQuery]) assert.equal(await title(client), "Post after");
    });

    it("sends `reset` to a client whose last id is older than the log keeps, unknown or not one it gave", async () => {
      const blog = await fetchedBlog(server.storage);
      await storePost(server.storage, blog.id, "old");
      const { newest } = await server.storage.events.bounds();
      await server.storage.events.trimBefore(new Date(Date.now() + HOUR));
      await addBlog(server.storage);
      // Trimmed away (the log now starts after it), never given, not a number.
      for (const lastId of ["0", String(newest + 1000), "not-a-number"]) {
        const client = await open("", { "Last-Event-ID": lastId });
        const reset = await client.next();
        assert.equal(reset.event, "reset", `Last-Event-ID ${lastId}`);
        assert.match(reset.id ?? "", /^\d+$/);
      }
      // The log kept everything after this id: no reset.
      const current = (await server.storage.events.bounds()).newest;
      const client = await open("", { "Last-Event-ID": String(current) });
      await storePost(server.storage, blog.id, "fresh");
      assert.equal((await client.next()).event, "post");
    });

    it("keeps an idle stream open with comments", async () => {
      const client = await open();
      await client.until("a keep-alive comment", () => client.comments.length > 0);
      assert.equal(client.events.length, 0, "a comment dispatches no event");
    });

    it("allows Last-Event-ID in a CORS preflight", async () => {
      const response = await server.get(`${server.api}/events`, { method: "OPTIONS" });
      assert.equal(response.status, 204);
      assert.match(response.headers.get("access-control-allow-headers") ?? "", /Last-Event-ID/);
    });
  });
}

// What a slow reader may cost is the hub's doing, not the storage's: SQLite only (the stand-in is slow at volume).
describe("live events to clients that read slowly or not at all", () => {
  let server: TestServer;
  const clients: EventStreamClient[] = [];
  const open = async () => {
    const client = await openEventStream(`${server.api}/events`);
    clients.push(client);
    return client;
  };
  before(async () => (server = await startTestServer("sqlite", { liveKeepAlive: 1000 })));
  after(() => server.close());
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await connectionsBecome(server, 0);
  });

  it("queues little for a client that stops reading, serves the others, and catches it up from the log once it reads", async () => {
    const blog = await fetchedBlog(server.storage);
    const slow = await open();
    const quick = await open();
    await slow.until("the opening frame", () => slow.raw.includes("\n\n"));
    slow.pause();
    const summary = "x".repeat(16 * 1024);
    const posts = 600;
    for (let n = 0; n < posts; n += 50) {
      const batch = Array.from({ length: 50 }, (_, i) => item(`bulk-${n + i}`, new Date(), { summary }));
      await server.storage.items.upsertMany(blog.id, batch, new Date());
    }
    await quick.until(`${posts} posts`, () => quick.events.length === posts);
    assert.ok(server.plugin.context.live.unreadBytes() <= 2 * 64 * 1024, "at most 64 KiB queued per client");
    assert.ok(slow.events.length < posts);
    slow.resume();
    await slow.until(`${posts} posts`, () => slow.events.length === posts);
    assert.deepEqual(
      slow.events.map((event) => event.id),
      quick.events.map((event) => event.id),
      "the same events, in the same order",
    );
  });

  it("drops a client that reads nothing for three keep-alive intervals while behind", async () => {
    const blog = await fetchedBlog(server.storage);
    const stuck = await open();
    await stuck.until("the opening frame", () => stuck.raw.includes("\n\n"));
    stuck.pause();
    const summary = "x".repeat(16 * 1024);
    await server.storage.items.upsertMany(
      blog.id,
      Array.from({ length: 300 }, (_, i) => item(`stuck-${i}`, new Date(), { summary })),
      new Date(),
    );
    await connectionsBecome(server, 0);
  });
});

describe("live event limits", () => {
  for (const [limit, options] of [
    ["per address", { liveMaxPerAddress: 2 }],
    ["in all", { liveMaxConnections: 2 }],
  ] as const) {
    it(`answers 503 with Retry-After beyond the limit ${limit}, and admits again when a client leaves`, async () => {
      const server = await startTestServer("sqlite", options);
      try {
        const first = await openEventStream(`${server.api}/events`);
        const second = await openEventStream(`${server.api}/events`);
        const third = await openEventStream(`${server.api}/events`);
        assert.deepEqual([first.status, second.status], [200, 200]);
        assert.equal(third.status, 503);
        assert.equal(third.headers["retry-after"], "30");
        assert.equal(third.headers["access-control-allow-origin"], "*");
        assert.deepEqual(JSON.parse(third.body), { error: "Too many live connections" });
        first.close();
        await connectionsBecome(server, 1);
        const again = await openEventStream(`${server.api}/events`);
        assert.equal(again.status, 200);
        second.close();
        again.close();
        await connectionsBecome(server, 0);
      } finally {
        await server.close();
      }
    });
  }
});

describe("live events turned off", () => {
  let server: TestServer;
  before(async () => (server = await startTestServer("sqlite", { live: false })));
  after(() => server.close());

  it("serves no /api/events (the path falls through to the admin, which asks for a login)", async () => {
    const response = await server.get(`${server.api}/events`, { redirect: "manual" });
    assert.notEqual(response.status, 200);
    assert.notEqual(response.headers.get("content-type"), "text/event-stream");
    assert.equal(server.plugin.context.live.connections, 0);
  });
});
