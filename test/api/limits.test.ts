import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { parseOpml } from "../../lib/opml/parse.js";

/**
 * Spec section 8 and issue 3: defaults, the blog detail's 20 items, the
 * 1000-blog OPML export and the documented maxima of `limit`. The in-memory
 * MongoDB stand-in checks unique indexes by scanning, so seeding 1000+ blogs
 * there takes ~10 s: it gets 151 blogs (defaults), and the 1000-blog bounds
 * (enforced before storage is asked) are checked on SQLite and real MongoDB.
 */
const ITEMS = 205;

for (const backend of httpBackends()) {
  describe(`limits of the public API on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let busy: string;
    const BLOGS = backend === "mongo-standin" ? 151 : 1003;
    const large = BLOGS > 1000;
    before(async () => {
      server = await startTestServer(backend);
      const s = server.storage;
      const blog = (n: number) => ({
        feedUrl: `https://b${n}.example/feed`,
        title: `Blog ${String(n).padStart(4, "0")}`,
        category: n % 2 ? "Odd" : "Even",
        source: "opml",
      });
      if (server.fakeDb) {
        // The in-memory stand-in scans on every upsert: write one blog through the adapter, then
        // copies of its document (the shape the adapter writes), which the adapter reads back.
        await s.blogs.upsertFromSource(blog(0));
        const collection = server.fakeDb.collection("blogrollBlogs");
        const template = (await collection.findOne({}))!;
        const copies = Array.from({ length: BLOGS - 1 }, (_, index) => {
          const { feedUrl, title, category } = blog(index + 1);
          return {
            ...template,
            _id: new ObjectId(),
            feedUrl,
            feedKey: feedUrl.replace("https://", ""),
            title,
            category,
          };
        });
        await collection.insertMany(copies);
      } else {
        for (let n = 0; n < BLOGS; n++) await s.blogs.upsertFromSource(blog(n));
      }
      busy = (await addBlog(s, { title: "zz Busy", category: "Busy" })).id;
      await addItems(
        s,
        busy,
        Array.from({ length: ITEMS }, (_, n) => item(`i${n}`, daysAgo(n / 100))),
      );
    });
    after(() => server.close());

    const get = async (path: string) => {
      const response = await server.get(`${server.api}${path}`);
      assert.equal(response.status, 200, path);
      return response;
    };

    it("GET /api/blogs: 100 by default from offset 0, at most 1000 per page", async () => {
      const first = await (await get("/blogs")).json();
      assert.equal(first.items.length, 100);
      assert.equal(first.items[0].title, "Blog 0000");
      assert.equal(first.items[99].title, "Blog 0099");
      assert.deepEqual([first.total, first.hasMore], [BLOGS + 1, true]);
      const clamped = await (await get("/blogs?limit=5000")).json();
      assert.equal(clamped.items.length, Math.min(1000, BLOGS + 1));
      assert.equal(clamped.hasMore, large);
      if (large) {
        const rest = await (await get("/blogs?limit=1000&offset=1000")).json();
        assert.deepEqual(
          rest.items.map((blog: { title: string }) => blog.title),
          ["Blog 1000", "Blog 1001", "Blog 1002", "zz Busy"],
        );
        assert.equal(rest.hasMore, false);
      }
      const explicitZero = await (await get("/blogs?offset=0")).json();
      assert.deepEqual(explicitZero, first);
    });

    it("GET /api/items: 50 by default from offset 0, at most 200 per page", async () => {
      const first = await (await get("/items")).json();
      assert.equal(first.items.length, 50);
      assert.equal(first.items[0].title, "Post i0");
      assert.equal(first.items[49].title, "Post i49");
      assert.equal(first.hasMore, true);
      const clamped = await (await get("/items?limit=100000")).json();
      assert.equal(clamped.items.length, 200);
      assert.equal(clamped.items[199].title, "Post i199");
      assert.equal(clamped.hasMore, true);
      const tail = await (await get("/items?limit=200&offset=200")).json();
      assert.deepEqual([tail.items.length, tail.hasMore], [ITEMS - 200, false]);
    });

    it("GET /api/blogs/:id: the blog's 20 newest items", async () => {
      const body = await (await get(`/blogs/${busy}`)).json();
      assert.deepEqual(
        body.items.map((entry: { title: string }) => entry.title),
        Array.from({ length: 20 }, (_, n) => `Post i${n}`),
      );
      assert.equal(body.itemCount, ITEMS);
    });

    it("GET /api/opml: at most 1000 blogs, grouped by category; a category export holds only that category", async () => {
      const all = parseOpml(await (await get("/opml")).text());
      assert.equal(all.feeds.length, Math.min(1000, BLOGS + 1));
      const odd = parseOpml(await (await get("/opml/Odd")).text());
      assert.equal(odd.feeds.length, (BLOGS - 1) / 2);
      assert.ok(odd.feeds.every((feed) => feed.category === "Odd"));
    });
  });
}
