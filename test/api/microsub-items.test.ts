import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { installMicrosubCollections, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { logIn } from "../admin/admin-session.js";

const ITEM_FIELDS = [
  "id",
  "url",
  "title",
  "summary",
  "published",
  "isFuture",
  "author",
  "photo",
  "categories",
  "blog",
].sort();

interface ApiItem {
  id: string;
  title: string;
  published?: string;
  blog: { id: string; title: string; siteUrl: string | null; category: string | null; photo: string | null } | null;
}

/**
 * Issue 3: Microsub blogs' items are read from the Microsub plugin's
 * microsub_items (never copied) and merged into /api/items in the same
 * newest-first order and pages as the blogroll's own items. MongoDB adapter
 * on the mingo stand-in (not a real MongoDB server).
 */
describe("GET /api/items merges Microsub items (MongoDB adapter on the mingo stand-in)", () => {
  let server: TestServer;
  const ids: Record<string, string> = {};
  const now = Date.now();

  before(async () => {
    server = await startTestServer("mongo-standin");
    const { channels, feeds, items } = installMicrosubCollections(server);
    const channelId = new ObjectId();
    await channels.insertOne({ _id: channelId, uid: "friends", name: "Friends", order: 0 });
    const feed = async (url: string) => {
      const _id = new ObjectId();
      await feeds.insertOne({ _id, channelId, url, title: url, photo: null, status: "active", lastFetchedAt: null });
      return _id;
    };
    const alice = await feed("https://alice.example/feed");
    const bob = await feed("https://bob.example/feed");
    const carol = await feed("https://carol.example/feed");
    const orphan = await feed("https://orphan.example/feed");

    const s = server.storage;
    ids.own = (await addBlog(s, { title: "Own", category: "Friends", siteUrl: "https://own.example/" })).id;
    ids.alice = (
      await addBlog(s, {
        title: "Alice",
        category: "Friends",
        source: "microsub",
        microsubFeedId: alice.toHexString(),
        microsubChannelName: "Friends",
        siteUrl: "https://alice.example/",
        photo: "https://alice.example/me.png",
        feedUrl: "https://alice.example/feed",
      })
    ).id;
    ids.bob = (
      await addBlog(s, {
        title: "Bob",
        category: "Tech",
        source: "microsub",
        microsubFeedId: bob.toHexString(),
        feedUrl: "https://bob.example/feed",
      })
    ).id;
    ids.carol = (
      await addBlog(s, {
        title: "Carol",
        category: "Friends",
        source: "microsub",
        microsubFeedId: carol.toHexString(),
        hidden: true,
        feedUrl: "https://carol.example/feed",
      })
    ).id;

    // Own items at 0.1, 0.3, 0.5, 0.7, 0.9 days ago and one undated.
    await addItems(s, ids.own, [
      ...[1, 3, 5, 7, 9].map((n) => item(`own${n}`, daysAgo(n / 10, now))),
      item("own-undated", null),
    ]);
    const doc = (feedId: ObjectId, name: string, published: Date | null) => ({
      _id: new ObjectId(),
      feedId,
      channelId,
      uid: `https://x.example/${name}`,
      url: `https://x.example/${name}`,
      name: `Post ${name}`,
      summary: `Summary ${name}`,
      content: { text: name, html: `<p>${name}</p>` },
      author: { name: "Someone", url: null, photo: null },
      photo: [],
      category: ["notes"],
      ...(published ? { published } : {}),
    });
    await items.insertMany([
      // Alice: 0.2, 0.4, 0.6, 0.8, 1.0 days ago and one undated (no `published` at all).
      ...[2, 4, 6, 8, 10].map((n) => doc(alice, `alice${n}`, daysAgo(n / 10, now))),
      doc(alice, "alice-undated", null),
      // Bob (another category): 0.05 and 0.15 days ago.
      doc(bob, "bob05", daysAgo(0.05, now)),
      doc(bob, "bob15", daysAgo(0.15, now)),
      // A hidden blog's item and an item of a feed with no blog never appear.
      doc(carol, "carol", daysAgo(0.01, now)),
      doc(orphan, "orphan", daysAgo(0.02, now)),
      // Stripped by the Microsub plugin's retention: only ids and dates are left; never listed.
      {
        _id: new ObjectId(),
        feedId: alice,
        channelId,
        uid: "https://x.example/stripped",
        published: daysAgo(0.03, now),
        _stripped: true,
      },
    ]);
  });
  after(() => server.close());

  const list = async (query: string) => {
    const response = await server.get(`${server.api}/items${query}`);
    assert.equal(response.status, 200, query);
    return (await response.json()) as { items: ApiItem[]; hasMore: boolean };
  };
  const titles = (body: { items: ApiItem[] }) => body.items.map((entry) => entry.title);

  const DATED = [
    "Post bob05",
    "Post own1",
    "Post bob15",
    "Post alice2",
    "Post own3",
    "Post alice4",
    "Post own5",
    "Post alice6",
    "Post own7",
    "Post alice8",
    "Post own9",
    "Post alice10",
  ];

  it("orders both sides newest first in one list, undated items last", async () => {
    const body = await list("?limit=200");
    assert.deepEqual(titles(body).slice(0, DATED.length), DATED);
    assert.deepEqual(new Set(titles(body).slice(DATED.length)), new Set(["Post own-undated", "Post alice-undated"]));
    assert.equal(body.items.length, DATED.length + 2);
    assert.equal(body.hasMore, false);
    const undated = body.items.find((entry) => entry.title === "Post alice-undated")!;
    assert.equal("published" in undated, false, "a Microsub item without a date gets none");
    for (const entry of body.items) {
      const expected = entry.title.endsWith("undated")
        ? ITEM_FIELDS.filter((field) => field !== "published")
        : ITEM_FIELDS;
      assert.deepEqual(Object.keys(entry).sort(), expected, entry.title);
    }
  });

  it("pages across both sides exactly like slices of the whole list", async () => {
    const all = (await list("?limit=200")).items.map((entry) => entry.id);
    for (const [offset, limit] of [
      [0, 1],
      [0, 3],
      [1, 1],
      [2, 5],
      [5, 5],
      [9, 4],
      [10, 4],
      [13, 1],
      [14, 3],
      [0, 14],
      [0, 13],
      [20, 5],
    ]) {
      const page = await list(`?offset=${offset}&limit=${limit}`);
      assert.deepEqual(
        page.items.map((entry) => entry.id),
        all.slice(offset, offset + limit),
        `offset=${offset} limit=${limit}`,
      );
      assert.equal(page.hasMore, offset + limit < all.length, `hasMore at offset=${offset} limit=${limit}`);
    }
    const zero = await list("?limit=0");
    assert.deepEqual(zero, { items: [], hasMore: true });
  });

  it("caps offset at 10 000 when merging: deeper pages are 400, neither store is asked for more rows", async () => {
    const asked: number[] = [];
    const items = server.storage.items;
    const original = items.list;
    items.list = (query) => {
      asked.push(query.limit);
      return original.call(items, query);
    };
    try {
      for (const offset of ["10001", "999999999999999"]) {
        const response = await server.get(`${server.api}/items?offset=${offset}`);
        assert.equal(response.status, 400, offset);
        assert.deepEqual(await response.json(), { error: "Invalid offset" });
      }
      assert.deepEqual(asked, [], "refused before storage is asked");
      assert.deepEqual(await list("?offset=10000&limit=200"), { items: [], hasMore: false });
      assert.ok(asked.length > 0 && asked.every((limit) => limit <= 10_000 + 200 + 1), `rows asked for: ${asked}`);
    } finally {
      items.list = original;
    }
  });

  it("gives Microsub items their blog's context", async () => {
    const body = await list("?limit=200");
    const alice = body.items.find((entry) => entry.title === "Post alice2")!;
    assert.deepEqual(alice.blog, {
      id: ids.alice,
      title: "Alice",
      siteUrl: "https://alice.example/",
      category: "Friends",
      photo: "https://alice.example/me.png",
    });
    const own = body.items.find((entry) => entry.title === "Post own1")!;
    assert.equal(own.blog?.id, ids.own);
    assert.equal(body.items.find((entry) => entry.title === "Post bob05")!.blog?.title, "Bob");
  });

  it("filters by category and by blog on both sides", async () => {
    const friends = await list("?category=Friends&limit=200");
    assert.deepEqual(
      titles(friends).slice(0, 10),
      DATED.filter((title) => !title.includes("bob")),
    );
    assert.equal(friends.items.length, 12);
    const tech = await list("?category=Tech");
    assert.deepEqual(titles(tech), ["Post bob05", "Post bob15"]);
    const onlyAlice = await list(`?blog=${ids.alice}&limit=3`);
    assert.deepEqual([titles(onlyAlice), onlyAlice.hasMore], [["Post alice2", "Post alice4", "Post alice6"], true]);
    const aliceRest = await list(`?blog=${ids.alice}&offset=3`);
    assert.deepEqual(
      [titles(aliceRest), aliceRest.hasMore],
      [["Post alice8", "Post alice10", "Post alice-undated"], false],
    );
    const onlyOwn = await list(`?blog=${ids.own}`);
    assert.equal(onlyOwn.items.length, 6);
    assert.ok(onlyOwn.items.every((entry) => entry.blog?.id === ids.own));
    assert.deepEqual(await list(`?blog=${ids.alice}&category=Tech`), { items: [], hasMore: false });
    assert.deepEqual(await list(`?blog=${ids.carol}`), { items: [], hasMore: false });
  });

  it("GET /api/blogs/:id of a Microsub blog reads its items the same way", async () => {
    const response = await server.get(`${server.api}/blogs/${ids.alice}`);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.microsubChannel, "Friends");
    assert.deepEqual(
      body.items.map((entry: { title: string }) => entry.title),
      ["Post alice2", "Post alice4", "Post alice6", "Post alice8", "Post alice10", "Post alice-undated"],
    );
    assert.equal((await server.get(`${server.api}/blogs/${ids.carol}`)).status, 404);
  });

  it("without the Microsub collections, only the blogroll's own items are listed", async () => {
    const saved = ["microsub_channels", "microsub_feeds", "microsub_items"].map(
      (name) => [name, server.collections.get(name)] as const,
    );
    for (const [name] of saved) server.collections.delete(name);
    try {
      const body = await list("?limit=200");
      assert.deepEqual(titles(body), [
        "Post own1",
        "Post own3",
        "Post own5",
        "Post own7",
        "Post own9",
        "Post own-undated",
      ]);
      const detail = await (await server.get(`${server.api}/blogs/${ids.alice}`)).json();
      assert.deepEqual(detail.items, []);
    } finally {
      for (const [name, collection] of saved) server.collections.set(name, collection);
    }
  });
});

describe("Microsub items get the URL and HTML rules of fetched items (MongoDB adapter on the mingo stand-in)", () => {
  let server: TestServer;
  let blogId: string;

  before(async () => {
    server = await startTestServer("mongo-standin");
    const { channels, feeds, items } = installMicrosubCollections(server);
    const channelId = new ObjectId();
    await channels.insertOne({ _id: channelId, uid: "friends", name: "Friends", order: 0 });
    const feedId = new ObjectId();
    await feeds.insertOne({
      _id: feedId,
      channelId,
      url: "https://mallory.example/feed",
      title: "M",
      photo: null,
      status: "active",
      lastFetchedAt: null,
    });
    blogId = (
      await addBlog(server.storage, {
        title: "Mallory",
        category: "Friends",
        source: "microsub",
        microsubFeedId: feedId.toHexString(),
        feedUrl: "https://mallory.example/feed",
      })
    ).id;
    await items.insertMany([
      {
        _id: new ObjectId(),
        feedId,
        channelId,
        uid: "hostile",
        url: "javascript:alert(document.cookie)",
        name: "Click me",
        content: {
          html: `<p>Hi<script>alert(1)</script><a href="javascript:alert(2)">x</a><img src="/local.png" onerror="alert(3)"></p>`,
          text: "Hi",
        },
        photo: ["javascript:alert(4)"],
        author: { name: "  Mallory  " },
        category: ["a"],
        published: daysAgo(0.1),
      },
      {
        _id: new ObjectId(),
        feedId,
        channelId,
        uid: "relative",
        url: "/posts/1",
        name: "Relative",
        content: { html: `<p>ok</p>` },
        photo: ["data:image/png;base64,AAAA"],
        published: daysAgo(0.2),
      },
    ]);
  });
  after(() => server.close());

  it("answers only absolute http(s) URLs and sanitised HTML, in /api/items, the rivers and the admin", async () => {
    const body = (await (await server.get(`${server.api}/items`)).json()) as {
      items: Array<{ title: string; url: string | null; photo: string | null; author: string | null }>;
    };
    const hostile = body.items.find((entry) => entry.title === "Click me");
    assert.ok(hostile);
    assert.equal(hostile.url, null, "a javascript: link is no link");
    assert.equal(hostile.photo, null);
    assert.equal(hostile.author, "Mallory");
    assert.equal(
      body.items.find((entry) => entry.title === "Relative")?.url,
      null,
      "a relative URL has no base to resolve against",
    );
    assert.equal(body.items.find((entry) => entry.title === "Relative")?.photo, null);

    const river = await (await server.get(`${server.baseUrl}${server.plugin.mountPath}/river.json`)).text();
    assert.doesNotMatch(river, /javascript:|<script|onerror/i);
    assert.match(river, /<p>Hi/);

    const admin = await logIn(server);
    const blogPage = await admin.page(`${server.plugin.mountPath}/blogs/${blogId}`);
    assert.equal(blogPage.status, 200);
    assert.match(blogPage.html, /Click me/, "the blog's page lists its Microsub items");
    assert.doesNotMatch(blogPage.html, /javascript:alert/);
  });
});
