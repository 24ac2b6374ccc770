import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { changeCount, countingChanges, onStorageWrite, type SettledWrite } from "../../lib/storage/change-count.js";
import type { Storage } from "../../lib/storage/types.js";
import { openTempStorage, type TempStorage } from "../sync/harness.js";

let temp: TempStorage;
let storage: Storage;
beforeEach(async () => {
  temp = await openTempStorage();
  storage = countingChanges(temp.storage);
});
afterEach(() => temp.cleanup());

test("blog and item writes count once settled; reads and other stores do not", async () => {
  assert.equal(changeCount(storage), 0);
  const { blog } = await storage.blogs.upsertFromSource({
    feedUrl: "https://a.example/feed",
    title: "A",
    source: "manual",
  });
  assert.equal(changeCount(storage), 1);
  await storage.items.upsertMany(
    blog.id,
    [
      {
        uid: "1",
        url: "https://a.example/1",
        title: "One",
        summary: null,
        content: null,
        published: new Date(),
        author: null,
        photo: null,
        categories: [],
      },
    ],
    new Date(),
  );
  assert.equal(changeCount(storage), 2);

  await storage.blogs.list({ visibility: "admin", limit: 10, offset: 0 });
  await storage.blogs.count();
  await storage.items.count();
  await storage.blogs.categories();
  await storage.meta.set("k", 1);
  assert.equal(changeCount(storage), 2, "reads and meta leave the count alone");

  await storage.items.deleteAll();
  await storage.blogs.softDelete(blog.id);
  assert.equal(changeCount(storage), 4);
});

test("a write that fails still counts: it may have changed something before failing", async () => {
  await temp.storage.close();
  await assert.rejects(storage.blogs.softDelete("000000000000000000000000"));
  assert.equal(changeCount(storage), 1);
});

test("storage not wrapped has no count", () => {
  assert.equal(changeCount(temp.storage), 0);
});

test("each settled write says which blogs it wrote, or null when it may have written any", async () => {
  const heard: SettledWrite[] = [];
  const stop = onStorageWrite(storage, (write) => heard.push(write));
  const { blog } = await storage.blogs.upsertFromSource({
    feedUrl: "https://a.example/feed",
    title: "A",
    source: "manual",
  });
  const other = (
    await storage.blogs.upsertFromSource({ feedUrl: "https://b.example/feed", title: "B", source: "manual" })
  ).blog;
  await storage.blogs.edit(blog.id, { note: "Good" });
  await storage.items.store(blog.id, [], new Date(), 1);
  await storage.blogs.hideMany({ ids: [other.id] });
  await storage.blogs.unlist("owner", { only: [blog.id] });
  await storage.items.deleteAll();
  stop();
  await storage.blogs.softDelete(blog.id);
  assert.deepEqual(heard, [
    { count: 1, blogIds: [blog.id] },
    { count: 2, blogIds: [other.id] },
    { count: 3, blogIds: [blog.id] },
    { count: 4, blogIds: [blog.id] },
    { count: 5, blogIds: [other.id] },
    { count: 6, blogIds: null },
    { count: 7, blogIds: null },
  ]);
});

test("a failed write may have written any blog", async () => {
  const heard: SettledWrite[] = [];
  onStorageWrite(storage, (write) => heard.push(write));
  await temp.storage.close();
  await assert.rejects(storage.blogs.softDelete("000000000000000000000000"));
  assert.deepEqual(heard, [{ count: 1, blogIds: null }]);
});
