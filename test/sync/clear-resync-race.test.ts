import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, before, test } from "node:test";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { conditionalFeed, rss, startFeedServer, type FeedServer } from "./feed-server.js";
import { until } from "./scheduler-support.js";

let server: TestServer;
let feeds: FeedServer;

before(async () => {
  server = await startTestServer("sqlite");
  feeds = await startFeedServer();
});
after(async () => {
  await server.close();
  await feeds.close();
});

const posts = (name: string) =>
  rss([
    { guid: `${name}-1`, published: new Date(Date.now() - 3600_000) },
    { guid: `${name}-2`, published: new Date(Date.now() - 7200_000) },
  ]);

test("Clear & resync while a sync is fetching leaves no blog with validators and no items", async () => {
  // b.xml answers only when let go, so a run can be caught with its request in flight.
  let hold = false;
  const held: Array<() => void> = [];
  const answerB = conditionalFeed(() => posts("b"));
  feeds.route(
    "/a.xml",
    conditionalFeed(() => posts("a")),
  );
  feeds.route("/b.xml", (request, response: ServerResponse) => {
    if (hold) held.push(() => void answerB(request, response));
    else return answerB(request, response);
  });
  const { storage } = server;
  const scheduler = server.plugin.context.scheduler;
  const blogA = (
    await storage.blogs.upsertFromSource({ feedUrl: `${feeds.origins[0]}/a.xml`, title: "A", source: "manual" })
  ).blog;
  const blogB = (
    await storage.blogs.upsertFromSource({ feedUrl: `${feeds.origins[0]}/b.xml`, title: "B", source: "manual" })
  ).blog;
  await scheduler.syncNow();
  const earlier = new Date(Date.now() - 3600_000);
  for (const blog of [blogA, blogB]) {
    const synced = await storage.blogs.get(blog.id);
    assert.equal(synced?.itemCount, 2);
    assert.equal(synced?.etag, '"v1"');
    // Due again, validators kept: the next run gets 304s.
    await storage.blogs.recordFetch(blog.id, { at: earlier, status: "active", nextFetchAt: null, failureCount: 0 });
  }

  hold = true;
  const firstRun = scheduler.syncNow();
  await until(() => held.length === 1, 10_000);
  await until(
    async () => ((await storage.blogs.get(blogA.id))?.lastFetchAt?.getTime() ?? 0) > earlier.getTime(),
    10_000,
  );

  const cleared = await server.get(`${server.plugin.mountPath}/clear-resync`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, Accept: "application/json" },
  });
  assert.equal(cleared.status, 202);
  hold = false;
  for (const answer of held.splice(0)) answer();
  await firstRun;
  await until(() => !scheduler.running, 20_000);

  for (const blog of [blogA, blogB]) {
    const after = await storage.blogs.get(blog.id);
    assert.equal(after?.itemCount, 2, `${blog.title} has its posts again after the resync`);
    const stored = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
    assert.equal(stored.length, 2, `${blog.title}'s items are stored`);
  }
});
