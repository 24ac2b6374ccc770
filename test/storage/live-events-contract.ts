/**
 * The live event log's contract, run against every adapter beside the storage
 * contract. It speaks only through the port: events come from the adapters'
 * own writes (blogs, items), never from a call that records one.
 *
 * When a new storage write path changes what the public sees (a blog listed
 * or no longer listed, gone, a new page field), add its case to the lists
 * below: "leaves the public" and "comes back" name each way a blog can go.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  OWNER_ORIGIN,
  type Blog,
  type LiveEvent,
  type NewBlog,
  type NewItem,
  type Storage,
} from "../../lib/storage/types.js";
import { HOUR } from "../../lib/time/durations.js";

let feedNumber = 0;

function newBlog(fields: Partial<NewBlog> = {}): NewBlog {
  feedNumber++;
  return {
    feedUrl: `https://live${feedNumber}.example.net/feed.xml`,
    title: `Live ${feedNumber}`,
    source: "manual",
    ...fields,
  };
}

function post(uid: string, published: Date | null): NewItem {
  return {
    uid,
    url: `https://example.net/${uid}`,
    title: `Post ${uid}`,
    summary: null,
    content: null,
    published,
    author: null,
    photo: null,
    categories: [],
  };
}

/** What an event says, without seq and time: for comparing lists. */
function said(event: LiveEvent): string {
  return event.kind === "post"
    ? `post ${event.blogId} ${event.item?.uid ?? "(gone)"}`
    : `blog ${event.blogId} ${event.change}`;
}

export function runLiveEventContract(backendName: string, makeStorage: () => Promise<Storage>): void {
  describe(`${backendName}: live event log`, () => {
    let s: Storage;
    beforeEach(async () => {
      s = await makeStorage();
      await s.init();
    });
    afterEach(async () => {
      await s.close();
    });

    /** Events recorded by `write`, in order. */
    async function eventsOf(write: () => Promise<unknown>): Promise<LiveEvent[]> {
      const { newest } = await s.events.bounds();
      await write();
      return s.events.after(newest, 1000);
    }
    const saidBy = async (write: () => Promise<unknown>) => (await eventsOf(write)).map(said);

    async function add(fields: Partial<NewBlog> = {}): Promise<Blog> {
      const { blog } = await s.blogs.upsertFromSource(newBlog(fields));
      return blog;
    }
    /** A fetch that saw posts up to `newest`: the blog has shown posts from then on. */
    const fetched = (id: string, newest: Date) =>
      s.blogs.recordFetch(id, {
        at: new Date(),
        status: "active",
        nextFetchAt: null,
        failureCount: 0,
        schedule: { recentPosts: [newest], fetchInterval: HOUR, fetchReason: "schedule", waitUntil: null },
      });

    it("starts empty: newest 0, nothing kept", async () => {
      assert.deepEqual(await s.events.bounds(), { newest: 0, oldest: null });
      assert.deepEqual(await s.events.after(0, 10), []);
    });

    it("records a blog added, with the blog as the public sees it, and gives each event a larger seq", async () => {
      const events = await eventsOf(async () => {
        await add();
        await add();
      });
      assert.equal(events.length, 2);
      const [first, second] = events;
      assert.ok(first.kind === "blog" && first.change === "added");
      assert.ok(first.blog && first.blog.id === first.blogId);
      assert.ok(second.seq > first.seq);
      assert.ok(first.at instanceof Date && Math.abs(first.at.getTime() - Date.now()) < HOUR);
      const bounds = await s.events.bounds();
      assert.equal(bounds.newest, second.seq);
      assert.equal(bounds.oldest, first.seq);
      assert.deepEqual(
        (await s.events.after(first.seq, 10)).map((event) => event.seq),
        [second.seq],
      );
      assert.deepEqual(
        (await s.events.after(0, 1)).map((event) => event.seq),
        [first.seq],
      );
    });

    it("records `updated` when a visible blog changes what the page shows, and nothing for private or fetch-only changes", async () => {
      const blog = await add();
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { title: "Renamed" })), [`blog ${blog.id} updated`]);
      assert.deepEqual(await saidBy(() => s.blogs.setIcon(blog.id, "https://live.example.net/icon.png")), [
        `blog ${blog.id} updated`,
      ]);
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { pinned: true })), [`blog ${blog.id} updated`]);
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { relationship: ["friend", "met"] })), [
        `blog ${blog.id} updated`,
      ]);
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { note: "Why I read it" })), [
        `blog ${blog.id} updated`,
      ]);
      assert.deepEqual(
        await saidBy(() =>
          s.blogs.edit(blog.id, { fediverse: "@ada@example.social", fediverseUrl: "https://example.social/@ada" }),
        ),
        [`blog ${blog.id} updated`],
      );
      // The owner's private notes, a fetch that changes nothing shown, item counters: not news.
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { notes: "private" })), []);
      assert.deepEqual(
        await saidBy(() =>
          s.blogs.recordFetch(blog.id, { at: new Date(), status: "active", nextFetchAt: null, failureCount: 0 }),
        ),
        [],
      );
      assert.deepEqual(await saidBy(() => s.blogs.refreshItemStats(blog.id)), []);
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { title: "Renamed" })), [], "the same title again");
    });

    it("records `updated` when a blog's first fetch brings its first posts, and no post events for them", async () => {
      const blog = await add();
      const now = new Date();
      const said = await saidBy(async () => {
        await s.items.upsertMany(
          blog.id,
          [post("old-1", new Date(now.getTime() - 2 * HOUR)), post("old-2", new Date(now.getTime() - HOUR))],
          now,
        );
        await fetched(blog.id, new Date(now.getTime() - HOUR));
      });
      assert.deepEqual(said, [`blog ${blog.id} updated`]);
    });

    it("records a post newer than any its blog showed (undated ones too), with its item, and nothing for older posts or edits", async () => {
      const blog = await add();
      const now = new Date();
      await fetched(blog.id, new Date(now.getTime() - HOUR));
      const events = await eventsOf(() =>
        s.items.upsertMany(
          blog.id,
          [
            post("new", new Date(now.getTime() - 60_000)),
            post("late-old", new Date(now.getTime() - 2 * HOUR)),
            post("undated", null),
          ],
          now,
        ),
      );
      assert.deepEqual(events.map(said).sort(), [`post ${blog.id} new`, `post ${blog.id} undated`]);
      const event = events.find((e) => e.kind === "post" && e.item?.uid === "new");
      assert.ok(event?.kind === "post" && event.item && event.blog);
      assert.equal(event.item.title, "Post new");
      assert.equal(event.item.blogId, blog.id);
      assert.equal(event.blog.id, blog.id);
      const edited = { ...post("new", new Date(now.getTime() - 60_000)), title: "Edited" };
      assert.deepEqual(
        await saidBy(() => s.items.upsertMany(blog.id, [edited], now)),
        [],
        "an edited post is not a new one",
      );
    });

    it("records `removed` for every way a visible blog leaves the public, and `added` when it comes back", async () => {
      const hidden = await add();
      assert.deepEqual(await saidBy(() => s.blogs.edit(hidden.id, { hidden: true })), [`blog ${hidden.id} removed`]);
      assert.deepEqual(
        await saidBy(() => s.blogs.edit(hidden.id, { title: "Unseen change" })),
        [],
        "a hidden blog's changes are not shown",
      );
      assert.deepEqual(await saidBy(() => s.blogs.edit(hidden.id, { hidden: false })), [`blog ${hidden.id} added`]);

      const deleted = await add();
      assert.deepEqual(await saidBy(() => s.blogs.softDelete(deleted.id)), [`blog ${deleted.id} removed`]);

      // No longer listed by the only source that listed it, then listed again.
      const source = await s.sources.create({ type: "opml_url", name: "list" });
      const unlisted = await add({ sourceId: source.id, source: "opml" });
      assert.deepEqual(await saidBy(() => s.blogs.unlist(source.id, { except: [] })), [`blog ${unlisted.id} removed`]);
      assert.deepEqual(
        await saidBy(() =>
          s.blogs.upsertFromSource({
            feedUrl: unlisted.feedUrl,
            title: unlisted.title,
            source: "opml",
            sourceId: source.id,
          }),
        ),
        [`blog ${unlisted.id} added`],
      );

      // Gone (the feed answered 410), then back (the weekly check found it again).
      const gone = await add();
      const fetch = (status: "gone" | "active") =>
        s.blogs.recordFetch(gone.id, {
          at: new Date(),
          status,
          nextFetchAt: null,
          failureCount: status === "gone" ? 1 : 0,
        });
      assert.deepEqual(await saidBy(() => fetch("gone")), [`blog ${gone.id} removed`]);
      assert.deepEqual(await saidBy(() => fetch("active")), [`blog ${gone.id} added`]);

      const purged = await add();
      assert.deepEqual(await saidBy(() => s.blogs.purge(purged.id)), [`blog ${purged.id} removed`]);
      assert.deepEqual(await saidBy(() => s.blogs.purge(deleted.id)), [], "purging a blog the public no longer saw");
    });

    it("records `removed` and `added` when only a blog's origins change, and nothing while another origin still lists it", async () => {
      const first = await s.sources.create({ type: "opml_url", name: "first" });
      const second = await s.sources.create({ type: "blogroll", name: "second" });
      const blog = await add({ sourceId: first.id, source: "opml" });
      const listing = (sourceId: string | null, category?: string) =>
        s.blogs.upsertFromSource({
          feedUrl: blog.feedUrl,
          title: blog.title,
          category,
          source: sourceId ? "opml" : "manual",
          sourceId,
        });

      // A second origin's value where the first gave none shows; re-reads of either unchanged list say nothing.
      assert.deepEqual(await saidBy(() => listing(second.id, "Friends")), [`blog ${blog.id} updated`]);
      assert.deepEqual(await saidBy(() => listing(second.id, "Friends")), [], "the second list re-read unchanged");
      assert.deepEqual(await saidBy(() => listing(first.id)), [], "the first list re-read, still without a category");
      assert.deepEqual(
        await saidBy(() => listing(first.id, "Elsewhere")),
        [`blog ${blog.id} updated`],
        "the first origin's value wins",
      );
      assert.deepEqual(
        await saidBy(() => listing(second.id, "Friends")),
        [],
        "the second origin does not take it back",
      );

      // Its sources drop it one by one: only the last makes it leave.
      assert.deepEqual(
        await saidBy(() => s.blogs.unlist(first.id, { except: [] })),
        [`blog ${blog.id} updated`],
        "the second origin's category shows now",
      );
      assert.deepEqual(await saidBy(() => s.blogs.unlist(second.id, { except: [] })), [`blog ${blog.id} removed`]);

      // The owner adds it again; stops following it (Microsub); edits it, which lists it as the owner's again.
      assert.deepEqual(await saidBy(() => listing(null)), [`blog ${blog.id} added`]);
      assert.deepEqual(await saidBy(() => s.blogs.unlist(OWNER_ORIGIN, { only: [blog.id] })), [
        `blog ${blog.id} removed`,
      ]);
      assert.deepEqual(await saidBy(() => s.blogs.edit(blog.id, { tags: ["kept"] })), [`blog ${blog.id} added`]);

      // A source deleted: "Keep them" changes nothing the public sees; "Remove them" removes only what no other origin lists.
      const keptFromSource = await add({ sourceId: first.id, source: "opml" });
      assert.deepEqual(await saidBy(() => s.blogs.detachSource(first.id, true)), []);
      assert.equal((await s.blogs.get(keptFromSource.id))?.origins[0]?.id, OWNER_ORIGIN);
      const onlyListed = await add({ sourceId: second.id, source: "blogroll" });
      const alsoOwners = await add();
      await s.blogs.upsertFromSource({ feedUrl: alsoOwners.feedUrl, source: "blogroll", sourceId: second.id });
      const removed = await saidBy(async () => {
        for (const id of await s.blogs.detachSource(second.id, false)) await s.blogs.purge(id);
      });
      assert.deepEqual(removed, [`blog ${onlyListed.id} removed`]);
      assert.equal(await s.blogs.get(onlyListed.id), null);
      assert.deepEqual(
        (await s.blogs.get(alsoOwners.id))?.origins.map((origin) => origin.id),
        [OWNER_ORIGIN],
        "the owner lists it too: it stays",
      );
    });

    it("hands back no blog for events of blogs the public does not see now, and no item once the post is gone", async () => {
      const blog = await add();
      const now = new Date();
      await fetched(blog.id, new Date(now.getTime() - HOUR));
      const [postEvent] = await eventsOf(() => s.items.upsertMany(blog.id, [post("p", now)], now));
      await s.blogs.edit(blog.id, { hidden: true });
      const [again] = await s.events.after(postEvent.seq - 1, 1);
      assert.ok(again.kind === "post");
      assert.equal(again.blog, null);
      assert.equal(again.item?.uid, "p");
      await s.items.deleteAll();
      const [gone] = await s.events.after(postEvent.seq - 1, 1);
      assert.ok(gone.kind === "post");
      assert.equal(gone.item, null);
    });

    it("trims events recorded before a time, keeping the newest seq", async () => {
      const first = await add();
      await sleep(5);
      const between = new Date();
      await sleep(5);
      const second = await add();
      const before = await s.events.bounds();
      assert.equal(await s.events.trimBefore(new Date(between.getTime() - HOUR)), 0);
      assert.equal(await s.events.trimBefore(between), 1);
      const kept = await s.events.after(0, 10);
      assert.deepEqual(kept.map(said), [`blog ${second.id} added`]);
      assert.notEqual(first.id, second.id);
      assert.deepEqual(await s.events.bounds(), { newest: before.newest, oldest: kept[0].seq });
      assert.equal(await s.events.trimBefore(new Date(Date.now() + HOUR)), 1);
      assert.deepEqual(await s.events.bounds(), { newest: before.newest, oldest: null });
      const third = await add();
      const [next] = await s.events.after(0, 10);
      assert.ok(next.seq > before.newest, "seqs are never given again after a trim");
      assert.equal(next.blogId, third.id);
    });
  });
}
