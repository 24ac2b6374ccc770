/**
 * What the public API makes of a stored blog and item: only the public
 * fields, each under its own name, and `isFuture` against the request's
 * clock. Blogs and items come from a real SQLite storage.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { serializeBlog, serializeBlogContext, serializeItem } from "../../lib/api/serialize.js";
import type { Blog, Item, Storage } from "../../lib/storage/types.js";
import { openTempStorage, type TempStorage } from "../sync/harness.js";
import { addBlog, item } from "../support/seed.js";

let temp: TempStorage;
let storage: Storage;
before(async () => {
  temp = await openTempStorage();
  storage = temp.storage;
});
after(() => temp.cleanup());

const NOW = new Date("2026-11-27T12:00:00.000Z");

/** One stored item of a new blog, dated `published`. */
async function storedItem(published: Date | null, extra: Parameters<typeof item>[2] = {}): Promise<Item> {
  const blog = await addBlog(storage);
  await storage.items.upsertMany(blog.id, [item("only", published, extra)], NOW);
  const [stored] = await storage.items.list({ blogId: blog.id, limit: 1, offset: 0 });
  return stored;
}

describe("serializeItem", () => {
  it("gives the public fields of an item, its date as ISO text", async () => {
    const stored = await storedItem(new Date("2026-11-26T08:30:00.000Z"), {
      author: "Ada",
      photo: "https://example.org/p.png",
      categories: ["a", "b"],
    });
    assert.deepEqual(serializeItem(stored, NOW), {
      id: stored.id,
      url: "https://example.org/posts/only",
      title: "Post only",
      summary: "Summary of only",
      published: "2026-11-26T08:30:00.000Z",
      isFuture: false,
      author: "Ada",
      photo: "https://example.org/p.png",
      categories: ["a", "b"],
    });
  });

  it("isFuture only for a date after the request's now: not for one exactly now or just before", async () => {
    const at = async (offset: number) =>
      serializeItem(await storedItem(new Date(NOW.getTime() + offset)), NOW).isFuture;
    assert.equal(await at(-1), false);
    assert.equal(await at(0), false, "an item dated exactly now is not in the future");
    assert.equal(await at(1), true);
    assert.equal(await at(400 * 86_400_000), true);
  });

  it("leaves `published` out when the date is unknown, and such an item is not in the future", async () => {
    const serialized = serializeItem(await storedItem(null), NOW);
    assert.ok(!("published" in serialized));
    assert.equal(serialized.isFuture, false);
  });
});

describe("serializeBlog", () => {
  let blog: Blog;
  before(async () => {
    blog = await addBlog(storage, {
      title: "Ada's blog",
      feedUrl: "https://ada.example/feed.xml",
      siteUrl: "https://ada.example/",
      description: "Notes",
      category: "Friends",
      photo: "https://ada.example/me.png",
      author: "Ada",
      relationship: ["friend", "met"],
      note: "Writes about engines",
      fediverse: "@ada@social.example",
      fediverseUrl: "https://social.example/@ada",
    });
    await storage.blogs.edit(blog.id, { notes: "private notes" });
    await storage.blogs.recordFetch(blog.id, {
      at: NOW,
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
      error: null,
    });
    blog = (await storage.blogs.get(blog.id))!;
  });

  it("gives every public field under its API name and nothing internal", () => {
    assert.deepEqual(serializeBlog(blog), {
      id: blog.id,
      title: "Ada's blog",
      description: "Notes",
      feedUrl: "https://ada.example/feed.xml",
      siteUrl: "https://ada.example/",
      feedType: "rss",
      category: "Friends",
      tags: [],
      photo: "https://ada.example/me.png",
      author: "Ada",
      status: "active",
      itemCount: 0,
      pinned: false,
      lastFetchAt: NOW.toISOString(),
      lastItemAt: null,
      source: "manual",
      relationship: ["friend", "met"],
      note: "Writes about engines",
      fediverse: "@ada@social.example",
      fediverseUrl: "https://social.example/@ada",
    });
  });

  it("shows the site icon when the feed has no image, and null when there is neither", async () => {
    const plain = await addBlog(storage, { photo: null });
    assert.equal(serializeBlog(plain).photo, null);
    await storage.blogs.setIcon(plain.id, "");
    assert.equal(
      serializeBlog((await storage.blogs.get(plain.id))!).photo,
      null,
      "a site without an icon is null, not an empty string",
    );
    await storage.blogs.setIcon(plain.id, "https://blog.example/favicon.ico");
    const withIcon = (await storage.blogs.get(plain.id))!;
    assert.equal(serializeBlog(withIcon).photo, "https://blog.example/favicon.ico");
    assert.equal(serializeBlogContext(withIcon)?.photo, "https://blog.example/favicon.ico");
    await storage.blogs.setIcon(blog.id, "https://ada.example/favicon.ico");
    assert.equal(
      serializeBlog((await storage.blogs.get(blog.id))!).photo,
      "https://ada.example/me.png",
      "the feed's own image wins",
    );
  });

  it("names the Microsub channel of a Microsub blog only: its channel, else its category, else null", async () => {
    assert.ok(!("microsubChannel" in serializeBlog(blog)));
    const named = await addBlog(storage, { source: "microsub", category: "Reading", microsubChannelName: "Channel" });
    assert.equal(serializeBlog(named).microsubChannel, "Channel");
    const unnamed = await addBlog(storage, { source: "microsub", category: "Reading" });
    assert.equal(serializeBlog(unnamed).microsubChannel, "Reading");
    const bare = await addBlog(storage, { source: "microsub" });
    assert.equal(serializeBlog(bare).microsubChannel, null);
    assert.ok("microsubChannel" in serializeBlog(bare));
  });

  it("gives a blog without a source `source: null`", async () => {
    const orphan = await addBlog(storage, { source: null });
    assert.equal(serializeBlog(orphan).source, null);
  });
});

describe("serializeBlogContext", () => {
  it("is the blog's id, title, site, category and picture, or null without a blog", async () => {
    const blog = await addBlog(storage, {
      title: "Context",
      siteUrl: "https://c.example/",
      category: "Tech",
      photo: "https://c.example/p.png",
    });
    assert.deepEqual(serializeBlogContext(blog), {
      id: blog.id,
      title: "Context",
      siteUrl: "https://c.example/",
      category: "Tech",
      photo: "https://c.example/p.png",
    });
    assert.equal(serializeBlogContext(null), null);
    assert.equal(serializeBlogContext(undefined), null);
  });
});
