import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importFeeds } from "../../lib/sources/import.js";
import type { ListedFeed } from "../../lib/sources/types.js";
import { createMongoStorage, MONGO_COLLECTION_NAMES } from "../../lib/storage/mongo/index.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";
import { createFakeDb } from "../support/fake-mongo.js";

const backends: Array<[string, () => Storage]> = [
  ["SQLite in memory", () => createSqliteStorage(":memory:")],
  [
    "MongoDB adapter on the mingo stand-in (not a real MongoDB server)",
    () => {
      const db = createFakeDb();
      return createMongoStorage({
        sources: db.collection(MONGO_COLLECTION_NAMES.sources),
        blogs: db.collection(MONGO_COLLECTION_NAMES.blogs),
        items: db.collection(MONGO_COLLECTION_NAMES.items),
        meta: db.collection(MONGO_COLLECTION_NAMES.meta),
        events: db.collection(MONGO_COLLECTION_NAMES.events),
        push: db.collection(MONGO_COLLECTION_NAMES.push),
        recommendations: db.collection(MONGO_COLLECTION_NAMES.recommendations),
      });
    },
  ],
];

const listed = (xmlUrl: string, title = "Old name"): ListedFeed => ({
  xmlUrl,
  title,
  htmlUrl: null,
  description: null,
  type: "rss",
  category: "Tech",
});

for (const [name, open] of backends) {
  describe(`a feed known under the URL it permanently redirects to (${name})`, () => {
    it("is matched by lists that still name the old address: no twin, not unlisted", async () => {
      const storage = open();
      await storage.init();
      try {
        const list = await storage.sources.create({
          type: "opml_url",
          name: "List",
          settings: { url: "https://lists.example/a.opml" },
        });
        const other = await storage.sources.create({
          type: "feedland",
          name: "FeedLand",
          settings: { screenName: "x" },
        });
        await importFeeds(storage, list, {
          feeds: [listed("https://old.example/feed"), listed("https://keep.example/feed")],
        });
        const blog = await storage.blogs.getByFeedUrl("https://old.example/feed");
        assert.ok(blog);
        // What the sync records after a 301 from the old address to the new one.
        const moved = await storage.blogs.recordFetch(blog.id, {
          at: new Date(),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "https://new.example/blog/feed.xml",
        });
        assert.equal(moved?.feedUrl, "https://new.example/blog/feed.xml");

        // The same list again, still with the old address (any spelling of it).
        const again = await importFeeds(storage, list, {
          feeds: [listed("http://OLD.example/feed/"), listed("https://keep.example/feed")],
        });
        assert.deepEqual({ added: again.added, missing: again.missing }, { added: 0, missing: 0 });
        const read = await storage.blogs.get(blog.id);
        assert.deepEqual(
          read?.origins.map((origin) => origin.id),
          [list.id],
          "still listed: the list still names it",
        );
        assert.equal(read?.feedUrl, "https://new.example/blog/feed.xml", "the list does not move it back");
        assert.equal((await storage.blogs.getByFeedUrl("https://old.example/feed"))?.id, blog.id);

        // Another source naming the old address is the same blog, remembered once; the new address too.
        const feedland = await importFeeds(storage, other, {
          feeds: [listed("https://old.example/feed"), listed("https://new.example/blog/feed.xml")],
        });
        assert.equal(feedland.added, 0);
        assert.equal(feedland.skipped, 1, "old and new address in one list are one feed");
        assert.deepEqual(
          (await storage.blogs.get(blog.id))?.origins.map((origin) => origin.id),
          [list.id, other.id],
        );
        assert.equal(await storage.blogs.count(), 2);

        // Deleted stays deleted under the old address as well.
        await storage.blogs.softDelete(blog.id);
        const afterDelete = await importFeeds(storage, list, {
          feeds: [listed("https://old.example/feed"), listed("https://keep.example/feed")],
        });
        assert.equal(afterDelete.added, 0);
        assert.deepEqual(afterDelete.skippedFeeds, [
          { xmlUrl: "https://old.example/feed", reason: "deleted by the owner" },
        ]);
        assert.equal(await storage.blogs.count(), 1);
      } finally {
        await storage.close();
      }
    });
  });
}
