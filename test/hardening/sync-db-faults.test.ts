/**
 * A database write failing during a sync: the blog it hit keeps its previous
 * items, gets a plain error message, and the run goes on with the next blogs.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, test } from "node:test";
import { createSyncRunner } from "../../lib/sync/run.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { createFaultyStorage } from "../support/faulty-storage.js";
import { rss, startFeedServer, type FeedServer, type TestItem } from "../sync/feed-server.js";
import { addBlog, openTempStorage, testOptions, type TempStorage } from "../sync/harness.js";

let server: FeedServer;
let temp: TempStorage;
let version = 1;
/** Fixed dates, so a re-fetched item is the same item. */
const base = Math.floor(Date.now() / 1000) * 1000;

before(async () => {
  server = await startFeedServer();
  for (const name of ["a", "b", "c"]) {
    // Each fetch after a version bump lists a new item on top of the old ones.
    server.route(`/${name}.xml`, (_request, response) => {
      const items: TestItem[] = [];
      for (let v = version; v >= 1; v--)
        items.push({ guid: `${name}-${v}`, published: new Date(base - (10 - v) * 3600_000) });
      response.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(items));
    });
  }
});
after(() => server.close());
beforeEach(async () => {
  temp = await openTempStorage();
  version = 1;
});
afterEach(() => temp.cleanup());

const runner = () => createSyncRunner({ options: testOptions({ concurrency: 1 }), parseInWorkers: false });
const runOnce = (storage: Storage) =>
  runner()(storage, { signal: new AbortController().signal, progress: () => undefined });
const uids = async (storage: Storage, blog: Blog) =>
  (await storage.items.list({ blogId: blog.id, limit: 100, offset: 0 })).map((entry) => entry.uid).sort();

for (const failing of ["items.store", "blogs.recordFetch"]) {
  test(`${failing} failing for one blog: its items stay, the run continues with the next blogs`, async () => {
    const blogs = [];
    for (const name of ["a", "b", "c"])
      blogs.push(await addBlog(temp.storage, `${server.origins[0]}/${name}.xml`, name));
    const [a, b, c] = blogs;
    await runOnce(temp.storage);
    const itemsBefore = await temp.storage.items.list({ blogId: b.id, limit: 100, offset: 0 });
    assert.deepEqual(await uids(temp.storage, b), ["b-1"]);

    version = 2;
    for (const blog of blogs)
      await temp.storage.blogs.recordFetch(blog.id, {
        at: new Date(),
        status: "active",
        nextFetchAt: null,
        failureCount: 0,
      });
    const faulty = createFaultyStorage(temp.storage);
    faulty.failWhen((call) => call.name === failing && call.args[0] === b.id);
    const stats = await runOnce(faulty);

    assert.ok(faulty.failures >= 1, "the fault was hit");
    assert.equal(stats.blogs.total, 3);
    assert.equal(stats.blogs.failed, 1);
    // b's earlier item is still there, unchanged.
    const itemsAfter = await temp.storage.items.list({ blogId: b.id, limit: 100, offset: 0 });
    const kept = itemsAfter.find((entry) => entry.uid === "b-1");
    assert.deepEqual(kept, itemsBefore[0]);
    // The blogs after it were synced normally.
    assert.deepEqual(await uids(temp.storage, a), ["a-1", "a-2"]);
    assert.deepEqual(await uids(temp.storage, c), ["c-1", "c-2"]);
    const bAfter = await temp.storage.blogs.get(b.id);
    if (failing !== "blogs.recordFetch") {
      assert.equal(bAfter?.status, "error");
      assert.equal(bAfter?.lastError, "Could not save this blog's items");
    }
    assert.doesNotMatch(bAfter?.lastError ?? "", /SECRET-DETAIL|injected/);
  });
}
