import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { dataOf, openEventStream } from "../support/event-stream.js";
import { addBlog, item } from "../support/seed.js";
import { startSecondProcess, type SecondProcess } from "../support/second-process.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { HOUR } from "../../lib/time/durations.js";

async function fetchedBlog(storage: Storage, title: string): Promise<Blog> {
  const blog = await addBlog(storage, { title });
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

describe("live events across two processes on one SQLite file", () => {
  let second: SecondProcess;
  let events = "";
  let writer: Storage;

  before(async () => {
    second = await startSecondProcess();
    writer = second.writer;
    events = `${second.mountUrl}/api/events`;
  });
  after(() => second.stop());

  it("the other process streams the post and the blog change this one stored", async () => {
    const blog = await fetchedBlog(writer, "Written here");
    const client = await openEventStream(events);
    try {
      await client.until("the opening frame", () => client.raw.includes("\n\n"));
      await writer.items.upsertMany(blog.id, [item("from-the-first-process", new Date())], new Date());
      await writer.blogs.edit(blog.id, { title: "Renamed here" });
      const post = await client.next();
      assert.equal(post.event, "post");
      assert.equal(dataOf<{ title: string; blog: { title: string } }>(post).title, "Post from-the-first-process");
      const change = await client.next();
      assert.deepEqual(dataOf(change), { id: blog.id, change: "updated" });
    } finally {
      client.close();
    }
  });
});

describe("live events across two plugin instances on one MongoDB stand-in database (in one process: not a real MongoDB server)", () => {
  let first: TestServer;
  let second: TestServer;
  before(async () => {
    first = await startTestServer("mongo-standin");
    second = await startTestServer("mongo-standin", {}, first);
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  it("the second instance streams what the first stored", async () => {
    const blog = await fetchedBlog(first.storage, "Stored by the first");
    const client = await openEventStream(`${second.api}/events`);
    try {
      await client.until("the opening frame", () => client.raw.includes("\n\n"));
      await first.storage.items.upsertMany(blog.id, [item("across", new Date())], new Date());
      const post = await client.next();
      assert.equal(dataOf<{ title: string }>(post).title, "Post across");
    } finally {
      client.close();
    }
  });

  it("holds back an event until an earlier seq another writer took is stored, so clients get them in order", async () => {
    const blog = await fetchedBlog(first.storage, "Racing writers");
    const client = await openEventStream(`${second.api}/events`);
    try {
      await client.until("the opening frame", () => client.raw.includes("\n\n"));
      const db = first.fakeDb!;
      // A writer takes the next seq and has not stored its event yet...
      const counter = await db
        .collection("blogrollMeta")
        .findOneAndUpdate({ key: "liveEvents.seq" }, { $inc: { seq: 1 } }, { returnDocument: "after" });
      const taken = Number(counter?.seq);
      // ...while another stores a post under the seq after it.
      await first.storage.items.upsertMany(blog.id, [item("second-writer", new Date())], new Date());
      await first.storage.blogs.edit(blog.id, { title: "Racing writers, renamed" });
      await db
        .collection("blogrollEvents")
        .insertOne({ seq: taken, at: new Date(), kind: "blog", blogId: blog.id, itemId: null, change: "updated" });
      const seqs = [
        Number((await client.next()).id),
        Number((await client.next()).id),
        Number((await client.next()).id),
      ];
      assert.deepEqual(seqs, [taken, taken + 1, taken + 2]);
    } finally {
      client.close();
    }
  });
});
