import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { parseOpml } from "../../lib/opml/parse.js";

const BLOG_FIELDS = [
  "id",
  "title",
  "description",
  "feedUrl",
  "siteUrl",
  "feedType",
  "category",
  "tags",
  "photo",
  "author",
  "status",
  "itemCount",
  "pinned",
  "lastFetchAt",
  "lastItemAt",
  "source",
  "relationship",
  "note",
  "fediverse",
  "fediverseUrl",
];
const ITEM_FIELDS = ["id", "url", "title", "summary", "published", "isFuture", "author", "photo", "categories"];

async function json(response: Response) {
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  return response.json();
}

for (const backend of httpBackends()) {
  describe(`public API on ${describeBackend(backend)}`, () => {
    console.log(`storage backend: ${describeBackend(backend)}`);

    describe("empty store", () => {
      let server: TestServer;
      before(async () => (server = await startTestServer(backend)));
      after(() => server.close());

      it("GET /api/blogs answers the empty list with CORS and caching headers", async () => {
        const response = await server.get(`${server.api}/blogs`);
        assert.equal(response.status, 200);
        assert.deepEqual(await json(response), { items: [], total: 0, hasMore: false });
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.equal(response.headers.get("cache-control"), "public, max-age=300");
        assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/);
        assert.equal(response.headers.get("x-content-type-options"), "nosniff");
        assert.equal(response.headers.get("x-powered-by"), null);
      });

      it("answers 304 to a matching If-None-Match", async () => {
        const first = await server.get(`${server.api}/categories`);
        const etag = first.headers.get("etag") as string;
        const second = await server.get(`${server.api}/categories`, { headers: { "If-None-Match": etag } });
        assert.equal(second.status, 304);
        assert.equal(await second.text(), "");
        const weak = await server.get(`${server.api}/categories`, {
          headers: { "If-None-Match": `"other", W/${etag}` },
        });
        assert.equal(weak.status, 304);
        const other = await server.get(`${server.api}/categories`, { headers: { "If-None-Match": '"nope"' } });
        assert.equal(other.status, 200);
      });

      it("GET /api/items, /api/categories and /api/status answer empty bodies", async () => {
        assert.deepEqual(await json(await server.get(`${server.api}/items`)), { items: [], hasMore: false });
        assert.deepEqual(await json(await server.get(`${server.api}/categories`)), { items: [] });
        const status = await json(await server.get(`${server.api}/status`));
        assert.equal(status.status, "ok");
        assert.equal(status.isRunning, false);
        assert.deepEqual(status.blogs, { count: 0 }, "what the public list shows, nothing of the owner's figures");
        assert.deepEqual(status.items, { count: 0 });
        assert.equal(status.lastSync, null);
        assert.ok("nextSync" in status && "lastSyncStats" in status && "progress" in status);
      });

      it("answers a preflight OPTIONS request", async () => {
        const response = await server.get(`${server.api}/items`, { method: "OPTIONS" });
        assert.equal(response.status, 204);
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.match(response.headers.get("access-control-allow-methods") ?? "", /GET/);
      });
    });

    describe("blogs", () => {
      let server: TestServer;
      const ids: Record<string, string> = {};
      before(async () => {
        server = await startTestServer(backend);
        const s = server.storage;
        ids.zeta = (await addBlog(s, { title: "zeta", category: "Tech", lastFetchAt: daysAgo(1) })).id;
        ids.alpha = (
          await addBlog(s, {
            title: "Alpha",
            category: "Tech",
            source: "opml",
            relationship: ["friend", "met"],
            note: "Why I read it",
            fediverse: "@alpha@social.example",
            fediverseUrl: "https://social.example/@alpha",
          })
        ).id;
        ids.beta = (await addBlog(s, { title: "beta", category: "Life", source: "opml", lastFetchAt: daysAgo(2) })).id;
        ids.pinned = (await addBlog(s, { title: "Yankee", category: "Life", pinned: true })).id;
        ids.hidden = (await addBlog(s, { title: "Hidden", category: "Secret", hidden: true })).id;
        ids.deleted = (await addBlog(s, { title: "Deleted", category: "Tech", deleted: true })).id;
        ids.none = (await addBlog(s, { title: "Gamma", category: null, source: null })).id;
        // A blog no origin lists any more is unlisted: out of the public API until it reappears.
        const source = await s.sources.create({ type: "opml_file", name: "List", settings: { xml: "<opml/>" } });
        ids.inactive = (
          await s.blogs.upsertFromSource({
            feedUrl: "https://gone.example/feed",
            title: "Inactive",
            category: "Tech",
            source: "opml",
            sourceId: source.id,
          })
        ).blog.id;
        await s.blogs.unlist(source.id, { except: [] });
        await addItems(s, ids.inactive, [item("i1", daysAgo(0.1))]);
        await addItems(s, ids.beta, [item("b1", daysAgo(1))]);
        await addItems(s, ids.zeta, [item("z1", daysAgo(3))]);
        await addItems(s, ids.hidden, [item("h1", daysAgo(0.5))]);
      });
      after(() => server.close());

      const titles = (body: { items: Array<{ title: string }> }) => body.items.map((blog) => blog.title);

      it("orders pinned first, then title case-insensitively; hides hidden and deleted blogs", async () => {
        const body = await json(await server.get(`${server.api}/blogs`));
        assert.deepEqual(titles(body), ["Yankee", "Alpha", "beta", "Gamma", "zeta"]);
        assert.equal(body.total, 5);
        assert.equal(body.hasMore, false);
        assert.deepEqual(titles(await json(await server.get(`${server.api}/blogs?sort=title`))), titles(body));
      });

      it("sort=recent: pinned, then newest item, then blogs without items by last fetch, then title", async () => {
        const body = await json(await server.get(`${server.api}/blogs?sort=recent&limit=200`));
        assert.deepEqual(titles(body), ["Yankee", "beta", "zeta", "Alpha", "Gamma"]);
      });

      it("rejects an unknown sort", async () => {
        const response = await server.get(`${server.api}/blogs?sort=random`);
        assert.equal(response.status, 400);
        assert.deepEqual(await json(response), { error: "Invalid sort" });
      });

      it("filters by category and source; total counts the filter", async () => {
        const tech = await json(await server.get(`${server.api}/blogs?category=Tech`));
        assert.deepEqual(titles(tech), ["Alpha", "zeta"]);
        assert.equal(tech.total, 2);
        const opml = await json(await server.get(`${server.api}/blogs?source=opml&category=Life`));
        assert.deepEqual(titles(opml), ["beta"]);
        assert.equal(opml.total, 1);
        const nothing = await json(await server.get(`${server.api}/blogs?category=Nope`));
        assert.deepEqual(nothing, { items: [], total: 0, hasMore: false });
      });

      it("pages with limit and offset: hasMore exactly when offset + returned < total", async () => {
        const first = await json(await server.get(`${server.api}/blogs?limit=2`));
        assert.deepEqual([titles(first), first.total, first.hasMore], [["Yankee", "Alpha"], 5, true]);
        const last = await json(await server.get(`${server.api}/blogs?limit=2&offset=3`));
        assert.deepEqual([titles(last), last.hasMore], [["Gamma", "zeta"], false]);
        const exactEnd = await json(await server.get(`${server.api}/blogs?limit=5`));
        assert.equal(exactEnd.hasMore, false);
        const past = await json(await server.get(`${server.api}/blogs?offset=50`));
        assert.deepEqual(past, { items: [], total: 5, hasMore: false });
        const zero = await json(await server.get(`${server.api}/blogs?limit=0`));
        assert.deepEqual(zero, { items: [], total: 5, hasMore: true });
      });

      it("serialises exactly the spec's fields and the owner's public ones, source null when none is stored", async () => {
        const body = await json(await server.get(`${server.api}/blogs?limit=200`));
        for (const blog of body.items) assert.deepEqual(Object.keys(blog).sort(), [...BLOG_FIELDS].sort());
        const gamma = body.items.find((blog: { title: string }) => blog.title === "Gamma");
        assert.equal(gamma.source, null);
        assert.equal(gamma.id, ids.none);
        const beta = body.items.find((blog: { title: string }) => blog.title === "beta");
        assert.equal(beta.itemCount, 1);
        assert.equal(typeof beta.lastItemAt, "string");
        assert.ok(!Number.isNaN(Date.parse(beta.lastItemAt)));
        assert.deepEqual([beta.relationship, beta.note, beta.fediverse, beta.fediverseUrl], [[], null, null, null]);
        const alpha = await json(await server.get(`${server.api}/blogs/${ids.alpha}`));
        assert.deepEqual(
          [alpha.relationship, alpha.note, alpha.fediverse, alpha.fediverseUrl],
          [["friend", "met"], "Why I read it", "@alpha@social.example", "https://social.example/@alpha"],
        );
      });

      it("GET /api/blogs/:id: 400 for a malformed id, 404 for unknown, hidden, deleted and unlisted blogs", async () => {
        for (const bad of ["123", "zzzzzzzzzzzzzzzzzzzzzzzz", `${ids.alpha}0`, "%24ne"]) {
          const response = await server.get(`${server.api}/blogs/${bad}`);
          assert.equal(response.status, 400, bad);
          assert.deepEqual(await json(response), { error: "Invalid blog ID" });
        }
        for (const missing of ["0123456789abcdef01234567", ids.hidden, ids.deleted, ids.inactive]) {
          const response = await server.get(`${server.api}/blogs/${missing}`);
          assert.equal(response.status, 404);
          assert.deepEqual(await json(response), { error: "Blog not found" });
        }
      });

      it("GET /api/categories: visible blogs only, by name, no null category", async () => {
        const body = await json(await server.get(`${server.api}/categories`));
        assert.deepEqual(body, {
          items: [
            { name: "Life", count: 2 },
            { name: "Tech", count: 2 },
          ],
        });
      });

      it("GET /api/items leaves out items of hidden and unlisted blogs", async () => {
        const body = await json(await server.get(`${server.api}/items`));
        assert.deepEqual(
          body.items.map((entry: { title: string }) => entry.title),
          ["Post b1", "Post z1"],
        );
        assert.deepEqual(await json(await server.get(`${server.api}/items?blog=${ids.inactive}`)), {
          items: [],
          hasMore: false,
        });
      });

      it("GET /api/status counts the blogs and items the public list shows", async () => {
        const status = await json(await server.get(`${server.api}/status`));
        const blogs = await json(await server.get(`${server.api}/blogs?limit=0`));
        assert.equal(status.blogs.count, blogs.total, "as /api/blogs counts them: no hidden or unlisted blog");
        assert.equal(status.blogs.count, 5);
        const items = await json(await server.get(`${server.api}/items?limit=100`));
        assert.equal(status.items.count, items.items.length, "as /api/items lists them");
      });
    });

    describe("blog detail and items", () => {
      let server: TestServer;
      let blogA: string;
      let blogB: string;
      let hidden: string;
      before(async () => {
        server = await startTestServer(backend);
        const s = server.storage;
        blogA = (
          await addBlog(s, {
            title: "A",
            category: "One",
            siteUrl: "https://a.example/",
            photo: "https://a.example/p.png",
          })
        ).id;
        blogB = (await addBlog(s, { title: "B", category: "Two" })).id;
        hidden = (await addBlog(s, { title: "H", category: "One", hidden: true })).id;
        const many = Array.from({ length: 24 }, (_, index) => item(`a${index}`, daysAgo(index / 10 + 0.01)));
        await addItems(s, blogA, [
          ...many,
          item("a-undated", null),
          item("a-future", new Date(Date.now() + 86_400_000)),
        ]);
        await addItems(s, blogB, [item("b0", daysAgo(0.05)), item("b-undated", null)]);
        await addItems(s, hidden, [item("h0", daysAgo(0.02))]);
      });
      after(() => server.close());

      it("GET /api/blogs/:id returns the blog and its 20 newest items, future first", async () => {
        const response = await server.get(`${server.api}/blogs/${blogA}`);
        assert.equal(response.status, 200);
        const body = await json(response);
        assert.equal(body.id, blogA);
        assert.equal(body.title, "A");
        assert.equal(body.items.length, 20);
        assert.equal(body.items[0].title, "Post a-future");
        assert.equal(body.items[0].isFuture, true);
        assert.equal(body.items[1].title, "Post a0");
        assert.equal(body.items[1].isFuture, false);
        for (const entry of body.items) assert.deepEqual(Object.keys(entry).sort(), [...ITEM_FIELDS].sort());
        const upper = await server.get(`${server.api}/blogs/${blogA.toUpperCase()}`);
        assert.equal(upper.status, 200);
      });

      it("GET /api/items: newest first across visible blogs, undated last, with blog context", async () => {
        const body = await json(await server.get(`${server.api}/items?limit=200`));
        const titles = body.items.map((entry: { title: string }) => entry.title);
        assert.equal(titles.length, 28); // 26 of A + 2 of B; the hidden blog's item is left out
        assert.equal(titles[0], "Post a-future");
        assert.equal(titles[1], "Post a0");
        assert.equal(titles[2], "Post b0");
        assert.deepEqual(new Set(titles.slice(-2)), new Set(["Post a-undated", "Post b-undated"]));
        assert.ok(!titles.includes("Post h0"));
        const undated = body.items.find((entry: { title: string }) => entry.title === "Post b-undated");
        assert.equal("published" in undated, false, "an unknown date stays absent");
        assert.equal(undated.isFuture, false);
        assert.deepEqual(undated.blog, { id: blogB, title: "B", siteUrl: null, category: "Two", photo: null });
        const first = body.items[1];
        assert.deepEqual(first.blog, {
          id: blogA,
          title: "A",
          siteUrl: "https://a.example/",
          category: "One",
          photo: "https://a.example/p.png",
        });
        assert.equal(body.hasMore, false);
      });

      it("GET /api/items pages with limit, offset and hasMore (defaults and the 200 clamp: limits.test.ts)", async () => {
        const page = await json(await server.get(`${server.api}/items`));
        assert.equal(page.items.length, 28);
        const small = await json(await server.get(`${server.api}/items?limit=10&offset=10`));
        assert.equal(small.items.length, 10);
        assert.equal(small.hasMore, true);
        const all = await json(await server.get(`${server.api}/items?limit=200`));
        assert.deepEqual(
          small.items.map((e: { id: string }) => e.id),
          all.items.slice(10, 20).map((e: { id: string }) => e.id),
        );
        const end = await json(await server.get(`${server.api}/items?limit=8&offset=20`));
        assert.deepEqual([end.items.length, end.hasMore], [8, false]);
        const past = await json(await server.get(`${server.api}/items?offset=1000`));
        assert.deepEqual(past, { items: [], hasMore: false });
        const zero = await json(await server.get(`${server.api}/items?limit=0`));
        assert.deepEqual(zero, { items: [], hasMore: true });
      });

      it("GET /api/items filters by blog and category; a malformed blog id is 400", async () => {
        const onlyB = await json(await server.get(`${server.api}/items?blog=${blogB}`));
        assert.deepEqual(
          onlyB.items.map((e: { title: string }) => e.title),
          ["Post b0", "Post b-undated"],
        );
        const two = await json(await server.get(`${server.api}/items?category=Two`));
        assert.equal(two.items.length, 2);
        const hiddenBlog = await json(await server.get(`${server.api}/items?blog=${hidden}`));
        assert.deepEqual(hiddenBlog, { items: [], hasMore: false });
        const bad = await server.get(`${server.api}/items?blog=nope`);
        assert.equal(bad.status, 400);
        assert.deepEqual(await json(bad), { error: "Invalid blog ID" });
      });
    });

    describe("query validation", () => {
      let server: TestServer;
      before(async () => {
        server = await startTestServer(backend);
        await addBlog(server.storage, { title: "Only", category: "x" });
      });
      after(() => server.close());

      for (const endpoint of ["blogs", "items"]) {
        for (const name of ["limit", "offset"]) {
          it(`${endpoint}: ${name} that is not a non-negative integer is 400`, async () => {
            for (const value of ["abc", "-1", "1.5", "", "1e3", "0x10", " 5"]) {
              const response = await server.get(`${server.api}/${endpoint}?${name}=${encodeURIComponent(value)}`);
              assert.equal(response.status, 400, `${name}=${value}`);
              assert.deepEqual(await json(response), { error: `Invalid ${name}` });
            }
            const repeated = await server.get(`${server.api}/${endpoint}?${name}=1&${name}=2`);
            assert.equal(repeated.status, 400);
          });
        }
      }

      it("a limit above the maximum is accepted, not refused (the clamp itself: limits.test.ts)", async () => {
        const response = await server.get(`${server.api}/blogs?limit=999999`);
        assert.equal(response.status, 200);
      });

      it("a path parameter that is not valid percent-encoding is that parameter's 400", async () => {
        for (const bad of ["%ZZ", "%E2%82", "abc%"]) {
          const blog = await server.get(`${server.api}/blogs/${bad}`);
          assert.equal(blog.status, 400, bad);
          assert.deepEqual(await json(blog), { error: "Invalid blog ID" });
          assert.equal(blog.headers.get("access-control-allow-origin"), "*");
          const opml = await server.get(`${server.api}/opml/${bad}`);
          assert.equal(opml.status, 400, bad);
          assert.deepEqual(await json(opml), { error: "Invalid category" });
        }
      });

      it("a repeated text parameter is 400; a bracketed one is only ever text", async () => {
        const repeated = await server.get(`${server.api}/blogs?category=a&category=b`);
        assert.equal(repeated.status, 400);
        assert.deepEqual(await json(repeated), { error: "Invalid category" });
        const operator = await json(await server.get(`${server.api}/blogs?category[$ne]=zzz`));
        assert.equal(operator.total, 1);
        const injected = await json(await server.get(`${server.api}/blogs?category=%7B%22%24ne%22%3Anull%7D`));
        assert.deepEqual(injected, { items: [], total: 0, hasMore: false });
        const proto = await server.get(`${server.api}/blogs?__proto__=x&constructor[prototype][polluted]=1`);
        assert.equal(proto.status, 200);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      });
    });

    describe("OPML export", () => {
      let server: TestServer;
      before(async () => {
        server = await startTestServer(backend);
        const s = server.storage;
        await addBlog(s, {
          title: "Tech One",
          category: "Tech & Code",
          siteUrl: "https://one.example/",
          description: "About <code>",
          feedUrl: "https://one.example/feed",
        });
        await addBlog(s, {
          title: "Life One",
          category: "Life",
          feedType: "atom",
          feedUrl: "https://life.example/atom",
        });
        await addBlog(s, { title: "Loose", category: null, feedUrl: "https://loose.example/rss" });
        await addBlog(s, { title: "Secret", category: "Life", hidden: true, feedUrl: "https://secret.example/rss" });
      });
      after(() => server.close());

      it("exports every visible blog grouped by category with the spec's headers", async () => {
        const response = await server.get(`${server.api}/opml`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "text/x-opml");
        assert.equal(response.headers.get("content-disposition"), 'attachment; filename="blogroll.opml"');
        const text = await response.text();
        assert.match(text, /<title>Blogroll<\/title>/);
        assert.match(text, /<dateCreated>/);
        const parsed = parseOpml(text);
        const byUrl = new Map(parsed.feeds.map((feed) => [feed.xmlUrl, feed]));
        assert.equal(parsed.feeds.length, 3);
        assert.deepEqual(byUrl.get("https://one.example/feed"), {
          xmlUrl: "https://one.example/feed",
          title: "Tech One",
          htmlUrl: "https://one.example/",
          description: "About <code>",
          type: "rss",
          category: "Tech & Code",
        });
        assert.equal(byUrl.get("https://life.example/atom")?.category, "Life");
        assert.equal(
          byUrl.get("https://life.example/atom")?.type,
          "rss",
          "OPML 2.0 subscription lists say rss whatever the format",
        );
        assert.equal(byUrl.get("https://loose.example/rss")?.category, null);
      });

      it("exports one category with an encoded file name", async () => {
        const response = await server.get(`${server.api}/opml/${encodeURIComponent("Tech & Code")}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "text/x-opml");
        assert.equal(
          response.headers.get("content-disposition"),
          'attachment; filename="blogroll-Tech%20%26%20Code.opml"',
        );
        const text = await response.text();
        assert.match(text, /<title>Blogroll - Tech &amp; Code<\/title>/);
        assert.deepEqual(
          parseOpml(text).feeds.map((feed) => feed.title),
          ["Tech One"],
        );
      });
    });

    describe("database faults", () => {
      let server: TestServer;
      before(async () => {
        server = await startTestServer(backend);
      });
      after(() => server.close());

      it("every endpoint answers the spec's 500 body, without a stack", async () => {
        const storage = server.storage;
        const failing = new Error("disk on fire");
        const restore: Array<() => void> = [];
        // Break every storage method the public endpoints use.
        for (const store of [storage.blogs, storage.items, storage.meta] as unknown as Array<Record<string, unknown>>) {
          for (const key of Object.keys(store).concat(Object.getOwnPropertyNames(Object.getPrototypeOf(store)))) {
            const original = store[key];
            if (typeof original !== "function" || key === "constructor") continue;
            store[key] = async () => {
              throw failing;
            };
            restore.push(() => (store[key] = original));
          }
        }
        try {
          const cases: Array<[string, unknown]> = [
            ["/blogs", { error: "Failed to fetch blogs" }],
            ["/blogs/0123456789abcdef01234567", { error: "Failed to fetch blog" }],
            ["/items", { error: "Failed to fetch items" }],
            ["/categories", { error: "Failed to fetch categories" }],
            ["/status", { error: "Failed to fetch status" }],
            ["/opml", { error: "Failed to export OPML" }],
            ["/opml/Tech", { error: "Failed to export OPML" }],
          ];
          for (const [pathname, body] of cases) {
            const response = await server.get(`${server.api}${pathname}`);
            assert.equal(response.status, 500, pathname);
            assert.match(response.headers.get("content-type") ?? "", /^application\/json/, pathname);
            const text = await response.text();
            assert.deepEqual(JSON.parse(text), body);
            assert.doesNotMatch(text, /disk on fire|at .*\.ts/);
            // The cause goes to the operator's log instead.
            assert.ok(
              server.logs.some(
                (line) => line.startsWith("error:") && line.includes(pathname) && line.includes("disk on fire"),
              ),
              `logged: ${pathname}`,
            );
          }
        } finally {
          for (const undo of restore) undo();
        }
        const healed = await server.get(`${server.api}/blogs`);
        assert.equal(healed.status, 200);
      });
    });
  });
}
