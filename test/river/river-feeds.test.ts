import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { parseFeed } from "../../lib/feeds/parse.js";
import { parseOpml } from "../../lib/opml/parse.js";
import { ATOM_NS } from "../../lib/river/atom.js";
import { BuiltBodies } from "../../lib/river/built-bodies.js";
import { createRiverRouter } from "../../lib/river/routes.js";
import { JSON_FEED_VERSION } from "../../lib/river/json-feed.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import {
  describeBackend,
  httpBackends,
  installMicrosubCollections,
  startTestServer,
  type TestServer,
} from "../support/server.js";
import { all, child, children, parseXml, readWithFeedparser, RFC3339, XMLNS_NS, type XmlNode } from "../support/xml.js";
import { OWNER_ORIGIN } from "../../lib/storage/types.js";

after(() => closeParsePool());

const UUID_URN = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const MARKUP_TITLE = `<script>alert("x")</script><b>Bold</b> & "quoted"`;

for (const backend of httpBackends()) {
  describe(`river feeds on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let river: string;
    const now = Date.now();
    const ids: Record<string, string> = {};

    before(async () => {
      server = await startTestServer(backend);
      river = `${server.baseUrl}${server.plugin.mountPath}`;
      const s = server.storage;
      const alpha = await addBlog(s, {
        title: "Alpha Notes",
        category: "Friends",
        siteUrl: "https://alpha.example/",
        feedUrl: "https://alpha.example/feed.xml",
        photo: "https://alpha.example/icon.png",
        author: "Ada",
      });
      const beta = await addBlog(s, {
        title: MARKUP_TITLE,
        category: "Tech",
        siteUrl: "https://beta.example/",
        feedUrl: "https://beta.example/feed.xml",
      });
      const hidden = await addBlog(s, { title: "Hidden Blog", category: "Friends", hidden: true });
      const deleted = await addBlog(s, { title: "Deleted Blog", category: "Friends", deleted: true });
      ids.alpha = alpha.id;
      ids.beta = beta.id;
      await addItems(s, alpha.id, [
        item("https://alpha.example/2026/hello", daysAgo(0.5, now), {
          title: "Hello from Alpha",
          categories: ["indieweb", "a&b"],
          author: null,
        }),
        item("42", daysAgo(2, now), {
          title: "Old Alpha post",
          url: "https://alpha.example/2026/old",
          author: "Guest Writer",
        }),
        item("undated", null, { title: "Undated Alpha post", url: "https://alpha.example/undated" }),
      ]);
      await addItems(s, beta.id, [
        item("https://beta.example/p/1", daysAgo(1, now), {
          title: MARKUP_TITLE,
          content: null,
          summary: "Plain summary",
        }),
      ]);
      await addItems(s, hidden.id, [item("hidden-post", daysAgo(0.1, now), { title: "Hidden post" })]);
      await addItems(s, deleted.id, [item("deleted-post", daysAgo(0.1, now), { title: "Deleted post" })]);
      // Whether an unlisted blog shows is the storage's visibility rule; its only origin lets go of it.
      const inactive = await addBlog(s, { title: "Inactive Blog", category: "Friends" });
      await s.blogs.unlist(OWNER_ORIGIN, { only: [inactive.id] });
      await addItems(s, inactive.id, [item("inactive-post", daysAgo(0.1, now), { title: "Inactive post" })]);
      assert.deepEqual((await s.blogs.get(inactive.id))?.origins, []);
    });
    after(() => server.close());

    describe("Atom", () => {
      let xml: string;
      let response: Response;
      before(async () => {
        response = await server.get(`${river}/river.atom`);
        xml = await response.text();
      });

      it("is served as Atom with the API's CORS and caching headers", () => {
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/atom+xml; charset=utf-8");
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.equal(response.headers.get("cache-control"), "public, max-age=300");
        assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/);
        assert.ok(Date.parse(response.headers.get("last-modified") ?? "") > 0);
      });

      it("is well-formed, and every element and attribute is where Atom puts it", () => {
        const feed = parseXml(xml);
        assert.equal(feed.local, "feed");
        for (const node of all(feed)) {
          assert.equal(node.uri, ATOM_NS, `<${node.local}> in the Atom namespace`);
          for (const [name, attribute] of Object.entries(node.attributes)) {
            if (attribute.uri !== XMLNS_NS) assert.equal(attribute.uri, "", `${node.local}@${name} unqualified`);
          }
        }
      });

      it("has the feed-level elements: id, title, subtitle, updated (= newest entry), self and alternate links, generator", () => {
        const feed = parseXml(xml);
        assert.equal(child(feed, "id")?.text, `${river}/river.atom`);
        assert.equal(child(feed, "title")?.text, "Blogroll");
        assert.equal(child(feed, "subtitle")?.text, "The newest posts of the blogs in this blogroll");
        const links = children(feed, "link").map(
          (link) => `${link.attributes.rel?.value} ${link.attributes.type?.value} ${link.attributes.href?.value}`,
        );
        assert.deepEqual(links.sort(), [
          `alternate application/feed+json ${river}/river.json`,
          `alternate application/rss+xml ${river}/river.rss`,
          `alternate text/html ${server.baseUrl}/`,
          `self application/atom+xml ${river}/river.atom`,
        ]);
        assert.equal(child(feed, "generator")?.text, "indiekit-endpoint-blogroll");
        const entryUpdates = children(feed, "entry").map((entry) => Date.parse(child(entry, "updated")?.text ?? ""));
        assert.equal(Date.parse(child(feed, "updated")?.text ?? ""), Math.max(...entryUpdates));
      });

      it("lists the visible blogs' posts newest first (undated last), never a hidden, deleted or unlisted blog's", () => {
        const titles = children(parseXml(xml), "entry").map((entry) => child(entry, "title")?.text);
        assert.deepEqual(titles, ["Hello from Alpha", MARKUP_TITLE, "Old Alpha post", "Undated Alpha post"]);
      });

      it("gives each entry a stable id, plain-text title, link, dates, author, categories, summary, content and its blog as source", () => {
        const [hello, beta, old, undated] = children(parseXml(xml), "entry");
        assert.match(
          child(hello, "id")?.text ?? "",
          UUID_URN,
          "an id of the blog and the post, not of the feed address",
        );
        assert.match(child(old, "id")?.text ?? "", UUID_URN);
        assert.notEqual(child(hello, "id")?.text, child(old, "id")?.text);
        assert.equal(child(beta, "title")?.attributes.type?.value, "text");
        assert.equal(child(beta, "title")?.text, MARKUP_TITLE, "markup in a title is text");
        assert.equal(
          child(hello, "link")?.attributes.href?.value,
          "https://example.org/posts/https%3A%2F%2Falpha.example%2F2026%2Fhello",
        );
        assert.match(child(hello, "published")?.text ?? "", RFC3339);
        assert.equal(child(hello, "published")?.text, child(hello, "updated")?.text);
        assert.equal(child(undated, "published"), undefined, "no invented publication date");
        assert.match(
          child(undated, "updated")?.text ?? "",
          RFC3339,
          "Atom requires updated: when it was first fetched",
        );
        assert.equal(child(child(hello, "author") as XmlNode, "name")?.text, "Alpha Notes", "no post author: the blog");
        assert.equal(child(child(hello, "author") as XmlNode, "uri")?.text, "https://alpha.example/");
        assert.equal(child(child(old, "author") as XmlNode, "name")?.text, "Guest Writer");
        assert.deepEqual(
          children(hello, "category").map((category) => category.attributes.term?.value),
          ["indieweb", "a&b"],
        );
        assert.equal(child(hello, "summary")?.text, "Summary of https://alpha.example/2026/hello");
        assert.equal(child(hello, "content")?.attributes.type?.value, "html");
        assert.equal(child(hello, "content")?.text, "<p>Content of https://alpha.example/2026/hello</p>");
        assert.equal(child(beta, "content"), undefined);
        assert.equal(child(beta, "summary")?.text, "Plain summary");

        const source = child(hello, "source") as XmlNode;
        assert.equal(child(source, "id")?.text, "https://alpha.example/feed.xml");
        assert.equal(child(source, "title")?.text, "Alpha Notes");
        assert.equal(child(source, "icon")?.text, "https://alpha.example/icon.png");
        assert.equal(child(child(source, "author") as XmlNode, "name")?.text, "Ada");
        const sourceLinks = children(source, "link").map(
          (link) => `${link.attributes.rel?.value} ${link.attributes.href?.value}`,
        );
        assert.deepEqual(sourceLinks, ["self https://alpha.example/feed.xml", "alternate https://alpha.example/"]);
      });

      it("reads in a feed reader (feedparser) and in this project's own parser", async () => {
        const { meta, items } = await readWithFeedparser(xml);
        assert.equal(meta.title, "Blogroll");
        // feedparser strips tags from every title, so the markup title is checked with our parser below.
        assert.deepEqual(
          items.map((entry) => entry.title),
          ["Hello from Alpha", 'alert("x")Bold & "quoted"', "Old Alpha post", "Undated Alpha post"],
        );
        assert.equal(items[0].link, "https://example.org/posts/https%3A%2F%2Falpha.example%2F2026%2Fhello");
        assert.equal(
          items[0].pubdate?.getTime(),
          Date.parse(children(parseXml(xml), "entry")[0].children.find((n) => n.local === "published")?.text ?? ""),
        );
        const ours = await parseFeed(xml, { url: `${river}/river.atom`, contentType: "application/atom+xml" });
        assert.equal(ours.feed.type, "atom");
        // Our parser dates an entry by published, else updated: the undated post sorts by its fetch time there.
        assert.deepEqual(
          ours.items.map((entry) => entry.title).sort(),
          ["Hello from Alpha", MARKUP_TITLE, "Old Alpha post", "Undated Alpha post"].sort(),
        );
      });
    });

    describe("JSON Feed", () => {
      let feed: Record<string, unknown> & { items: Array<Record<string, unknown>> };
      let response: Response;
      before(async () => {
        response = await server.get(`${river}/river.json`);
        feed = await response.json();
      });

      it("is served as JSON Feed with the API's CORS and caching headers", () => {
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/feed+json; charset=utf-8");
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.equal(response.headers.get("cache-control"), "public, max-age=300");
        assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/);
      });

      it("names its top-level fields as JSON Feed 1.1 does", () => {
        assert.deepEqual(Object.keys(feed).sort(), [
          "description",
          "feed_url",
          "home_page_url",
          "items",
          "title",
          "version",
        ]);
        assert.equal(feed.version, JSON_FEED_VERSION);
        assert.equal(feed.version, "https://jsonfeed.org/version/1.1");
        assert.equal(feed.title, "Blogroll");
        assert.equal(feed.feed_url, `${river}/river.json`);
        assert.equal(feed.home_page_url, `${server.baseUrl}/`);
      });

      it("gives each item the 1.1 fields, its blog in authors and in the _blogroll extension", () => {
        const allowed = new Set([
          "id",
          "url",
          "title",
          "content_html",
          "content_text",
          "summary",
          "date_published",
          "authors",
          "tags",
          "_blogroll",
        ]);
        for (const entry of feed.items) {
          for (const key of Object.keys(entry)) assert.ok(allowed.has(key), `item field ${key}`);
          assert.equal(typeof entry.id, "string");
          assert.ok(
            typeof entry.content_html === "string" || typeof entry.content_text === "string",
            "content_html or content_text",
          );
          if (entry.date_published !== undefined) assert.match(String(entry.date_published), RFC3339);
        }
        assert.deepEqual(
          feed.items.map((entry) => entry.title),
          ["Hello from Alpha", MARKUP_TITLE, "Old Alpha post", "Undated Alpha post"],
        );
        const [hello, beta, old, undated] = feed.items;
        assert.match(String(hello.id), UUID_URN);
        assert.match(String(old.id), UUID_URN);
        assert.equal(hello.content_html, "<p>Content of https://alpha.example/2026/hello</p>");
        assert.equal(beta.content_text, "Plain summary");
        assert.equal(undated.date_published, undefined);
        assert.deepEqual(hello.tags, ["indieweb", "a&b"]);
        assert.deepEqual(hello.authors, [
          { name: "Alpha Notes", url: "https://alpha.example/", avatar: "https://alpha.example/icon.png" },
        ]);
        assert.deepEqual(old.authors, [{ name: "Guest Writer" }]);
        assert.deepEqual(hello._blogroll, {
          about: "https://www.npmjs.com/package/indiekit-endpoint-blogroll#river-feeds",
          blog: {
            id: ids.alpha,
            title: "Alpha Notes",
            site_url: "https://alpha.example/",
            feed_url: "https://alpha.example/feed.xml",
            category: "Friends",
            photo: "https://alpha.example/icon.png",
          },
        });
      });

      it("reads in this project's own JSON Feed parser", async () => {
        const ours = await parseFeed(JSON.stringify(feed), {
          url: `${river}/river.json`,
          contentType: "application/feed+json",
        });
        assert.equal(ours.feed.type, "json");
        assert.equal(ours.items.length, 4);
      });
    });

    describe("parameters", () => {
      const atomTitles = async (query: string) => {
        const response = await server.get(`${river}/river.atom${query}`);
        assert.equal(response.status, 200, query);
        return children(parseXml(await response.text()), "entry").map((entry) => child(entry, "title")?.text);
      };

      it("?category= gives one category, titled and addressed as such", async () => {
        assert.deepEqual(await atomTitles("?category=Tech"), [MARKUP_TITLE]);
        const response = await server.get(`${river}/river.json?category=Friends`);
        const feed = await response.json();
        assert.equal(feed.title, "Blogroll - Friends");
        assert.equal(feed.feed_url, `${river}/river.json?category=Friends`);
        assert.deepEqual(
          feed.items.map((entry: { title: string }) => entry.title),
          ["Hello from Alpha", "Old Alpha post", "Undated Alpha post"],
        );
      });

      it("an unknown category, or one with only hidden blogs, is 404 with the API's error shape", async () => {
        for (const path of ["/river.atom?category=Nope", "/river.json?category=Nope"]) {
          const response = await server.get(`${river}${path}`);
          assert.equal(response.status, 404, path);
          assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
          assert.deepEqual(await response.json(), { error: "Category not found" });
        }
        const onlyHidden = await addBlog(server.storage, { title: "Secret", category: "Secret", hidden: true });
        assert.ok(onlyHidden);
        assert.equal((await server.get(`${river}/river.atom?category=Secret`)).status, 404);
      });

      it("?limit= defaults to 50, is clamped to 100, and a bad value is 400 like /api/items", async () => {
        assert.deepEqual(await atomTitles("?limit=2"), ["Hello from Alpha", MARKUP_TITLE]);
        for (const bad of ["-1", "abc", "1.5", "1e3"]) {
          const response = await server.get(`${river}/river.json?limit=${bad}`);
          assert.equal(response.status, 400, bad);
          assert.deepEqual(await response.json(), { error: "Invalid limit" });
        }
        const twice = await server.get(`${river}/river.atom?category=a&category=b`);
        assert.equal(twice.status, 400);
        assert.deepEqual(await twice.json(), { error: "Invalid category" });
      });
    });

    describe("entry ids and dates", () => {
      const jsonItems = async (query = "") => {
        const response = await server.get(`${river}/river.json${query}`);
        return (
          (await response.json()) as {
            items: Array<{ id: string; title: string; _blogroll: { blog: { id: string } } }>;
          }
        ).items;
      };

      it("keep an entry's id when its blog's feed moves (301), and never share one between two blogs", async () => {
        const s = server.storage;
        const first = await addBlog(s, { title: "Moving", category: "Ids", feedUrl: "https://moving.example/old.xml" });
        const second = await addBlog(s, { title: "Twin", category: "Ids", feedUrl: "https://twin.example/feed.xml" });
        const shared = item("https://shared.example/post", daysAgo(0.2, now), { title: "Shared post" });
        await addItems(s, first.id, [shared, item("7", daysAgo(0.3, now), { title: "Local guid" })]);
        await addItems(s, second.id, [shared]);
        const before = await jsonItems("?category=Ids");
        const idOf = (items: typeof before, blogId: string, title: string) =>
          items.find((entry) => entry._blogroll.blog.id === blogId && entry.title === title)?.id;
        assert.notEqual(
          idOf(before, first.id, "Shared post"),
          idOf(before, second.id, "Shared post"),
          "two blogs, two ids",
        );
        await s.blogs.recordFetch(first.id, {
          at: new Date(),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "https://moving.example/new.xml",
        });
        assert.equal((await s.blogs.get(first.id))?.feedUrl, "https://moving.example/new.xml");
        const after = await jsonItems("?category=Ids");
        assert.equal(idOf(after, first.id, "Shared post"), idOf(before, first.id, "Shared post"));
        assert.equal(idOf(after, first.id, "Local guid"), idOf(before, first.id, "Local guid"));
      });

      it("a post dated more than a day ahead neither heads the river nor dates it", async () => {
        const s = server.storage;
        const blog = await addBlog(s, { title: "Time traveller", category: "Ahead" });
        await addItems(s, blog.id, [
          item("future", new Date(now + 3 * 365 * 86_400_000), { title: "From the future" }),
          item("two-days", new Date(now + 2 * 86_400_000), { title: "Two days ahead" }),
          item("recent", daysAgo(0.1, now), { title: "Recent" }),
        ]);
        const response = await server.get(`${river}/river.atom?category=Ahead`);
        const feed = parseXml(await response.text());
        assert.deepEqual(
          children(feed, "entry").map((entry) => child(entry, "title")?.text),
          ["Recent", "From the future", "Two days ahead"],
        );
        assert.ok(
          Date.parse(child(feed, "updated")?.text ?? "") <= Date.now() + 86_400_000,
          "the feed's updated is not years ahead",
        );
        assert.equal((await jsonItems())[0].title !== "From the future", true);
      });
    });

    it("answers a CORS preflight like the API", async () => {
      const response = await server.get(`${river}/river.json`, { method: "OPTIONS" });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-headers"), "If-None-Match, Last-Event-ID");
    });

    it("the OPML export links the rivers in its head and still re-imports", async () => {
      for (const [path, search] of [
        ["/api/opml", ""],
        ["/api/opml/Friends", "?category=Friends"],
      ]) {
        const opml = await (await server.get(`${river}${path}`)).text();
        const head = child(parseXml(opml), "head") as XmlNode;
        const links = children(head, "link").map((link) => ({
          uri: link.uri,
          type: link.attributes.type?.value,
          href: link.attributes.href?.value,
        }));
        assert.deepEqual(links, [
          { uri: ATOM_NS, type: "application/atom+xml", href: `${river}/river.atom${search}` },
          { uri: ATOM_NS, type: "application/feed+json", href: `${river}/river.json${search}` },
          { uri: ATOM_NS, type: "application/rss+xml", href: `${river}/river.rss${search}` },
        ]);
        assert.ok(
          parseOpml(opml).feeds.some((feed) => feed.title === "Alpha Notes"),
          path,
        );
      }
    });
  });
}

describe("river feeds: conditional GET (SQLite)", () => {
  let server: TestServer;
  let atom: string;
  let blogId: string;

  before(async () => {
    server = await startTestServer("sqlite", { cacheMaxAge: 60 });
    atom = `${server.baseUrl}${server.plugin.mountPath}/river.atom`;
    const blog = await addBlog(server.storage, { title: "Alpha", category: "Friends" });
    const other = await addBlog(server.storage, { title: "Beta", category: "Friends" });
    blogId = other.id;
    await addItems(server.storage, blog.id, [item("a1", daysAgo(1))]);
    await addItems(server.storage, other.id, [item("b1", daysAgo(2))]);
  });
  after(() => server.close());

  it("uses the cacheMaxAge option", async () => {
    assert.equal((await server.get(atom)).headers.get("cache-control"), "public, max-age=60");
  });

  it("answers 304 to a matching If-None-Match, and to an If-Modified-Since not older than Last-Modified", async () => {
    const first = await server.get(atom);
    const etag = first.headers.get("etag") as string;
    const lastModified = first.headers.get("last-modified") as string;
    await first.text();
    const byTag = await server.get(atom, { headers: { "If-None-Match": etag } });
    assert.equal(byTag.status, 304);
    assert.equal(await byTag.text(), "");
    assert.equal(byTag.headers.get("etag"), etag);
    const byDate = await server.get(atom, { headers: { "If-Modified-Since": lastModified } });
    assert.equal(byDate.status, 304);
    const olderDate = await server.get(atom, {
      headers: { "If-Modified-Since": new Date(Date.parse(lastModified) - 1000).toUTCString() },
    });
    assert.equal(olderDate.status, 200);
    // If-None-Match wins over If-Modified-Since (RFC 9110): a stale tag gets the body whatever the date.
    const staleTag = await server.get(atom, {
      headers: { "If-None-Match": '"stale"', "If-Modified-Since": lastModified },
    });
    assert.equal(staleTag.status, 200);
  });

  it("a change without a newer post (a blog hidden) gets a new ETag and a later Last-Modified: the old validators get the new body", async () => {
    const before = await server.get(atom);
    const etag = before.headers.get("etag") as string;
    const lastModified = before.headers.get("last-modified") as string;
    assert.match(await before.text(), /Post b1/);
    await server.storage.blogs.edit(blogId, { hidden: true });
    const byTag = await server.get(atom, { headers: { "If-None-Match": etag } });
    assert.equal(byTag.status, 200);
    assert.doesNotMatch(await byTag.text(), /Post b1/);
    assert.notEqual(byTag.headers.get("etag"), etag);
    assert.ok(Date.parse(byTag.headers.get("last-modified") as string) > Date.parse(lastModified));
    const byDate = await server.get(atom, { headers: { "If-Modified-Since": lastModified } });
    assert.equal(byDate.status, 200, "a client holding the old body by date is not told it is current");
  });

  it("an empty river is valid Atom with a fixed updated date (its ETag stays stable)", async () => {
    const empty = await startTestServer("sqlite");
    try {
      const url = `${empty.baseUrl}${empty.plugin.mountPath}/river.atom`;
      const first = await empty.get(url);
      const feed = parseXml(await first.text());
      assert.equal(children(feed, "entry").length, 0);
      assert.equal(child(feed, "updated")?.text, "1970-01-01T00:00:00.000Z");
      const again = await empty.get(url, { headers: { "If-None-Match": first.headers.get("etag") as string } });
      assert.equal(again.status, 304);
    } finally {
      await empty.close();
    }
  });
});

describe("river feeds: limits and the Microsub merge (MongoDB adapter on the mingo stand-in)", () => {
  let server: TestServer;
  let json: string;

  before(async () => {
    server = await startTestServer("mongo-standin");
    json = `${server.baseUrl}${server.plugin.mountPath}/river.json`;
    const own = await addBlog(server.storage, { title: "Own", category: "Friends" });
    const now = Date.now();
    await addItems(
      server.storage,
      own.id,
      Array.from({ length: 120 }, (_, n) => item(`own${n}`, new Date(now - (2 * n + 1) * 60_000))),
    );
    const { channels, feeds, items } = installMicrosubCollections(server);
    const channelId = new ObjectId();
    const feedId = new ObjectId();
    await channels.insertOne({ _id: channelId, uid: "friends", name: "Friends", order: 0 });
    await feeds.insertOne({
      _id: feedId,
      channelId,
      url: "https://alice.example/feed",
      title: "Alice",
      photo: null,
      status: "active",
      lastFetchedAt: null,
    });
    await addBlog(server.storage, {
      title: "Alice",
      category: "Friends",
      source: "microsub",
      microsubFeedId: feedId.toHexString(),
      microsubChannelName: "Friends",
      siteUrl: "https://alice.example/",
      feedUrl: "https://alice.example/feed",
    });
    // Alice's posts fall between our own: 0, 2, 4 minutes ago.
    await items.insertMany(
      [0, 2, 4].map((minutes) => ({
        _id: new ObjectId(),
        feedId,
        channelId,
        uid: `https://alice.example/${minutes}`,
        url: `https://alice.example/${minutes}`,
        name: `Alice ${minutes}`,
        summary: "s",
        content: { text: "t", html: "<p>t</p>" },
        published: new Date(now - minutes * 60_000),
        author: { name: "Alice" },
        photo: [],
        category: [],
      })),
    );
  });
  after(() => server.close());

  const entries = async (query: string) => {
    const response = await server.get(`${json}${query}`);
    assert.equal(response.status, 200, query);
    return (await response.json()).items as Array<{ title: string; _blogroll: { blog: { title: string } } }>;
  };

  it("gives 50 entries by default and at most 100", async () => {
    assert.equal((await entries("")).length, 50);
    assert.equal((await entries("?limit=500")).length, 100);
    assert.equal((await entries("?limit=0")).length, 0);
  });

  it("merges the Microsub blogs' posts into the same newest-first order, with their blog", async () => {
    const first = await entries("?limit=6");
    assert.deepEqual(
      first.map((entry) => entry.title),
      ["Alice 0", "Post own0", "Alice 2", "Post own1", "Alice 4", "Post own2"],
    );
    assert.equal(first[0]._blogroll.blog.title, "Alice");
    assert.deepEqual(
      (await entries("?category=Friends&limit=3")).map((entry) => entry.title),
      ["Alice 0", "Post own0", "Alice 2"],
    );
  });
});

describe("river body cache: keyed on format, category and limit, bounded in bytes", () => {
  let server: TestServer;
  let base: string;
  let listening: import("node:http").Server;
  const bodies = new BuiltBodies(64 * 1024);

  before(async () => {
    server = await startTestServer("sqlite");
    const blog = await addBlog(server.storage, { title: "Cached", category: "Cats" });
    await addItems(server.storage, blog.id, [item("c1", daysAgo(0.1)), item("c2", daysAgo(0.2))]);
    const express = (await import("express")).default;
    const app = express();
    app.use(createRiverRouter(server.plugin.context, { bodies }));
    await new Promise<void>((resolve) => (listening = app.listen(0, "127.0.0.1", () => resolve())));
    base = `http://127.0.0.1:${(listening.address() as import("node:net").AddressInfo).port}`;
  });
  after(async () => {
    listening.closeAllConnections();
    await new Promise((resolve) => listening.close(resolve));
    await server.close();
  });

  it("200 query strings and Host headers keep one body per river, not one per address", async () => {
    for (let index = 0; index < 100; index++) {
      assert.equal((await fetch(`${base}/river.atom?junk=${index}&utm_source=${"x".repeat(index)}`)).status, 200);
      const viaHost = await new Promise<number>((resolve, reject) => {
        import("node:http").then(({ get }) =>
          get(`${base}/river.json`, { headers: { Host: `host${index}.example` } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          }).on("error", reject),
        );
      });
      assert.equal(viaHost, 200);
    }
    assert.equal(bodies.size, 2, "one Atom and one JSON river");
    await fetch(`${base}/river.atom?category=Cats`);
    await fetch(`${base}/river.atom?category=Cats&limit=5`);
    assert.equal(bodies.size, 4);
    assert.ok(bodies.bytes <= 64 * 1024);
  });
});
