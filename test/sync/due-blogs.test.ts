/**
 * forEachDueBlog reads the due blogs page by page: every blog is handled
 * once and every row read once, however many pages there are (the cost of a
 * run grows with the blogs it fetches, not with their square). A blog's
 * fetch slot goes on once it is fetched; blogs in hand stay bounded.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { backlogOf, forEachDueBlog } from "../../lib/sync/due-blogs.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import { openTempStorage, type TempStorage } from "./harness.js";

const BLOGS = 53;
const T0 = new Date("2026-06-01T08:00:00Z");

/** The storage with the rows its listDue returned counted. */
function countingListDue(storage: Storage): { storage: Storage; rows: () => number } {
  let rows = 0;
  const blogs = Object.create(storage.blogs) as Storage["blogs"];
  blogs.listDue = async (...args) => {
    const page = await storage.blogs.listDue(...args);
    rows += page.length;
    return page;
  };
  return { storage: { ...storage, blogs }, rows: () => rows };
}

describe("forEachDueBlog", () => {
  let store: TempStorage;
  before(async () => {
    store = await openTempStorage();
    for (let i = 0; i < BLOGS; i++) {
      const { blog } = await store.storage.blogs.upsertFromSource({
        feedUrl: `https://h${i % 5}.example/feed${i}.xml`,
        title: `Blog ${i}`,
        source: "manual",
      });
      // Half never scheduled, half due at various times, a few not due.
      if (i % 2 === 1)
        await store.storage.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: new Date(T0.getTime() + (i % 7 === 0 ? 60_000 : -i * 60_000)),
          failureCount: 0,
        });
    }
  });
  after(() => store.cleanup());

  for (const everyone of [false, true]) {
    it(`${everyone ? "Sync now" : "a scheduled run"}: each blog handled once, each row read once, in pages`, async () => {
      const { storage, rows } = countingListDue(store.storage);
      const expected = (await store.storage.blogs.listDue(T0, 1000, { everyone })).map((blog) => blog.id).sort();
      const handled: string[] = [];
      await forEachDueBlog(
        storage,
        T0,
        { concurrency: 4, perHost: 1, batchSize: 7, everyone },
        new AbortController().signal,
        async (blog: Blog) => {
          handled.push(blog.id);
          // What a fetch does: the blog moves on in the schedule.
          await store.storage.blogs.recordFetch(blog.id, {
            at: T0,
            status: "active",
            nextFetchAt: new Date(T0.getTime() + 3_600_000),
            failureCount: 0,
          });
        },
        () => undefined,
      );
      assert.deepEqual([...handled].sort(), expected);
      assert.equal(new Set(handled).size, handled.length, "no blog handled twice");
      assert.equal(rows(), expected.length, `rows read: ${rows()} for ${expected.length} due blogs`);
      // Put the blogs back as they were for the other case.
      for (const id of handled)
        await store.storage.blogs.recordFetch(id, { at: T0, status: "active", nextFetchAt: null, failureCount: 0 });
    });
  }

  it("a fetched blog gives its slot to the next at once; blogs in hand stay within `concurrency` and a backlog", async () => {
    const concurrency = 4;
    const inHand = concurrency + backlogOf(concurrency);
    assert.ok(backlogOf(concurrency) >= 1);
    const started: string[] = [];
    const held: Array<() => void> = [];
    // Every queued callback and I/O turn run: what could start has started.
    const drain = async () => {
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    let finished = false;
    const run = forEachDueBlog(
      store.storage,
      T0,
      { concurrency, perHost: concurrency, everyone: true },
      new AbortController().signal,
      async (blog, fetched) => {
        started.push(blog.id);
        // Fetched at once; its parse and writes are held.
        fetched();
        await new Promise<void>((resolve) => held.push(resolve));
      },
      () => undefined,
    ).then(() => void (finished = true));
    await drain();
    assert.equal(started.length, inHand, "fetched blogs freed their slots, up to the backlog");
    held.shift()!();
    await drain();
    assert.equal(started.length, inHand + 1, "one settled, one more started");
    while (!finished) {
      held.splice(0).forEach((release) => release());
      await drain();
    }
    await run;
    assert.equal(started.length, BLOGS);
    assert.equal(new Set(started).size, BLOGS);
  });
});
