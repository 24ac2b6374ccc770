import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { changeCount, countingChanges } from "../../lib/storage/change-count.js";
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
