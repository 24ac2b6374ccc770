import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { ADMIN_TOKEN, installMicrosubCollections, startTestServer, type TestServer } from "../support/server.js";
import { addBlog } from "../support/seed.js";
import { microsubFollow } from "../support/microsub-follow.js";
import { OWNER_ORIGIN } from "../../lib/storage/types.js";
import { DAY } from "../../lib/time/durations.js";

const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** The microsub_* collections as the Microsub plugin shapes them (host-contract.md), on the stand-in. */
async function installMicrosub(server: TestServer) {
  const { channels, feeds, items } = installMicrosubCollections(server);
  const channelId = new ObjectId();
  await channels.insertOne({ _id: channelId, uid: "friends", name: "Friends", order: 0 });
  const feedId = new ObjectId();
  await feeds.insertOne({
    _id: feedId,
    channelId,
    url: "https://alice.example/feed.xml",
    title: "Alice",
    photo: null,
    status: "active",
    lastFetchedAt: null,
  });
  return { channelId, feedId, items };
}

describe("POST /api/microsub-webhook on the MongoDB adapter over the mingo stand-in (not a real MongoDB server)", () => {
  let server: TestServer;
  const post = (body: unknown, headers: Record<string, string> = { "Content-Type": "application/json" }) =>
    server.get(`${server.api}/microsub-webhook`, {
      method: "POST",
      headers: { ...AUTH, ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const call = async (body: unknown) => {
    const response = await post(body);
    return { status: response.status, body: await response.json() };
  };
  const publicBlogs = async () =>
    (await (await server.get(`${server.api}/blogs`)).json()).items as Array<Record<string, unknown>>;

  before(async () => (server = await startTestServer("mongo-standin")));
  after(() => server.close());

  it("answers 503 while the Microsub collections are absent, before looking at the body", async () => {
    const attempts: Array<[unknown, Record<string, string>]> = [
      [{}, { "Content-Type": "application/json" }],
      ["plain text", { "Content-Type": "text/plain" }],
      [{ action: "follow", url: "https://alice.example/feed.xml" }, { "Content-Type": "application/json" }],
    ];
    for (const [body, headers] of attempts) {
      const response = await post(body, headers);
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), { ok: false, error: "Microsub integration not available" });
    }
    assert.equal(await server.storage.blogs.count(), 0);
  });

  it("requires authentication", async () => {
    const response = await server.get(`${server.api}/microsub-webhook`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    assert.notEqual(response.status, 200);
    assert.notEqual(response.status, 503);
  });

  describe("with the Microsub collections present", () => {
    let feedId: ObjectId;
    before(async () => ({ feedId } = await installMicrosub(server)));

    it("answers 400 when action or url is missing or not a string", async () => {
      const missing = { ok: false, error: "Missing required fields: action and url" };
      const bodies: unknown[] = [
        {},
        { action: "follow" },
        { url: "https://alice.example/feed.xml" },
        { action: 1, url: "https://a.example/" },
        { action: "follow", url: ["https://a.example/"] },
        { action: "", url: "https://a.example/" },
        [{ action: "follow" }],
      ];
      for (const body of bodies)
        assert.deepEqual(await call(body), { status: 400, body: missing }, JSON.stringify(body));
      const form = await post("action=follow", { "Content-Type": "application/x-www-form-urlencoded" });
      assert.equal(form.status, 400);
      assert.deepEqual(await form.json(), missing);
      const text = await post("follow https://a.example/", { "Content-Type": "text/plain" });
      assert.deepEqual(await text.json(), missing);
      assert.deepEqual(await call({ action: "follow", url: "not a url" }), {
        status: 400,
        body: { ok: false, error: "Invalid url" },
      });
      assert.deepEqual(await call({ action: "like", url: "https://alice.example/feed.xml" }), {
        status: 400,
        body: { ok: false, error: "Unknown action" },
      });
      assert.equal(await server.storage.blogs.count(), 0);
    });

    it("follow adds a Microsub blog linked to its Microsub feed; a repeat is skipped", async () => {
      const first = await call({
        action: "follow",
        url: "https://alice.example/feed.xml",
        channelName: "Friends",
        title: "Alice's blog",
      });
      assert.deepEqual(first, { status: 200, body: { ok: true, action: "added" } });
      const blog = await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml");
      assert.ok(blog);
      assert.equal(blog.source, "microsub");
      assert.equal(blog.title, "Alice's blog");
      assert.equal(blog.category, "Friends");
      assert.equal(blog.microsubChannelName, "Friends");
      assert.equal(blog.microsubFeedId, feedId.toHexString());
      assert.equal(blog.skipItemFetch, true);
      const listed = (await publicBlogs()).find((entry) => entry.id === blog.id);
      assert.equal(listed?.microsubChannel, "Friends");
      assert.deepEqual(
        await call({ action: "follow", url: "https://alice.example/feed.xml", channelName: "Friends" }),
        {
          status: 200,
          body: { ok: true, action: "skipped", reason: "already_exists" },
        },
      );
      assert.deepEqual(await server.storage.blogs.get(blog.id), blog, "the repeat changed nothing");
      assert.equal(await server.storage.blogs.count(), 1);
    });

    it("subscribe without title or channel names the blog after the feed's host", async () => {
      assert.deepEqual(await call({ action: "subscribe", url: "https://www.bob.example/rss" }), {
        status: 200,
        body: { ok: true, action: "added" },
      });
      const blog = await server.storage.blogs.getByFeedUrl("https://www.bob.example/rss");
      assert.equal(blog?.title, "bob.example");
      assert.equal(blog?.category, "Microsub");
      assert.equal(blog?.skipItemFetch, false, "a feed Microsub does not hold is fetched by our scheduler");
    });

    it("unfollow soft-deletes the Microsub blog; repeats and later follows are skipped with reasons", async () => {
      assert.deepEqual(await call({ action: "unfollow", url: "https://alice.example/feed.xml" }), {
        status: 200,
        body: { ok: true, action: "deactivated" },
      });
      assert.equal((await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml"))?.status, "deleted");
      assert.equal(
        (await publicBlogs()).some((entry) => entry.feedUrl === "https://alice.example/feed.xml"),
        false,
      );
      const deleted = await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml");
      assert.deepEqual((await call({ action: "unsubscribe", url: "https://alice.example/feed.xml" })).body, {
        ok: true,
        action: "skipped",
        reason: "already_deleted",
      });
      assert.deepEqual(
        await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml"),
        deleted,
        "the repeat changed nothing",
      );
      assert.deepEqual((await call({ action: "follow", url: "https://alice.example/feed.xml" })).body, {
        ok: true,
        action: "skipped",
        reason: "deleted",
      });
      assert.deepEqual((await call({ action: "unfollow", url: "https://nobody.example/feed" })).body, {
        ok: true,
        action: "skipped",
        reason: "not_found",
      });
    });

    it("unfollow leaves blogs of other sources alone", async () => {
      const manual = await addBlog(server.storage, {
        feedUrl: "https://carol.example/feed",
        source: "manual",
        title: "Carol",
      });
      assert.deepEqual((await call({ action: "unfollow", url: "https://carol.example/feed" })).body, {
        ok: true,
        action: "skipped",
        reason: "not_microsub",
      });
      assert.equal((await server.storage.blogs.get(manual.id))?.status, "active");
    });

    it("follow records the owner beside a source that lists the blog; unfollow then only forgets the follow", async () => {
      const source = await server.storage.sources.create({
        type: "opml_url",
        name: "A list",
        settings: { url: "https://lists.example/y.opml" },
      });
      const { blog } = await server.storage.blogs.upsertFromSource({
        feedUrl: "https://erin.example/feed",
        title: "Erin",
        source: "opml",
        sourceId: source.id,
      });
      assert.deepEqual(
        (await call({ action: "follow", url: "https://erin.example/feed", channelName: "Friends" })).body,
        { ok: true, action: "skipped", reason: "already_exists" },
      );
      const followed = (await server.storage.blogs.get(blog.id))!;
      assert.deepEqual(
        followed.origins.map((origin) => [origin.id, origin.kind]),
        [
          [source.id, "opml"],
          [OWNER_ORIGIN, "microsub"],
        ],
      );
      assert.deepEqual([followed.title, followed.skipItemFetch], ["Erin", false], "nothing else changes");
      await server.storage.blogs.unlist(source.id, { except: [] });
      assert.ok(
        (await publicBlogs()).some((entry) => entry.id === blog.id),
        "the owner's follow keeps it listed",
      );
      await server.storage.blogs.upsertFromSource({
        feedUrl: "https://erin.example/feed",
        source: "opml",
        sourceId: source.id,
      });
      assert.deepEqual((await call({ action: "unfollow", url: "https://erin.example/feed" })).body, {
        ok: true,
        action: "deactivated",
      });
      const after = (await server.storage.blogs.get(blog.id))!;
      assert.notEqual(after.status, "deleted", "the list still names it");
      assert.deepEqual(
        after.origins.map((origin) => origin.id),
        [source.id],
      );
    });

    it("follow lists again a blog its source no longer listed", async () => {
      const source = await server.storage.sources.create({
        type: "opml_url",
        name: "Old list",
        settings: { url: "https://lists.example/x.opml" },
      });
      await server.storage.blogs.upsertFromSource({
        feedUrl: "https://dave.example/feed",
        title: "Dave",
        source: "opml",
        sourceId: source.id,
      });
      await server.storage.blogs.unlist(source.id, { except: [] });
      assert.deepEqual((await server.storage.blogs.getByFeedUrl("https://dave.example/feed"))?.origins, []);
      assert.deepEqual(
        (await call({ action: "follow", url: "https://dave.example/feed", channelName: "Friends" })).body,
        { ok: true, action: "added" },
      );
      const dave = await server.storage.blogs.getByFeedUrl("https://dave.example/feed");
      assert.deepEqual(
        dave?.origins.map((origin) => [origin.id, origin.kind]),
        [[OWNER_ORIGIN, "microsub"]],
      );
      assert.equal(dave?.category, "Friends");
    });

    it("answers 500 with the spec body when storage fails", async () => {
      const blogs = server.storage.blogs as { getByFeedUrl: (url: string) => Promise<unknown> };
      const original = blogs.getByFeedUrl;
      blogs.getByFeedUrl = async () => {
        throw new Error("database down");
      };
      try {
        assert.deepEqual(await call({ action: "follow", url: "https://erin.example/feed" }), {
          status: 500,
          body: { ok: false, error: "Webhook processing failed" },
        });
      } finally {
        blogs.getByFeedUrl = original;
      }
      assert.ok(server.logs.some((line) => line.startsWith("error:") && line.includes("microsub-webhook")));
    });
  });
});

describe("the Microsub plugin's direct write into blogrollBlogs (mingo stand-in, not a real MongoDB server)", () => {
  let server: TestServer;
  before(async () => (server = await startTestServer("mongo-standin")));
  after(() => server.close());

  it("produces a blog the public API lists and details, with items read from microsub_items", async () => {
    const { channelId, feedId, items } = await installMicrosub(server);
    const blogs = server.fakeDb!.collection("blogrollBlogs");
    const now = new Date();
    // Exactly the follow write host-contract.md describes.
    await microsubFollow(blogs, {
      feedUrl: "https://alice.example/feed.xml",
      title: "Alice",
      siteUrl: "https://alice.example",
      channel: "Friends",
      feedId: feedId.toHexString(),
      channelId: channelId.toHexString(),
    });
    await items.insertMany(
      [1, 2, 3].map((n) => ({
        _id: new ObjectId(),
        feedId,
        channelId,
        uid: `https://alice.example/posts/${n}`,
        url: `https://alice.example/posts/${n}`,
        name: `Post ${n}`,
        summary: `Summary ${n}`,
        content: { text: `Text ${n}`, html: `<p>Text ${n}</p>` },
        published: new Date(now.getTime() - n * DAY),
        author: { name: "Alice", url: "https://alice.example/", photo: null },
        photo: [],
        category: ["notes"],
      })),
    );

    const list = await (await server.get(`${server.api}/blogs`)).json();
    assert.equal(list.total, 1);
    const [blog] = list.items;
    assert.equal(blog.title, "Alice");
    assert.equal(blog.source, "microsub");
    assert.equal(blog.microsubChannel, "Friends");
    assert.equal(blog.category, "Friends");

    const detail = await server.get(`${server.api}/blogs/${blog.id}`);
    assert.equal(detail.status, 200);
    const body = await detail.json();
    assert.equal(body.microsubChannel, "Friends");
    assert.deepEqual(
      body.items.map((item: { title: string }) => item.title),
      ["Post 1", "Post 2", "Post 3"],
    );

    // The unfollow write: the blog leaves the public API.
    await blogs.updateOne(
      { feedUrl: "https://alice.example/feed.xml", source: "microsub", status: { $ne: "deleted" } },
      { $set: { status: "deleted", hidden: true, deletedAt: new Date(), updatedAt: new Date() } },
    );
    assert.equal((await (await server.get(`${server.api}/blogs`)).json()).total, 0);
    assert.equal((await server.get(`${server.api}/blogs/${blog.id}`)).status, 404);
  });
});
