/**
 * The page's reads of the visible blogs are refreshed after a change by
 * reading again only the blogs it touched (BlogSnapshots): for each kind of
 * change, the page, fragment and JSON built from a refreshed read are the
 * ones built from a full read, byte for byte, for queries that group, sort
 * by recent posts, show five posts, filter a category or leave out blogs
 * without a recent post. Changes whose blogs are not known are read in full.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { arrangeBlogroll } from "../../lib/page/blogroll.js";
import { renderFragment, type RenderContext } from "../../lib/page/html.js";
import { blogrollJson } from "../../lib/page/json.js";
import { parsePageQuery, type PageQuery } from "../../lib/page/query.js";
import { BlogSnapshots, type ReadBlog } from "../../lib/page/snapshots.js";
import { packageRoot } from "../../lib/package-root.js";
import { createTranslator, loadCatalogs } from "../../lib/standalone/i18n.js";
import { OWNER_ORIGIN, type Blog, type Storage } from "../../lib/storage/types.js";
import { DAY, HOUR, MINUTE } from "../../lib/time/durations.js";
import { addBlog, addItems, item } from "../support/seed.js";
import {
  describeBackend,
  startTestServer,
  type TestServer,
  startOtherWriter,
  type OtherWriter,
} from "../support/server.js";

const catalogs = loadCatalogs(path.join(packageRoot, "locales"));
const TTL = 5000;

/** Queries that read each part of the data differently. */
const QUERIES: PageQuery[] = [
  {},
  { sort: "recent", latest: "5", group: "none" },
  { category: "News" },
  { category: "Tech", latest: "0" },
  { activeWithin: "3", latest: "2", sort: "recent" },
].map((query) => parsePageQuery(query));
/** Reads kept: one per category and number of posts. */
const KEYS = new Set(QUERIES.map((query) => JSON.stringify([query.category, query.latest]))).size;

for (const backend of ["sqlite", "mongo-standin"] as const) {
  describe(`page reads refreshed after a change on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let other: OtherWriter;
    /** Another writer sharing the database (its writes are known only from the live event log). */
    let writer: Storage;
    let storage: Storage;
    let snapshots: BlogSnapshots;
    const now = Date.now();
    const blogs: Blog[] = [];

    /** What the page shows of a read: the fragment and the JSON, for each query. */
    const shown = async (read: (query: PageQuery) => Promise<ReadonlyMap<string, ReadBlog>>, at = now) => {
      const render: RenderContext = { locale: "en", __: createTranslator(catalogs, "en"), now: at };
      const bodies: string[] = [];
      for (const query of QUERIES) {
        const data = arrangeBlogroll(await read(query), query, "en", at);
        if (!data) {
          bodies.push("404");
          continue;
        }
        bodies.push(renderFragment(data, render, { headingLevel: 2, headed: query.category === undefined }).toString());
        const head = { title: "T", owner: { name: null, url: null }, links: {} as never };
        bodies.push((await blogrollJson(data, head, new Date(at))).toString());
      }
      return bodies;
    };

    /**
     * Reads each query again (refreshed, or in full when `full`) and compares
     * what the page shows of it, at `at`, with what it shows of a new full read.
     */
    const check = async (kind: string, expected: "refreshed" | "full", shows?: RegExp, at = now) => {
      const before = { ...snapshots.reads };
      const refreshed = await shown((query) => snapshots.read(query.category, query.latest, now), at);
      const counted = {
        full: snapshots.reads.full - before.full,
        refreshes: snapshots.reads.refreshes - before.refreshes,
      };
      assert.deepEqual(
        counted,
        expected === "refreshed" ? { full: 0, refreshes: KEYS } : { full: KEYS, refreshes: 0 },
        kind,
      );
      const fresh = new BlogSnapshots(server.plugin.context, storage, TTL, 8);
      const full = await shown((query) => fresh.read(query.category, query.latest, now), at);
      fresh.close();
      for (const [n, body] of refreshed.entries())
        assert.equal(body, full[n], `${kind}: body ${n} as a full read makes it`);
      if (shows) assert.match(refreshed.join("\n"), shows, `${kind}: the change is on the page`);
    };

    before(async () => {
      server = await startTestServer(backend);
      storage = server.storage;
      other = await startOtherWriter(server, backend);
      writer = other.storage;
      const categories = ["News", "Tech", null];
      for (let n = 0; n < 9; n++) {
        const blog = await addBlog(storage, { title: `Blog ${n}`, category: categories[n % 3], pinned: n === 4 });
        blogs.push(blog);
        // Blog 8 has never posted; the others a post a day apart, blog n's newest n days ago.
        if (n < 8)
          await addItems(
            storage,
            blog.id,
            Array.from({ length: 6 }, (_, p) => item(`b${n}-p${p}`, new Date(now - (n + p) * DAY - HOUR))),
          );
      }
      snapshots = new BlogSnapshots(server.plugin.context, storage, TTL, 8);
      await shown((query) => snapshots.read(query.category, query.latest, now));
      assert.equal(snapshots.reads.full, KEYS, "first reads are full");
    });
    after(async () => {
      snapshots.close();
      await other.close();
      await server.close();
    });

    it("nothing changed: the read is kept as it is", async () => {
      await check("no change", "refreshed");
    });

    it("a new post (a live event too) moves its blog up the recent order", async () => {
      await storage.items.store(
        blogs[7].id,
        [item("fresh-7", new Date(now - MINUTE), { title: "Fresh seven" })],
        new Date(now),
        20,
      );
      await check("a new post", "refreshed", /Fresh seven/);
    });

    it("an older post seen late (no live event) is among the five latest", async () => {
      await addItems(storage, blogs[2].id, [item("late-2", new Date(now - 2 * DAY - 2 * HOUR), { title: "Late two" })]);
      await check("an old post seen late", "refreshed", /Late two/);
    });

    it("posts trimmed and pruned (no live event)", async () => {
      await storage.items.store(blogs[1].id, [], new Date(), 1);
      await check("posts trimmed", "refreshed");
      const { blogIds } = await storage.items.pruneOlderThan(new Date(now - 6 * DAY));
      assert.ok(blogIds.length > 0);
      await check("posts pruned", "refreshed");
    });

    it("owner edits: title (order), category (groups and the category's page), pinned, note, hidden", async () => {
      await storage.blogs.edit(blogs[0].id, { title: "Zulu" });
      await check("title", "refreshed", /Zulu/);
      await storage.blogs.edit(blogs[3].id, { category: "Tech" });
      await check("category", "refreshed");
      await storage.blogs.edit(blogs[5].id, { pinned: true, note: "Read it" });
      await check("pinned and note", "refreshed", /Read it/);
      await storage.blogs.edit(blogs[6].id, { hidden: true });
      await check("hidden", "refreshed");
      await storage.blogs.edit(blogs[6].id, { hidden: false });
      await check("shown again", "refreshed");
    });

    it("a blog added, given an icon, gone, hidden or deleted in bulk, deleted, purged", async () => {
      const added = await addBlog(storage, { title: "Added", category: "News" });
      await check("added", "refreshed", /Added/);
      await storage.blogs.setIcon(added.id, "https://added.example/icon.png");
      await check("icon", "refreshed", /added\.example\/icon\.png/);
      await storage.blogs.recordFetch(blogs[1].id, {
        at: new Date(now),
        status: "gone",
        nextFetchAt: null,
        failureCount: 3,
      });
      await check("gone", "refreshed");
      await storage.blogs.hideMany({ ids: [blogs[2].id, added.id] });
      await check("hidden in bulk", "refreshed");
      await storage.blogs.softDeleteMany({ ids: [blogs[3].id] });
      await check("deleted in bulk", "refreshed");
      await storage.blogs.softDelete(blogs[4].id);
      await check("deleted", "refreshed");
      await storage.blogs.purge(blogs[5].id);
      await check("purged", "refreshed");
    });

    it("cards and JSON kept for unchanged blogs follow the clock: relative dates, a post no longer in the future", async () => {
      await storage.items.store(
        blogs[6].id,
        [item("ahead-6", new Date(now + 2 * HOUR), { title: "Ahead six" })],
        new Date(now),
        20,
      );
      const ahead = (future: boolean) =>
        new RegExp(`"title":"Ahead six","summary":"[^"]*","published":"[^"]*","isFuture":${future}`);
      await check("a post dated ahead", "refreshed", ahead(true));
      await check("three hours later", "refreshed", ahead(false), now + 3 * HOUR);
      await check("two days later", "refreshed", /2 days ago/, now + 2 * DAY);
      // More than a day ahead, a post is no sign of life (lastPostAt leaves it out) until the clock comes near it.
      const ahead3 = await addBlog(storage, { title: "Ahead", category: "Tech" });
      await storage.items.store(ahead3.id, [item("far", new Date(now + 3 * DAY))], new Date(now), 20);
      const lastPost = (at: string) => new RegExp(`"title":"Ahead",[^{}]*"lastPostAt":${at}`);
      await check("a blog whose one post is dated three days ahead", "refreshed", lastPost("null"));
      const far = `"${new Date(now + 3 * DAY).toISOString()}"`;
      await check("two and a half days later", "refreshed", lastPost(far), now + 2.5 * DAY);
    });

    it("another writer's changes, known from the live event log", async () => {
      await writer.blogs.edit(blogs[0].id, { title: "Yankee" });
      await check("another writer's edit", "refreshed", /Yankee/);
      // A fetch that saw a post: the blog's newest post date, from which stored posts are news (a post event).
      const schedule = {
        recentPosts: [new Date(now - MINUTE)],
        fetchInterval: null,
        fetchReason: "test",
        waitUntil: null,
      };
      await writer.blogs.recordFetch(blogs[7].id, {
        at: new Date(now),
        status: "active",
        nextFetchAt: null,
        failureCount: 0,
        schedule,
      });
      await check("another writer's fetch", "refreshed");
      await writer.items.store(
        blogs[7].id,
        [item("other-7", new Date(now - 30_000), { title: "Other seven" })],
        new Date(now),
        20,
      );
      await check("another writer's post", "refreshed", /Other seven/);
    });

    it("changes whose blogs are not known, and a read past its lifetime, are read in full", async () => {
      // Manual blogs are listed by the owner: unlisted, blog 7 leaves the page.
      await storage.blogs.unlist(OWNER_ORIGIN, { only: [blogs[7].id] });
      await check("unlist", "full");
      await storage.items.deleteAll();
      await check("all posts deleted", "full");
      await addBlog(storage, { title: "Late", category: "Tech" });
      const before = snapshots.reads.full;
      await snapshots.read(undefined, 1, now + TTL);
      assert.equal(snapshots.reads.full, before + 1, "past its lifetime");
    });
  });
}
