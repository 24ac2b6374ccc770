/**
 * The storage contract: one suite every adapter must pass. It speaks only
 * through the `Storage` port (no SQL, no driver), so each adapter's test file
 * imports it and hands over a factory:
 *
 *   runStorageContract("sqlite", async () => createSqliteStorage(file));
 *
 * Each test gets a fresh storage, calls `init()` on it and closes it after.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { recordBlogrollDates } from "../../lib/sync/blogroll-dates.js";
import { exportOpml } from "../../lib/api/opml-export.js";
import { strongEtag } from "../../lib/api/respond.js";
import { importFeeds } from "../../lib/sources/import.js";
import type { ListedFeed } from "../../lib/sources/types.js";
import { newId } from "../../lib/storage/id.js";
import {
  MAX_RECOMMENDATIONS_PER_BLOG,
  OWNER_ORIGIN,
  PUBLIC_BLOG_FIELDS,
  type Blog,
  type BlogBlogroll,
  type BlogListQuery,
  type BlogStatus,
  type FetchRecord,
  type NewBlog,
  type NewItem,
  type PushSubscription,
  type Recommendation,
  type Storage,
} from "../../lib/storage/types.js";
import { DAY, HOUR } from "../../lib/time/durations.js";

const HEX24 = /^[0-9a-f]{24}$/;
/** A fixed clock with milliseconds, so a lost millisecond shows. */
const T0 = new Date("2024-05-06T07:08:09.123Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

let feedSequence = 0;
function newBlog(fields: Partial<NewBlog> = {}): NewBlog {
  feedSequence++;
  return {
    feedUrl: `https://site${feedSequence}.example.net/feed.xml`,
    title: `Blog ${feedSequence}`,
    source: "manual",
    ...fields,
  };
}

function newItem(uid: string, published: Date | null, extra: Partial<NewItem> = {}): NewItem {
  return {
    uid,
    url: `https://example.net/${uid}`,
    title: `Title ${uid}`,
    summary: `Summary ${uid}`,
    content: `<p>${uid}</p>`,
    published,
    author: null,
    photo: null,
    categories: [],
    ...extra,
  };
}

const titles = (blogs: Blog[]) => blogs.map((b) => b.title);
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Registers the storage contract suite for one backend.
 * @param backendName shown as the `describe` title
 * @param makeStorage returns a fresh, empty storage (the suite calls `init()` and `close()`)
 */
export function runStorageContract(backendName: string, makeStorage: () => Promise<Storage>): void {
  describe(backendName, () => {
    let s: Storage;
    beforeEach(async () => {
      s = await makeStorage();
      await s.init();
    });
    afterEach(async () => {
      await s.close();
    });

    /** Adds a blog and returns it. */
    async function add(fields: Partial<NewBlog> = {}): Promise<Blog> {
      const result = await s.blogs.upsertFromSource(newBlog(fields));
      assert.equal(result.outcome, "added");
      return result.blog;
    }
    /** Sets a blog's status through the port the way sync does. */
    async function setStatus(id: string, status: BlogStatus): Promise<void> {
      if (status === "deleted") await s.blogs.softDelete(id);
      else
        await s.blogs.recordFetch(id, { at: T0, status, nextFetchAt: null, failureCount: status === "error" ? 1 : 0 });
    }
    /** Every origin of a blog lets go of it: it is unlisted. */
    async function unlistAll(id: string): Promise<void> {
      for (const origin of ((await s.blogs.get(id)) as Blog).origins) await s.blogs.unlist(origin.id, { only: [id] });
      assert.deepEqual((await s.blogs.get(id))?.origins, []);
    }
    /** Who lists a blog, in order, with the values each gives. */
    const originsOf = async (id: string) =>
      ((await s.blogs.get(id)) as Blog).origins.map((origin) => [origin.id, origin.kind, origin.values]);
    const list = (query: Partial<BlogListQuery>) =>
      s.blogs.list({ limit: 100, offset: 0, visibility: "admin", ...query });

    describe("identifiers and dates", () => {
      it("gives 24-hex ids to blogs, items and sources", async () => {
        const blog = await add();
        assert.match(blog.id, HEX24);
        await s.items.upsertMany(blog.id, [newItem("a", T0)], T0);
        const [item] = await s.items.list({ blogId: blog.id, limit: 10, offset: 0 });
        assert.match(item.id, HEX24);
        assert.equal(item.blogId, blog.id);
        const source = await s.sources.create({ type: "opml_url", name: "x" });
        assert.match(source.id, HEX24);
      });

      it("round-trips dates as Date values to the millisecond", async () => {
        const blog = await add();
        assert.ok(blog.createdAt instanceof Date && blog.updatedAt instanceof Date);
        const next = at(3_600_000);
        const written = await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: next,
          failureCount: 0,
        });
        const read = (await s.blogs.get(blog.id)) as Blog;
        for (const b of [written as Blog, read]) {
          assert.ok(b.lastFetchAt instanceof Date);
          assert.equal(b.lastFetchAt.getTime(), T0.getTime());
          assert.equal(b.nextFetchAt?.getTime(), next.getTime());
          assert.equal(b.deletedAt, null);
        }
        await s.items.upsertMany(blog.id, [newItem("dated", at(-5)), newItem("undated", null)], at(7));
        const items = await s.items.list({ blogId: blog.id, limit: 10, offset: 0 });
        assert.ok(items[0].published instanceof Date);
        assert.equal(items[0].published.getTime(), at(-5).getTime());
        assert.equal(items[1].published, null);
        assert.ok(items[1].fetchedAt instanceof Date);
        assert.equal(items[1].fetchedAt.getTime(), at(7).getTime());
      });

      it("returns null or nothing for unknown and malformed ids", async () => {
        await add();
        assert.equal(await s.blogs.get("0123456789abcdef01234567"), null);
        assert.equal(await s.blogs.get("not-an-id"), null);
        assert.deepEqual(await s.blogs.getMany([]), []);
        assert.deepEqual(await s.blogs.getMany(["0123456789abcdef01234567", "nope"]), []);
        assert.equal(await s.sources.get("0123456789abcdef01234567"), null);
      });
    });

    describe("blogs.upsertFromSource", () => {
      it("adds a new blog with defaults and status pending", async () => {
        const source = await s.sources.create({ type: "opml_url", name: "list" });
        const { outcome, blog } = await s.blogs.upsertFromSource({
          feedUrl: "https://example.com/feed.xml",
          title: "Example",
          source: "opml",
          sourceId: source.id,
          category: "Tech",
          tags: ["a", "b"],
        });
        assert.equal(outcome, "added");
        assert.equal(blog.status, "pending");
        assert.equal(blog.title, "Example");
        assert.equal(blog.feedUrl, "https://example.com/feed.xml");
        assert.equal(blog.category, "Tech");
        assert.deepEqual(blog.tags, ["a", "b"]);
        assert.equal(blog.source, "opml");
        assert.deepEqual(blog.origins, [
          { id: source.id, kind: "opml", since: blog.createdAt, values: { title: "Example", category: "Tech" } },
        ]);
        assert.deepEqual(blog.feedValues, {});
        assert.deepEqual(blog.ownerEdited, []);
        assert.equal(blog.itemCount, 0);
        assert.equal(blog.failureCount, 0);
        assert.equal(blog.pinned, false);
        assert.equal(blog.hidden, false);
        assert.equal(blog.skipItemFetch, false);
        assert.equal(blog.description, null);
        assert.equal(blog.lastFetchAt, null);
        assert.equal(blog.lastItemAt, null);
        assert.equal(blog.nextFetchAt, null);
        assert.deepEqual(await s.blogs.get(blog.id), blog);
      });

      it("uses the given status and skipItemFetch", async () => {
        const blog = await add({
          status: "active",
          skipItemFetch: true,
          source: "microsub",
          microsubFeedId: "f1",
          microsubChannelName: "News",
        });
        assert.equal(blog.status, "active");
        assert.equal(blog.skipItemFetch, true);
        assert.equal(blog.microsubFeedId, "f1");
        assert.equal(blog.microsubChannelName, "News");
        assert.deepEqual(
          await originsOf(blog.id),
          [[OWNER_ORIGIN, "microsub", { title: blog.title }]],
          "a listing without a source is the owner's",
        );
      });

      it("treats http/https, host case and trailing-slash twins as the same blog", async () => {
        const blog = await add({ feedUrl: "https://Twin.example.org/blog/", title: "Twin" });
        for (const twin of [
          "http://twin.example.org/blog",
          "https://TWIN.example.org/blog/",
          "http://twin.example.org:80/blog/",
        ]) {
          const result = await s.blogs.upsertFromSource({ feedUrl: twin, title: "Twin", source: "manual" });
          assert.equal(result.outcome, "unchanged", twin);
          assert.equal(result.blog.id, blog.id);
          assert.equal(result.blog.feedUrl, "https://Twin.example.org/blog/");
          assert.equal((await s.blogs.getByFeedUrl(twin))?.id, blog.id);
        }
        assert.equal(await s.blogs.count(), 1);
        assert.equal(await s.blogs.getByFeedUrl("https://twin.example.org/other"), null);
      });

      it("updates changed fields, reports unchanged when nothing differs", async () => {
        const blog = await add({ feedUrl: "https://u.example/feed", title: "Old", category: "A" });
        const same = await s.blogs.upsertFromSource({
          feedUrl: "https://u.example/feed",
          title: "Old",
          category: "A",
          source: "manual",
        });
        assert.equal(same.outcome, "unchanged");
        const changed = await s.blogs.upsertFromSource({
          feedUrl: "https://u.example/feed",
          title: "New",
          category: "B",
          description: "About",
          siteUrl: "https://u.example/",
          feedType: "atom",
          photo: "https://u.example/me.png",
          author: "Ann",
          microsubChannelId: "c1",
          source: "manual",
        });
        assert.equal(changed.outcome, "updated");
        assert.equal(changed.blog.id, blog.id);
        const read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.title, "New");
        assert.equal(read.category, "B");
        assert.equal(read.description, "About");
        assert.equal(read.siteUrl, "https://u.example/");
        assert.equal(read.feedType, null, "a listing's type is a hint for new blogs only: the feed says what it is");
        assert.equal(read.photo, "https://u.example/me.png");
        assert.equal(read.author, "Ann");
        assert.equal(read.microsubChannelId, "c1");
        assert.ok(read.updatedAt.getTime() >= blog.updatedAt.getTime());
      });

      it("a listing that names no title never clears another's; with none at all the feed's host stands in", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const blog = await add({ feedUrl: "https://www.hostonly.example/feed", title: "Named by the owner's listing" });
        const again = await s.blogs.upsertFromSource({
          feedUrl: "https://www.hostonly.example/feed",
          source: "opml",
          sourceId: a.id,
        });
        assert.equal(again.outcome, "updated", "a new origin is recorded");
        assert.equal(((await s.blogs.get(blog.id)) as Blog).title, "Named by the owner's listing");
        const bare = await add({ feedUrl: "https://www.bare.example/feed", title: "  " });
        assert.equal(bare.title, "bare.example");
        const hostNamed = await add({ feedUrl: "https://www.named.example/feed", title: "named.example" });
        assert.deepEqual(
          hostNamed.origins[0].values,
          {},
          "a title that is only the host name is the placeholder: none given",
        );
      });

      it("remembers every origin in listing order; a new origin alone is an update, a repeat is unchanged", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "opml_file", name: "b" });
        const blog = await add({ feedUrl: "https://multi.example/feed", title: "M", sourceId: a.id, source: "opml" });
        const again = await s.blogs.upsertFromSource({
          feedUrl: "https://multi.example/feed",
          title: "M",
          sourceId: a.id,
          source: "opml",
        });
        assert.equal(again.outcome, "unchanged");
        assert.deepEqual(again.blog.updatedAt, blog.updatedAt, "nothing written");
        const second = await s.blogs.upsertFromSource({
          feedUrl: "https://multi.example/feed",
          title: "M",
          sourceId: b.id,
          source: "opml",
        });
        assert.equal(second.outcome, "updated");
        assert.equal(second.blog.id, blog.id);
        const owner = await s.blogs.upsertFromSource({ feedUrl: "https://multi.example/feed", source: "manual" });
        assert.equal(owner.outcome, "updated");
        assert.deepEqual(await originsOf(blog.id), [
          [a.id, "opml", { title: "M" }],
          [b.id, "opml", { title: "M" }],
          [OWNER_ORIGIN, "manual", {}],
        ]);
      });

      it("the public source is the kind of its first origin", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "feedland", name: "b" });
        const blog = await add({ feedUrl: "https://src.example/feed", title: "S", source: "opml", sourceId: a.id });
        const other = await s.blogs.upsertFromSource({
          feedUrl: "https://src.example/feed",
          title: "S",
          source: "feedland",
          sourceId: b.id,
        });
        assert.equal(other.blog.source, "opml");
        await s.blogs.unlist(a.id, { only: [blog.id] });
        assert.equal((await s.blogs.get(blog.id))?.source, "feedland");
        assert.deepEqual(await s.blogs.unlist(b.id, { except: [] }), [blog.id], "no origin lists it any more");
        assert.equal((await s.blogs.get(blog.id))?.source, null);
        assert.equal((await add({ source: null })).source, null);
      });

      it("never resurrects a deleted blog", async () => {
        const blog = await add({ feedUrl: "https://gone.example/feed", title: "Gone" });
        assert.equal(await s.blogs.softDelete(blog.id), true);
        const result = await s.blogs.upsertFromSource({
          feedUrl: "http://gone.example/feed/",
          title: "Back",
          source: "opml",
          category: "X",
        });
        assert.equal(result.outcome, "skipped-deleted");
        assert.equal(result.blog.id, blog.id);
        const read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.status, "deleted");
        assert.equal(read.title, "Gone");
        assert.equal(read.category, null);
        assert.equal(await s.blogs.count({ status: "deleted" }), 1);
        assert.equal(await s.blogs.count(), 0);
      });

      it("lists an unlisted blog again, its status as it was", async () => {
        const blog = await add({ status: "active" });
        await unlistAll(blog.id);
        assert.equal((await s.blogs.get(blog.id))?.status, "active");
        const result = await s.blogs.upsertFromSource({
          feedUrl: blog.feedUrl,
          title: blog.title,
          source: blog.source,
        });
        assert.equal(result.outcome, "reactivated");
        assert.equal(result.blog.status, "active");
        assert.equal((await list({ visibility: "public" })).total, 1);
      });

      it("never overwrites owner-edited fields", async () => {
        const blog = await add({
          feedUrl: "https://own.example/feed",
          title: "Feed title",
          category: "Feed cat",
          author: "Feed author",
        });
        await s.blogs.edit(blog.id, { title: "My title", category: "Mine" });
        const listing = {
          feedUrl: "https://own.example/feed",
          title: "Feed title 2",
          category: "Feed cat 2",
          author: "Feed author",
          source: "manual",
        };
        assert.equal(
          (await s.blogs.upsertFromSource(listing)).outcome,
          "updated",
          "the listing's own values are recorded",
        );
        assert.equal((await s.blogs.upsertFromSource(listing)).outcome, "unchanged");
        const updated = await s.blogs.upsertFromSource({
          feedUrl: "https://own.example/feed",
          title: "Feed title 3",
          author: "Other",
          source: "manual",
        });
        assert.equal(updated.outcome, "updated");
        const read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.title, "My title");
        assert.equal(read.category, "Mine");
        assert.equal(read.author, "Other");
      });
    });

    describe("provenance: every origin that lists a blog, one value per field", () => {
      const outline = (host: string, fields: Partial<ListedFeed> = {}): ListedFeed => ({
        xmlUrl: `https://${host}/feed.xml`,
        title: null,
        htmlUrl: null,
        description: null,
        type: null,
        category: null,
        ...fields,
      });
      /** What the public sees: the blogs with every field, the categories, and the OPML export's ETag. */
      async function publicState(now: Date) {
        const blogs = (await list({ visibility: "public" })).items;
        const dates = await recordBlogrollDates(s, now);
        const opml = await exportOpml(s, undefined, {
          links: [],
          owner: { name: null, url: null, locale: "en" },
          dates,
        });
        return { blogs, categories: await s.blogs.categories(), etag: strongEtag(Buffer.from(opml)) };
      }

      it("a blog the owner added stays listed, edits and all, when a source that also lists it drops it", async () => {
        const followed = await s.sources.create({ type: "blogroll", name: "Someone's blogroll" });
        const mine = await add({ feedUrl: "https://mine.example/feed.xml", source: "manual" });
        await s.blogs.edit(mine.id, { title: "My friend", pinned: true, notes: "Met at the meetup" });
        await importFeeds(s, followed, {
          feeds: [outline("mine.example", { title: "Their name for it" }), outline("other.example")],
        });
        assert.equal((await s.blogs.get(mine.id))?.title, "My friend");
        const report = await importFeeds(s, followed, { feeds: [outline("other.example")] });
        assert.equal(report.missing, 0, "nothing became unlisted");
        const read = (await s.blogs.get(mine.id)) as Blog;
        assert.deepEqual([read.title, read.pinned, read.notes], ["My friend", true, "Met at the meetup"]);
        assert.deepEqual(titles((await list({ visibility: "public" })).items).sort(), ["My friend", "other.example"]);
      });

      it('deleting a source with "Remove them" removes only the blogs no other origin lists', async () => {
        const followed = await s.sources.create({ type: "blogroll", name: "Someone's blogroll" });
        const other = await s.sources.create({ type: "opml_file", name: "My file" });
        const mine = await add({ feedUrl: "https://mine.example/feed.xml", source: "manual" });
        await s.blogs.edit(mine.id, { title: "My friend", pinned: true, notes: "Met at the meetup" });
        await s.items.upsertMany(mine.id, [newItem("kept", T0)], T0);
        await importFeeds(s, followed, {
          feeds: [outline("mine.example"), outline("shared.example"), outline("theirs.example")],
        });
        await importFeeds(s, other, { feeds: [outline("shared.example")] });
        for (const id of await s.blogs.detachSource(followed.id, false)) await s.blogs.purge(id);
        const read = (await s.blogs.get(mine.id)) as Blog;
        assert.deepEqual(
          [read.title, read.pinned, read.notes, read.status],
          ["My friend", true, "Met at the meetup", "pending"],
        );
        assert.equal((await s.items.list({ blogId: mine.id, limit: 10, offset: 0 })).length, 1, "its posts are kept");
        assert.deepEqual(titles((await list({ visibility: "public" })).items).sort(), ["My friend", "shared.example"]);
        assert.equal(await s.blogs.getByFeedUrl("https://theirs.example/feed.xml"), null);
      });

      it("the owner becomes an origin by adding, re-adding or editing a blog (hiding it is not enough)", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        await importFeeds(s, a, {
          feeds: [
            outline("edited.example"),
            outline("hidden.example"),
            outline("readded.example"),
            outline("rest.example"),
          ],
        });
        const edited = (await s.blogs.getByFeedUrl("https://edited.example/feed.xml")) as Blog;
        await s.blogs.edit(edited.id, { tags: ["friend"] });
        const hidden = (await s.blogs.getByFeedUrl("https://hidden.example/feed.xml")) as Blog;
        await s.blogs.edit(hidden.id, { hidden: true });
        assert.equal(
          (await s.blogs.upsertFromSource({ feedUrl: "https://readded.example/feed.xml", source: "manual" })).outcome,
          "updated",
        );
        const report = await importFeeds(s, a, { feeds: [outline("rest.example")] });
        assert.equal(report.missing, 1);
        assert.deepEqual(titles((await list({ status: "unlisted" })).items), ["hidden.example"]);
        assert.deepEqual(titles((await list({ origin: { id: OWNER_ORIGIN } })).items), [
          "edited.example",
          "readded.example",
        ]);
      });

      it("two sources listing the same blogs with different folders: the first origin's folder, and a hundred re-reads change nothing", async () => {
        const file = await s.sources.create({ type: "opml_file", name: "My file" });
        const followed = await s.sources.create({ type: "blogroll", name: "Someone's blogroll" });
        const friends = {
          feeds: [
            outline("bob.example", { title: "Bob", category: "Friends" }),
            outline("carol.example", { title: "Carol", category: "Friends" }),
          ],
        };
        const bare = {
          feeds: [outline("bob.example"), outline("carol.example", { title: "Carol's blog" }), outline("dave.example")],
        };
        assert.equal((await importFeeds(s, file, friends)).added, 2);
        assert.deepEqual(await importFeeds(s, followed, bare), {
          added: 1,
          updated: 2,
          unchanged: 0,
          skipped: 0,
          missing: 0,
          skippedFeeds: [],
        });
        const before = await publicState(T0);
        assert.deepEqual(
          before.blogs.map((blog) => [blog.title, blog.category]),
          [
            ["Bob", "Friends"],
            ["Carol", "Friends"],
            ["dave.example", null],
          ],
        );
        assert.deepEqual(before.categories, [{ name: "Friends", count: 2 }]);
        for (let round = 1; round <= 100; round++) {
          const first = round % 2 === 0 ? file : followed;
          const reports = [
            await importFeeds(s, first, first === file ? friends : bare),
            await importFeeds(s, first === file ? followed : file, first === file ? bare : friends),
          ];
          for (const report of reports)
            assert.deepEqual(
              [report.added, report.updated, report.missing],
              [0, 0, 0],
              `round ${round}: nothing added, updated or dropped`,
            );
          assert.deepEqual(
            await publicState(at(round * 3_600_000)),
            before,
            `round ${round}: every blog, category and the ETag as they were`,
          );
        }
      });

      it("a value comes from the owner, else the first origin that gives one, else the feed; a fetch never flips it", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "feedland", name: "b" });
        const { blog } = await s.blogs.upsertFromSource({
          feedUrl: "https://v.example/feed",
          source: "opml",
          sourceId: a.id,
          category: "Friends",
        });
        await s.blogs.upsertFromSource({
          feedUrl: blog.feedUrl,
          source: "feedland",
          sourceId: b.id,
          title: "B's name",
          category: "Colleagues",
        });
        const fetched = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: { title: "The feed's own title", siteUrl: "https://v.example/" },
        })) as Blog;
        assert.deepEqual(
          [fetched.title, fetched.category, fetched.siteUrl],
          ["B's name", "Friends", "https://v.example/"],
        );
        assert.deepEqual(fetched.feedValues, { title: "The feed's own title", siteUrl: "https://v.example/" });
        assert.equal(
          (
            await s.blogs.upsertFromSource({
              feedUrl: blog.feedUrl,
              source: "feedland",
              sourceId: b.id,
              title: "B's name",
              category: "Colleagues",
            })
          ).outcome,
          "unchanged",
        );
        // The first origin stops giving a folder: the next one's shows; it lists the blog without one: the feed's title shows.
        await s.blogs.upsertFromSource({ feedUrl: blog.feedUrl, source: "opml", sourceId: a.id });
        assert.equal((await s.blogs.get(blog.id))?.category, "Colleagues");
        await s.blogs.unlist(b.id, { only: [blog.id] });
        const read = (await s.blogs.get(blog.id)) as Blog;
        assert.deepEqual([read.title, read.category], ["The feed's own title", null]);
        await s.blogs.edit(blog.id, { title: "Mine", category: "Mine" });
        await s.blogs.upsertFromSource({
          feedUrl: blog.feedUrl,
          source: "opml",
          sourceId: a.id,
          title: "A's name",
          category: "Friends",
        });
        await s.blogs.recordFetch(blog.id, {
          at: at(1),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: { title: "Renamed feed" },
        });
        assert.deepEqual(
          [(await s.blogs.get(blog.id))?.title, (await s.blogs.get(blog.id))?.category],
          ["Mine", "Mine"],
          "what the owner typed wins",
        );
      });

      it("what was known of a feed before its first fetch (discovery, a recommender's outline) gives way to the feed's own values", async () => {
        const { blog } = await s.blogs.upsertFromSource({
          feedUrl: "https://s.example/feed",
          source: "manual",
          feed: { title: "A recommender's name", siteUrl: "https://elsewhere.example/", description: "Their words" },
        });
        assert.deepEqual(
          [blog.title, blog.siteUrl, blog.description],
          ["A recommender's name", "https://elsewhere.example/", "Their words"],
        );
        const fetched = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: { title: "S's own", siteUrl: "https://s.example/" },
        })) as Blog;
        assert.deepEqual(
          [fetched.title, fetched.siteUrl, fetched.description],
          ["S's own", "https://s.example/", "Their words"],
        );
        assert.deepEqual(await originsOf(blog.id), [[OWNER_ORIGIN, "manual", {}]]);
      });
    });

    describe("blogs.edit, softDelete, purge", () => {
      it("applies edits and marks them owner-edited, once each", async () => {
        const blog = await add();
        const edited = await s.blogs.edit(blog.id, { title: "T", tags: ["x", "y"], pinned: true, notes: "n" });
        assert.ok(edited);
        assert.equal(edited.title, "T");
        assert.deepEqual(edited.tags, ["x", "y"]);
        assert.equal(edited.pinned, true);
        assert.equal(edited.notes, "n");
        assert.deepEqual([...edited.ownerEdited].sort(), ["notes", "pinned", "tags", "title"]);
        const again = await s.blogs.edit(blog.id, { title: "T2", hidden: true });
        assert.deepEqual([...(again as Blog).ownerEdited].sort(), ["hidden", "notes", "pinned", "tags", "title"]);
        assert.deepEqual(await s.blogs.get(blog.id), again);
      });

      it("keeps what the owner says about a blog (relationship, note, fediverse and its profile page) as owner edits", async () => {
        const blog = await add();
        assert.deepEqual([blog.relationship, blog.note, blog.fediverse, blog.fediverseUrl], [[], null, null, null]);
        const edited = (await s.blogs.edit(blog.id, {
          relationship: ["friend", "met", "colleague"],
          note: "Writes about gardens.",
          fediverse: "@ana@social.example",
          fediverseUrl: "https://social.example/@ana",
        })) as Blog;
        assert.deepEqual(edited.relationship, ["friend", "met", "colleague"]);
        assert.equal(edited.note, "Writes about gardens.");
        assert.deepEqual(
          [edited.fediverse, edited.fediverseUrl],
          ["@ana@social.example", "https://social.example/@ana"],
        );
        assert.deepEqual([...edited.ownerEdited].sort(), ["fediverse", "note", "relationship"]);
        assert.deepEqual(await s.blogs.get(blog.id), edited);

        // No listing and no fetch ever touches them.
        await s.blogs.upsertFromSource({ feedUrl: blog.feedUrl, title: "Relisted", description: "d", source: "opml" });
        await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: { title: "Fetched", description: "feed" },
        });
        const kept = (await s.blogs.get(blog.id)) as Blog;
        assert.deepEqual(
          [kept.relationship, kept.note, kept.fediverse, kept.fediverseUrl],
          [
            ["friend", "met", "colleague"],
            "Writes about gardens.",
            "@ana@social.example",
            "https://social.example/@ana",
          ],
        );
        assert.equal((await list({ visibility: "public" })).items[0].note, "Writes about gardens.");
      });

      it("takes the fediverse profile page only with its handle: a new handle without one, or no handle, leaves none", async () => {
        const blog = await add();
        await s.blogs.edit(blog.id, { fediverse: "@ana@social.example", fediverseUrl: "https://social.example/@ana" });
        const moved = (await s.blogs.edit(blog.id, { fediverse: "@ana@other.example" })) as Blog;
        assert.deepEqual([moved.fediverse, moved.fediverseUrl], ["@ana@other.example", null]);
        await s.blogs.edit(blog.id, { fediverse: "@ana@social.example", fediverseUrl: "https://social.example/@ana" });
        const untouched = (await s.blogs.edit(blog.id, { fediverseUrl: "https://elsewhere.example/" })) as Blog;
        assert.equal(untouched.fediverseUrl, "https://social.example/@ana", "a page alone is no edit");
        const cleared = (await s.blogs.edit(blog.id, {
          fediverse: null,
          fediverseUrl: "https://social.example/@ana",
          relationship: [],
          note: null,
        })) as Blog;
        assert.deepEqual(
          [cleared.fediverse, cleared.fediverseUrl, cleared.relationship, cleared.note],
          [null, null, [], null],
        );
        assert.deepEqual(
          [...cleared.ownerEdited].sort(),
          ["fediverse", "note", "relationship"],
          "cleared by the owner is still the owner's",
        );
      });

      it("never stores the host-name placeholder as the owner's title: such an edit leaves the title to the feed", async () => {
        const blog = await add({ feedUrl: "https://www.placeholder.example/feed.xml", title: "placeholder.example" });
        const saved = (await s.blogs.edit(blog.id, { title: "placeholder.example", tags: ["t"] })) as Blog;
        assert.equal(saved.title, "placeholder.example");
        assert.deepEqual(saved.ownerEdited, ["tags"], "the tags are the owner's, the title is not");
        const fetched = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: { title: "The Real Title" },
        })) as Blog;
        assert.equal(fetched.title, "The Real Title", "the feed's own title replaces it");
        const typed = (await s.blogs.edit(blog.id, { title: "My Name For It" })) as Blog;
        assert.ok(typed.ownerEdited.includes("title"));
        const back = (await s.blogs.edit(blog.id, { title: "placeholder.example" })) as Blog;
        assert.equal(
          back.title,
          "The Real Title",
          "untyped, the title is the feed's own again (the host name is no one's value)",
        );
        assert.ok(!back.ownerEdited.includes("title"), "a typed title set back to the host name is untyped again");
        assert.deepEqual(back.ownerEdited, ["tags"]);
        const moved = (await s.blogs.recordFetch(blog.id, {
          at: at(3_600_000),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "https://new-home.example/feed.xml",
        })) as Blog;
        assert.equal(moved.movedFrom, "https://www.placeholder.example/feed.xml");
        const old = (await s.blogs.edit(blog.id, { title: "placeholder.example" })) as Blog;
        assert.ok(!old.ownerEdited.includes("title"), "the host of the address it moved from is a placeholder too");
        assert.deepEqual(await s.blogs.get(blog.id), old);
      });

      it("re-enables a gone blog with status, resetting back-off", async () => {
        const blog = await add({ status: "active" });
        await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "gone",
          error: "410",
          nextFetchAt: at(DAY),
          failureCount: 4,
        });
        const edited = (await s.blogs.edit(blog.id, { status: "active" })) as Blog;
        assert.equal(edited.status, "active");
        assert.equal(edited.failureCount, 0);
        assert.equal(edited.nextFetchAt, null);
        assert.deepEqual(edited.ownerEdited, []);
        assert.equal((await s.blogs.listDue(T0, 10)).length, 1);
      });

      it("returns null for unknown or deleted blogs", async () => {
        assert.equal(await s.blogs.edit("0123456789abcdef01234567", { title: "x" }), null);
        const blog = await add();
        await s.blogs.softDelete(blog.id);
        assert.equal(await s.blogs.edit(blog.id, { title: "x", status: "active" }), null);
        assert.equal((await s.blogs.get(blog.id))?.status, "deleted");
      });

      it("soft-deletes: status deleted, hidden, deletedAt; gone from lists", async () => {
        const blog = await add({ status: "active" });
        assert.equal(await s.blogs.softDelete("0123456789abcdef01234567"), false);
        assert.equal(await s.blogs.softDelete(blog.id, T0), true);
        const read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.status, "deleted");
        assert.equal(read.hidden, true);
        assert.equal(read.deletedAt?.getTime(), T0.getTime());
        assert.equal((await list({ visibility: "admin" })).total, 0);
        assert.equal((await list({ visibility: "public" })).total, 0);
        assert.equal((await s.blogs.getByFeedUrl(blog.feedUrl))?.id, blog.id, "deleted blogs keep their key");
      });

      it("hides and soft-deletes many blogs in one call: as the single edit and delete do, skipping deleted and unknown ones", async () => {
        const blogs: Blog[] = [];
        for (let i = 0; i < 6; i++) blogs.push(await add({ status: "active" }));
        await s.blogs.softDelete(blogs[5].id);
        await s.blogs.edit(blogs[4].id, { hidden: true });
        const unknown = "0123456789abcdef01234567";
        const ids = [blogs[0].id, blogs[1].id, blogs[1].id, blogs[4].id, blogs[5].id, unknown];
        assert.deepEqual((await s.blogs.hideMany({ ids })).sort(), [blogs[0].id, blogs[1].id].sort());
        for (const blog of blogs.slice(0, 2)) {
          const read = (await s.blogs.get(blog.id)) as Blog;
          assert.equal(read.hidden, true);
          assert.deepEqual(read.ownerEdited, ["hidden"], "hidden as the owner's edit, once");
          assert.deepEqual(read.origins, blog.origins, "hiding alone does not make the owner an origin");
        }
        assert.equal((await s.blogs.get(blogs[5].id))?.status, "deleted", "a deleted blog stays as it was");
        const deleted = await s.blogs.softDeleteMany({ ids: [blogs[2].id, blogs[3].id, blogs[5].id, unknown] }, T0);
        assert.deepEqual(deleted.sort(), [blogs[2].id, blogs[3].id].sort());
        for (const blog of blogs.slice(2, 4)) {
          const read = (await s.blogs.get(blog.id)) as Blog;
          assert.deepEqual([read.status, read.hidden, read.deletedAt?.getTime()], ["deleted", true, T0.getTime()]);
        }
        assert.equal((await list({ visibility: "admin" })).total, 3);
        assert.deepEqual(await s.blogs.hideMany({ ids: [] }), []);
        assert.deepEqual(await s.blogs.softDeleteMany({ ids: [] }), []);
      });

      it("hides and soft-deletes every blog a list's filters match, whatever the page", async () => {
        const tech: Blog[] = [];
        for (let i = 0; i < 5; i++) tech.push(await add({ category: "Tech", title: `Tech ${i}` }));
        const life = await add({ category: "Life", title: "Life" });
        const matching = { category: "Tech", search: "tech", limit: 2, offset: 0 };
        const hidden = await s.blogs.hideMany({ matching });
        assert.deepEqual(hidden.sort(), tech.map((blog) => blog.id).sort(), "every match, not a page of 2");
        assert.equal((await s.blogs.get(life.id))?.hidden, false);
        assert.deepEqual(await s.blogs.hideMany({ matching }), [], "already hidden: nothing to do");
        assert.equal((await s.blogs.softDeleteMany({ matching: { ...matching, status: "hidden" } })).length, 5);
        assert.equal((await list({ visibility: "admin" })).total, 1);
        assert.deepEqual(await s.blogs.softDeleteMany({ matching }), [], "deleted ones are never matched again");
      });

      it("purges a blog and its items", async () => {
        const blog = await add();
        const other = await add();
        await s.items.upsertMany(blog.id, [newItem("1", T0), newItem("2", T0)], T0);
        await s.items.upsertMany(other.id, [newItem("1", T0)], T0);
        await s.blogs.purge(blog.id);
        assert.equal(await s.blogs.get(blog.id), null);
        assert.equal(await s.blogs.getByFeedUrl(blog.feedUrl), null);
        assert.equal(await s.items.count(), 1);
        assert.equal((await add({ feedUrl: blog.feedUrl })).feedUrl, blog.feedUrl, "a purged blog can be added again");
      });
    });

    describe("blogs.list", () => {
      it("public hides hidden, deleted, unlisted and gone blogs; admin hides only deleted; publicTotals counts what public lists", async () => {
        const ids: Record<string, string> = {};
        for (const status of ["pending", "active", "error", "gone", "deleted"] as BlogStatus[]) {
          ids[status] = (await add({ title: status, status: "active" })).id;
          if (status !== "active") await setStatus(ids[status], status);
        }
        ids.unlisted = (await add({ title: "unlisted", status: "active" })).id;
        await unlistAll(ids.unlisted);
        ids.pending = (await add({ title: "pending" })).id;
        const hidden = await add({ title: "hidden", status: "active" });
        await s.blogs.edit(hidden.id, { hidden: true });
        const pub = await list({ visibility: "public" });
        assert.deepEqual(titles(pub.items).sort(), ["active", "error", "pending", "pending"]);
        assert.equal(pub.total, 4);
        for (const [index, status] of (["active", "gone", "unlisted", "error"] as const).entries()) {
          await s.items.upsertMany(
            ids[status],
            Array.from({ length: index + 1 }, (_, n) => newItem(`${status}-${n}`, at(-n * 1000))),
            T0,
          );
          await s.blogs.refreshItemStats(ids[status]);
        }
        await s.items.upsertMany(hidden.id, [newItem("hidden-0", T0)], T0);
        await s.blogs.refreshItemStats(hidden.id);
        assert.deepEqual(
          await s.blogs.publicTotals(),
          { blogs: 4, items: 1 + 4 },
          "the active and error blogs' items only",
        );
        const admin = await list({ visibility: "admin" });
        assert.deepEqual(titles(admin.items).sort(), [
          "active",
          "error",
          "gone",
          "hidden",
          "pending",
          "pending",
          "unlisted",
        ]);
        assert.deepEqual(titles((await list({ status: "hidden" })).items), ["hidden"]);
        assert.deepEqual(titles((await list({ status: "unlisted" })).items), ["unlisted"]);
        assert.deepEqual(titles((await list({ status: "gone" })).items), ["gone"]);
      });

      it("filters by category, source, origin (shared or not) and search", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "opml_url", name: "b" });
        await add({
          title: "One",
          category: "Tech",
          source: "opml",
          sourceId: a.id,
          feedUrl: "https://one.example/rss",
        });
        await add({
          title: "Two",
          category: "Life",
          source: "feedland",
          sourceId: b.id,
          siteUrl: "https://Needle.example/",
        });
        await add({ title: "Haystack with NEEDLE", category: "Tech", source: "opml", sourceId: b.id });
        await s.blogs.upsertFromSource({
          feedUrl: "https://one.example/rss",
          title: "One",
          source: "opml",
          sourceId: b.id,
        });
        assert.deepEqual(titles((await list({ category: "Tech" })).items), ["Haystack with NEEDLE", "One"]);
        assert.deepEqual(titles((await list({ category: "tech" })).items), []);
        assert.deepEqual(titles((await list({ source: "feedland" })).items), ["Two"]);
        assert.deepEqual(titles((await list({ origin: { id: a.id } })).items), ["One"]);
        assert.deepEqual(titles((await list({ origin: { id: b.id } })).items), ["Haystack with NEEDLE", "One", "Two"]);
        assert.deepEqual(titles((await list({ origin: { id: b.id, shared: true } })).items), ["One"]);
        assert.deepEqual(titles((await list({ origin: { id: b.id, shared: false } })).items), [
          "Haystack with NEEDLE",
          "Two",
        ]);
        assert.equal((await list({ origin: { id: b.id, shared: false }, limit: 0 })).total, 2);
        assert.deepEqual(titles((await list({ origin: { id: OWNER_ORIGIN } })).items), []);
        assert.deepEqual(titles((await list({ search: "needle" })).items), ["Haystack with NEEDLE", "Two"]);
        assert.deepEqual(titles((await list({ search: "ONE.EXAMPLE/RSS" })).items), ["One"]);
        assert.deepEqual(titles((await list({ search: "needle", category: "Life" })).items), ["Two"]);
        assert.deepEqual(titles((await list({ search: "%" })).items), [], "search is literal, not a pattern");
      });

      it("sorts by title: pinned first, then title ignoring case, then id", async () => {
        const created = [];
        for (const title of ["beta", "Alpha", "alpha", "Zulu", "charlie", "ALPHA"]) created.push(await add({ title }));
        await s.blogs.edit(created[3].id, { pinned: true });
        const alphas = created.filter((b) => b.title.toLowerCase() === "alpha").sort(byId);
        const { items } = await list({ visibility: "public" });
        assert.deepEqual(
          items.map((b) => b.id),
          [created[3].id, ...alphas.map((b) => b.id), created[0].id, created[4].id],
        );
        assert.deepEqual(
          (await list({ sort: "title" })).items.map((b) => b.id),
          items.map((b) => b.id),
        );
      });

      it("sorts by recent: pinned, newest item, then newest fetch, then title", async () => {
        const old = await add({ title: "old items" });
        const fresh = await add({ title: "fresh items" });
        const fetchedLate = await add({ title: "no items, fetched late" });
        const fetchedEarly = await add({ title: "no items, fetched early" });
        const neverB = await add({ title: "b never fetched" });
        const neverA = await add({ title: "A never fetched" });
        const pinned = await add({ title: "zz pinned, never fetched" });
        await s.blogs.edit(pinned.id, { pinned: true });
        await s.items.upsertMany(old.id, [newItem("o", at(-10 * DAY))], T0);
        await s.items.upsertMany(fresh.id, [newItem("f", at(-1 * DAY))], T0);
        for (const blog of [old, fresh]) await s.blogs.refreshItemStats(blog.id);
        // The old-items blog was fetched last: items still win over fetch time.
        await s.blogs.recordFetch(old.id, { at: at(DAY), status: "active", nextFetchAt: null, failureCount: 0 });
        await s.blogs.recordFetch(fetchedLate.id, {
          at: at(-DAY),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
        });
        await s.blogs.recordFetch(fetchedEarly.id, {
          at: at(-3 * DAY),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
        });
        const { items, total } = await list({ sort: "recent", visibility: "public" });
        assert.equal(total, 7);
        assert.deepEqual(
          items.map((b) => b.id),
          [pinned.id, fresh.id, old.id, fetchedLate.id, fetchedEarly.id, neverA.id, neverB.id],
        );
      });

      it("listPublic and getManyPublic give what list (public) and getMany give, reading only the public fields", async () => {
        const shown = await add({ title: "shown", category: "C", siteUrl: "https://shown.example/" });
        await s.blogs.edit(shown.id, { pinned: true, tags: ["t"], relationship: ["friend"], note: "a note" });
        await s.items.upsertMany(shown.id, [newItem("a", at(-DAY))], T0);
        await s.blogs.refreshItemStats(shown.id);
        await s.blogs.recordFetch(shown.id, { at: T0, status: "active", nextFetchAt: at(DAY), failureCount: 0 });
        const other = await add({ title: "other", category: "C" });
        await add({ title: "elsewhere", category: "D" });
        const hidden = await add({ title: "hidden", category: "C" });
        await s.blogs.edit(hidden.id, { hidden: true });
        const gone = await add({ title: "gone", category: "C" });
        await setStatus(gone.id, "gone");
        const publicFields = (blog: Blog) =>
          Object.fromEntries(PUBLIC_BLOG_FIELDS.map((field) => [field, blog[field]])) as Pick<Blog, "id">;
        for (const query of [{}, { category: "C" }, { sort: "recent" as const }, { limit: 1, offset: 1 }]) {
          const full = await list({ ...query, visibility: "public" });
          const light = await s.blogs.listPublic({ limit: 100, offset: 0, ...query });
          assert.equal(light.total, full.total, JSON.stringify(query));
          assert.deepEqual(light.items, full.items.map(publicFields), JSON.stringify(query));
          for (const blog of light.items) assert.deepEqual(Object.keys(blog).sort(), [...PUBLIC_BLOG_FIELDS].sort());
        }
        const ids = [shown.id, hidden.id, gone.id, other.id, "0123456789abcdef01234567"];
        const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
        assert.deepEqual(
          (await s.blogs.getManyPublic(ids)).sort(byId),
          (await s.blogs.getMany(ids)).map(publicFields).sort(byId),
          "whatever their visibility",
        );
        assert.deepEqual(await s.blogs.getManyPublic([]), []);
      });

      it("pages with limit/offset, total ignores them, limit 0 gives only the total", async () => {
        for (const title of ["a", "b", "c", "d", "e"]) await add({ title, category: "C" });
        await add({ title: "other" });
        const page = await list({ category: "C", limit: 2, offset: 1 });
        assert.deepEqual(titles(page.items), ["b", "c"]);
        assert.equal(page.total, 5);
        const last = await list({ category: "C", limit: 2, offset: 4 });
        assert.deepEqual(titles(last.items), ["e"]);
        assert.equal(last.total, 5);
        const beyond = await list({ category: "C", limit: 2, offset: 10 });
        assert.deepEqual(beyond, { items: [], total: 5 });
        assert.deepEqual(await list({ category: "C", limit: 0 }), { items: [], total: 5 });
      });
    });

    describe("blogs: sources, categories, due, counts", () => {
      it("unlists what an origin no longer lists: blogs another origin lists stay, the rest are unlisted", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "opml_url", name: "b" });
        const kept = await add({ sourceId: a.id, status: "active" });
        const dropped = await add({ sourceId: a.id, status: "active", category: "From a" });
        const shared = await add({ sourceId: a.id, status: "active", category: "From a" });
        await s.blogs.upsertFromSource({ feedUrl: shared.feedUrl, source: "opml", sourceId: b.id, category: "From b" });
        const deleted = await add({ sourceId: a.id });
        await s.blogs.softDelete(deleted.id);
        const unrelated = await add({ sourceId: b.id });
        assert.deepEqual(await s.blogs.unlist(a.id, { except: [kept.id] }), [dropped.id]);
        assert.deepEqual(await originsOf(kept.id), [[a.id, "manual", { title: kept.title }]]);
        const readDropped = (await s.blogs.get(dropped.id)) as Blog;
        assert.deepEqual(readDropped.origins, []);
        assert.equal(readDropped.status, "active", "its feed's status is kept");
        assert.equal(readDropped.category, "From a", "the owner still sees it as it was");
        const readShared = (await s.blogs.get(shared.id)) as Blog;
        assert.deepEqual(
          readShared.origins.map((origin) => origin.id),
          [b.id],
          "the origin that dropped it is forgotten",
        );
        assert.equal(readShared.category, "From b", "the next origin's value takes over");
        assert.equal((await s.blogs.get(deleted.id))?.status, "deleted");
        assert.deepEqual(await originsOf(unrelated.id), [[b.id, "manual", { title: unrelated.title }]]);
        assert.deepEqual(await s.blogs.unlist(a.id, { except: [kept.id] }), [], "nothing more to let go of");
        assert.deepEqual(
          (await list({ visibility: "public" })).items.map((blog) => blog.id).sort(),
          [kept.id, shared.id, unrelated.id].sort(),
        );
        // Listed again: back, with the values it gives.
        const back = await s.blogs.upsertFromSource({
          feedUrl: dropped.feedUrl,
          title: dropped.title,
          source: "opml",
          sourceId: a.id,
          category: "Back",
        });
        assert.equal(back.outcome, "reactivated");
        assert.equal(back.blog.category, "Back");
      });

      it("detaches a deleted source: blogs only it listed are returned to purge, or kept as the owner's with what it gave them", async () => {
        const a = await s.sources.create({ type: "opml_url", name: "a" });
        const b = await s.sources.create({ type: "opml_url", name: "b" });
        const onlyA = await add({ sourceId: a.id, source: "opml", category: "Friends" });
        const both = await add({ sourceId: a.id, source: "opml" });
        await s.blogs.upsertFromSource({
          feedUrl: both.feedUrl,
          title: both.title,
          source: "feedland",
          sourceId: b.id,
        });
        const mine = await add({ source: "manual" });
        await s.blogs.upsertFromSource({ feedUrl: mine.feedUrl, source: "opml", sourceId: a.id, category: "Theirs" });
        const onlyB = await add({ sourceId: b.id });
        const deleted = await add({ sourceId: a.id });
        await s.blogs.softDelete(deleted.id);
        assert.deepEqual(
          await s.blogs.detachSource(a.id, false),
          [onlyA.id],
          "deleted blogs are not offered for purging: they keep their URL",
        );
        assert.deepEqual((await s.blogs.get(deleted.id))?.origins, []);
        assert.deepEqual((await s.blogs.get(onlyA.id))?.origins, [], "unlisted until purged");
        const readBoth = (await s.blogs.get(both.id)) as Blog;
        assert.equal(readBoth.source, "feedland");
        assert.deepEqual(
          readBoth.origins.map((origin) => origin.id),
          [b.id],
        );
        assert.deepEqual(
          await originsOf(mine.id),
          [[OWNER_ORIGIN, "manual", { title: mine.title }]],
          "the owner's blog stays the owner's",
        );
        assert.equal((await s.blogs.get(mine.id))?.category, null, "the deleted source's folder goes with it");
        assert.deepEqual(await originsOf(onlyB.id), [[b.id, "manual", { title: onlyB.title }]]);
        assert.deepEqual(await s.blogs.detachSource(a.id, false), []);

        const c = await s.sources.create({ type: "opml_url", name: "c" });
        const onlyC = await add({ sourceId: c.id, source: "opml", title: "From c", category: "Friends" });
        assert.deepEqual(await s.blogs.detachSource(c.id, true), [], "kept: nothing to purge");
        const kept = (await s.blogs.get(onlyC.id)) as Blog;
        assert.deepEqual(
          kept.origins.map((origin) => [origin.id, origin.kind, origin.values]),
          [[OWNER_ORIGIN, "manual", { title: "From c", category: "Friends" }]],
        );
        assert.equal(kept.category, "Friends");
        assert.equal(kept.source, "manual");
        assert.equal((await list({ visibility: "public", category: "Friends" })).total, 1);
        assert.equal(
          (await s.blogs.upsertFromSource({ feedUrl: onlyC.feedUrl, source: "manual" })).outcome,
          "unchanged",
          "the owner adding it again takes nothing it gave away",
        );
      });

      it("counts categories of publicly visible blogs, by name", async () => {
        await add({ category: "Tech" });
        await add({ category: "Tech" });
        await add({ category: "Life" });
        await add({ category: "" });
        await add({ category: null });
        const hidden = await add({ category: "Secret" });
        await s.blogs.edit(hidden.id, { hidden: true });
        const deleted = await add({ category: "Tech" });
        await s.blogs.softDelete(deleted.id);
        await unlistAll((await add({ category: "Gone" })).id);
        assert.deepEqual(await s.blogs.categories(), [
          { name: "Life", count: 1 },
          { name: "Tech", count: 2 },
        ]);
      });

      it("lists due blogs: unfetched first, then by nextFetchAt, then id", async () => {
        const blogs: Blog[] = [];
        for (let i = 0; i < 7; i++) blogs.push(await add({ status: "active" }));
        const [never1, never2, early, late, future, errored, ms] = blogs;
        const fetch = (id: string, next: Date | null, status: BlogStatus = "active") =>
          s.blogs.recordFetch(id, { at: at(-DAY), status, nextFetchAt: next, failureCount: 0 });
        await fetch(early.id, at(-2 * 3_600_000));
        await fetch(late.id, at(-3_600_000));
        await fetch(future.id, at(1));
        await fetch(errored.id, T0, "error");
        const gone = await add({ status: "active" });
        await fetch(gone.id, at(1), "gone");
        const goneDue = await add({ status: "active" });
        await fetch(goneDue.id, at(-1), "gone");
        const deleted = await add();
        await s.blogs.softDelete(deleted.id);
        await unlistAll((await add()).id);
        await add({ skipItemFetch: true, source: "microsub" });
        await fetch(ms.id, T0);
        const due = await s.blogs.listDue(T0, 10);
        const nulls = [never1, never2].sort(byId).map((b) => b.id);
        const atNow = [errored, ms].sort(byId).map((b) => b.id);
        assert.deepEqual(
          due.map((b) => b.id),
          [...nulls, early.id, late.id, goneDue.id, ...atNow],
          "a gone blog is due at its weekly check",
        );
        assert.deepEqual(
          (await s.blogs.listDue(T0, 3)).map((b) => b.id),
          [...nulls, early.id],
        );
        assert.equal((await s.blogs.listDue(at(1), 10)).length, 9);
        // Pages continue after their last blog, across the never-scheduled and the scheduled ones.
        const paged: string[] = [];
        for (let page = await s.blogs.listDue(T0, 2); page.length > 0;) {
          paged.push(...page.map((b) => b.id));
          const last = page[page.length - 1];
          page = await s.blogs.listDue(T0, 2, { after: { id: last.id, nextFetchAt: last.nextFetchAt } });
        }
        assert.deepEqual(
          paged,
          due.map((b) => b.id),
        );
      });

      it("lists the blogs never fetched here that have a fediverse handle, listed and not deleted, by id in pages", async () => {
        const handle = (blog: Blog, name: string) =>
          s.blogs.edit(blog.id, { fediverse: `@${name}@social.example`, fediverseUrl: null });
        const followed: Blog[] = [];
        for (let i = 0; i < 3; i++) {
          const blog = await add({ skipItemFetch: true, source: "microsub" });
          await handle(blog, `m${i}`);
          followed.push(blog);
        }
        await add({ skipItemFetch: true, source: "microsub" });
        await handle(await add({ status: "active" }), "fetched");
        const deleted = await add({ skipItemFetch: true, source: "microsub" });
        await handle(deleted, "deleted");
        await s.blogs.softDelete(deleted.id);
        const unlisted = await add({ skipItemFetch: true, source: "microsub" });
        await handle(unlisted, "unlisted");
        await unlistAll(unlisted.id);
        const expected = followed.sort(byId).map((blog) => blog.id);
        const all = await s.blogs.listUnfetchedWithHandle("", 10);
        assert.deepEqual(
          all.map((blog) => blog.id),
          expected,
        );
        assert.ok(all.every((blog) => blog.skipItemFetch && /^@m\d@social\.example$/.test(blog.fediverse ?? "")));
        const paged: string[] = [];
        for (let page = await s.blogs.listUnfetchedWithHandle("", 2); page.length > 0;) {
          paged.push(...page.map((blog) => blog.id));
          page = await s.blogs.listUnfetchedWithHandle(page[page.length - 1].id, 2);
        }
        assert.deepEqual(paged, expected);
        assert.deepEqual(await s.blogs.listUnfetchedWithHandle("", 0), []);
      });

      it('"Sync now" pages through every fetchable blog by id, each once', async () => {
        const blogs: Blog[] = [];
        for (let i = 0; i < 5; i++) blogs.push(await add({ status: "active" }));
        await s.blogs.recordFetch(blogs[1].id, { at: T0, status: "active", nextFetchAt: at(DAY), failureCount: 0 });
        await s.blogs.recordFetch(blogs[3].id, { at: T0, status: "active", nextFetchAt: at(-DAY), failureCount: 0 });
        const paged: string[] = [];
        for (let page = await s.blogs.listDue(T0, 2, { everyone: true }); page.length > 0;) {
          paged.push(...page.map((b) => b.id));
          // A blog fetched meanwhile moves in the schedule's order, not in this one.
          await s.blogs.recordFetch(page[0].id, {
            at: T0,
            status: "active",
            nextFetchAt: at(2 * DAY),
            failureCount: 0,
          });
          const last = page[page.length - 1];
          page = await s.blogs.listDue(T0, 2, {
            everyone: true,
            after: { id: last.id, nextFetchAt: last.nextFetchAt },
          });
        }
        assert.deepEqual(paged, blogs.map((b) => b.id).sort());
      });

      it("counts blogs by status and source prefix, deleted only when asked", async () => {
        await add({ source: "microsub" });
        await add({ source: "microsub:channel" });
        await add({ source: "opml", status: "active" });
        const del = await add({ source: "microsub" });
        await s.blogs.softDelete(del.id);
        assert.equal(await s.blogs.count(), 3);
        assert.equal(await s.blogs.count({}), 3);
        assert.equal(await s.blogs.count({ sourcePrefix: "microsub" }), 2);
        assert.equal(await s.blogs.count({ sourcePrefix: "micro" }), 2);
        assert.equal(await s.blogs.count({ sourcePrefix: "opml" }), 1);
        assert.equal(await s.blogs.count({ status: "active" }), 1);
        assert.equal(await s.blogs.count({ status: "pending", sourcePrefix: "microsub" }), 2);
        assert.equal(await s.blogs.count({ status: "deleted" }), 1);
        assert.equal(await s.blogs.count({ status: "deleted", sourcePrefix: "opml" }), 0);
      });

      it("getMany returns known blogs, deleted included", async () => {
        const a = await add();
        const b = await add();
        await add();
        await s.blogs.softDelete(b.id);
        const many = await s.blogs.getMany([b.id, a.id, "0123456789abcdef01234567"]);
        assert.deepEqual(many.map((x) => x.id).sort(), [a.id, b.id].sort());
      });
    });

    describe("blogs.recordFetch and refreshItemStats", () => {
      it("writes the fetch outcome; undefined etag/lastModified/iconUrl leave them", async () => {
        const blog = await add();
        const first = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: at(3_600_000),
          failureCount: 0,
          etag: '"v1"',
          lastModified: "Mon, 06 May 2024 07:00:00 GMT",
          iconUrl: "https://site.example/icon.png",
        })) as Blog;
        assert.equal(first.status, "active");
        assert.equal(first.etag, '"v1"');
        assert.equal(first.lastModified, "Mon, 06 May 2024 07:00:00 GMT");
        assert.equal(first.iconUrl, "https://site.example/icon.png");
        const failed = (await s.blogs.recordFetch(blog.id, {
          at: at(1000),
          status: "error",
          error: "timeout",
          nextFetchAt: at(2 * 3_600_000),
          failureCount: 1,
        })) as Blog;
        assert.equal(failed.status, "error");
        assert.equal(failed.lastError, "timeout");
        assert.equal(failed.failureCount, 1);
        assert.equal(failed.lastFetchAt?.getTime(), at(1000).getTime());
        assert.equal(failed.etag, '"v1"');
        assert.equal(failed.lastModified, "Mon, 06 May 2024 07:00:00 GMT");
        assert.equal(failed.iconUrl, "https://site.example/icon.png");
        const ok = (await s.blogs.recordFetch(blog.id, {
          at: at(2000),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          etag: null,
        })) as Blog;
        assert.equal(ok.lastError, null);
        assert.equal(ok.etag, null);
        assert.equal(ok.nextFetchAt, null);
        assert.deepEqual(await s.blogs.get(blog.id), ok);
        assert.equal(
          await s.blogs.recordFetch("0123456789abcdef01234567", {
            at: T0,
            status: "active",
            nextFetchAt: null,
            failureCount: 0,
          }),
          null,
        );
      });

      it('setIcon records a site icon ("" for none), leaves the rest alone and skips deleted or unknown blogs', async () => {
        const blog = await add();
        assert.equal(await s.blogs.setIcon(blog.id, "https://site.example/touch.png"), true);
        const withIcon = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(withIcon.iconUrl, "https://site.example/touch.png");
        assert.deepEqual(
          { ...withIcon, iconUrl: blog.iconUrl, updatedAt: blog.updatedAt },
          blog,
          "nothing else changes",
        );
        assert.equal(await s.blogs.setIcon(blog.id, ""), true);
        assert.ok(!(await s.blogs.get(blog.id))?.iconUrl, "none found: no icon served");
        await s.blogs.softDelete(blog.id);
        assert.equal(await s.blogs.setIcon(blog.id, "https://site.example/late.png"), false);
        assert.ok(!(await s.blogs.get(blog.id))?.iconUrl);
        assert.equal(await s.blogs.setIcon("0123456789abcdef01234567", "https://x.example/i.png"), false);
      });

      it("writes feed metadata except owner-edited fields", async () => {
        const blog = await add({ title: null });
        await s.blogs.edit(blog.id, { author: "Owner's pick" });
        const written = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          metadata: {
            title: "From feed",
            description: "Desc",
            siteUrl: "https://s.example/",
            author: "Feed author",
            feedType: "json",
            photo: "https://s.example/p.png",
          },
        })) as Blog;
        assert.equal(written.title, "From feed");
        assert.equal(written.description, "Desc");
        assert.equal(written.siteUrl, "https://s.example/");
        assert.equal(written.feedType, "json");
        assert.equal(written.photo, "https://s.example/p.png");
        assert.equal(written.author, "Owner's pick");
        assert.deepEqual(
          (await list({ search: "from feed" })).items.map((b) => b.id),
          [blog.id],
          "the new title is searchable",
        );
      });

      it("follows a permanent redirect unless another blog has that URL", async () => {
        const blog = await add({ feedUrl: "https://old.example/feed" });
        const other = await add({ feedUrl: "https://taken.example/feed" });
        const moved = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "https://new.example/feed",
        })) as Blog;
        assert.equal(moved.feedUrl, "https://new.example/feed");
        assert.equal((await s.blogs.getByFeedUrl("http://new.example/feed/"))?.id, blog.id);
        assert.equal(
          (await s.blogs.getByFeedUrl("https://old.example/feed"))?.id,
          blog.id,
          "still found under the address it moved from",
        );
        const refused = (await s.blogs.recordFetch(blog.id, {
          at: at(1),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "http://taken.example/feed/",
        })) as Blog;
        assert.equal(refused.feedUrl, "https://new.example/feed");
        assert.equal(refused.lastFetchAt?.getTime(), at(1).getTime(), "the rest of the record is still written");
        assert.equal((await s.blogs.getByFeedUrl("https://taken.example/feed"))?.id, other.id);
        const twin = (await s.blogs.recordFetch(blog.id, {
          at: at(2),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "http://new.example/feed",
        })) as Blog;
        assert.equal(twin.feedUrl, "http://new.example/feed", "its own twin is not 'another blog'");
      });

      it("never changes the status of a deleted blog, nor lists an unlisted one", async () => {
        const deleted = await add();
        await s.blogs.softDelete(deleted.id);
        await s.blogs.recordFetch(deleted.id, { at: T0, status: "active", nextFetchAt: null, failureCount: 0 });
        assert.equal((await s.blogs.get(deleted.id))?.status, "deleted");
        const unlisted = await add();
        await unlistAll(unlisted.id);
        await s.blogs.recordFetch(unlisted.id, { at: T0, status: "active", nextFetchAt: null, failureCount: 0 });
        assert.equal((await s.blogs.get(unlisted.id))?.status, "active");
        assert.equal((await list({ visibility: "public" })).total, 0);
      });

      it("refreshes itemCount and lastItemAt from stored items", async () => {
        const blog = await add();
        await s.blogs.refreshItemStats(blog.id);
        let read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.itemCount, 0);
        assert.equal(read.lastItemAt, null);
        await s.items.upsertMany(blog.id, [newItem("a", at(-DAY)), newItem("b", at(-5)), newItem("c", null)], T0);
        await s.blogs.refreshItemStats(blog.id);
        read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.itemCount, 3);
        assert.equal(read.lastItemAt?.getTime(), at(-5).getTime());
        const undatedOnly = await add();
        await s.items.upsertMany(undatedOnly.id, [newItem("u", null)], T0);
        await s.blogs.refreshItemStats(undatedOnly.id);
        read = (await s.blogs.get(undatedOnly.id)) as Blog;
        assert.equal(read.itemCount, 1);
        assert.equal(read.lastItemAt, null);
      });
    });

    describe("schedules and health", () => {
      const schedule = (posts: Date[], extra: Partial<NonNullable<FetchRecord["schedule"]>> = {}) => ({
        recentPosts: posts,
        fetchInterval: 2 * HOUR,
        fetchReason: "posting-rate",
        waitUntil: null,
        ...extra,
      });

      it("keeps a blog's schedule: recent posts newest first, newest post ever, interval, reason, Retry-After", async () => {
        const blog = await add({ status: "active" });
        assert.deepEqual(
          [blog.recentPosts, blog.lastPostAt, blog.fetchInterval, blog.fetchReason, blog.waitUntil],
          [[], null, null, null, null],
        );
        const posts = [at(-3 * DAY), at(-DAY), at(-2 * DAY)];
        const written = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: at(HOUR),
          failureCount: 0,
          schedule: schedule(posts),
        })) as Blog;
        for (const b of [written, (await s.blogs.get(blog.id)) as Blog]) {
          assert.deepEqual(
            b.recentPosts.map((d) => d.getTime()),
            [at(-DAY), at(-2 * DAY), at(-3 * DAY)].map((d) => d.getTime()),
          );
          assert.equal(b.lastPostAt?.getTime(), at(-DAY).getTime());
          assert.equal(b.fetchInterval, 2 * HOUR);
          assert.equal(b.fetchReason, "posting-rate");
        }
        // A fetch without a schedule (the admin's clear-and-resync) leaves it; the newest post never moves back.
        await s.blogs.recordFetch(blog.id, { at: at(1), status: "active", nextFetchAt: null, failureCount: 0 });
        assert.equal(((await s.blogs.get(blog.id)) as Blog).fetchInterval, 2 * HOUR);
        const waitUntil = at(5 * HOUR);
        await s.blogs.recordFetch(blog.id, {
          at: at(2),
          status: "error",
          nextFetchAt: waitUntil,
          failureCount: 1,
          schedule: schedule([at(-9 * DAY)], { fetchInterval: 5 * HOUR, fetchReason: "retry-after", waitUntil }),
        });
        const later = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(later.lastPostAt?.getTime(), at(-DAY).getTime());
        assert.equal(later.waitUntil?.getTime(), waitUntil.getTime());
        assert.equal(later.fetchReason, "retry-after");
      });

      it("keeps a push hint's budget and only ever brings the next fetch forward", async () => {
        const blog = await add({ status: "active" });
        assert.equal(blog.hintBudgetAt, null);
        await s.blogs.recordFetch(blog.id, { at: T0, status: "active", nextFetchAt: at(2 * HOUR), failureCount: 0 });
        await s.blogs.recordHint(blog.id, { budgetAt: at(HOUR) });
        let read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.hintBudgetAt?.getTime(), at(HOUR).getTime());
        assert.equal(read.nextFetchAt?.getTime(), at(2 * HOUR).getTime(), "no time given: the schedule is left alone");
        await s.blogs.recordHint(blog.id, { budgetAt: at(2 * HOUR), nextFetchAt: at(HOUR / 2) });
        read = (await s.blogs.get(blog.id)) as Blog;
        assert.deepEqual(
          [read.hintBudgetAt?.getTime(), read.nextFetchAt?.getTime()],
          [at(2 * HOUR).getTime(), at(HOUR / 2).getTime()],
        );
        await s.blogs.recordHint(blog.id, { budgetAt: at(3 * HOUR), nextFetchAt: at(HOUR) });
        read = (await s.blogs.get(blog.id)) as Blog;
        assert.equal(read.nextFetchAt?.getTime(), at(HOUR / 2).getTime(), "a later time never pushes the fetch back");
        assert.equal(read.hintBudgetAt?.getTime(), at(3 * HOUR).getTime());
        // A blog due now (no time set) stays due now.
        const due = await add({ status: "active" });
        await s.blogs.recordHint(due.id, { budgetAt: at(HOUR), nextFetchAt: at(HOUR / 2) });
        assert.equal(((await s.blogs.get(due.id)) as Blog).nextFetchAt, null);
        await s.blogs.recordHint(newId(), { budgetAt: at(HOUR) });
      });

      it("knows since when a blog fails, until it succeeds", async () => {
        const blog = await add({ status: "active" });
        const fail = (when: Date, failureCount: number) =>
          s.blogs.recordFetch(blog.id, {
            at: when,
            status: "error",
            error: "HTTP 500",
            nextFetchAt: null,
            failureCount,
          });
        await fail(at(-8 * DAY), 1);
        await fail(at(-DAY), 2);
        assert.equal(((await s.blogs.get(blog.id)) as Blog).failingSince?.getTime(), at(-8 * DAY).getTime());
        await s.blogs.recordFetch(blog.id, { at: T0, status: "active", nextFetchAt: null, failureCount: 0 });
        assert.equal(((await s.blogs.get(blog.id)) as Blog).failingSince, null);
      });

      it("remembers where a permanent redirect moved a blog from", async () => {
        const blog = await add({ feedUrl: "https://before.example/feed" });
        assert.equal(blog.movedFrom, null);
        const moved = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          feedUrl: "https://after.example/feed",
        })) as Blog;
        assert.equal(moved.movedFrom, "https://before.example/feed");
        assert.equal(moved.movedAt?.getTime(), T0.getTime());
      });

      it("dates a run of redirects ending in 404/410 (deadEndSince): kept while it lasts, ended by any other outcome or a re-enable", async () => {
        const blog = await add({ status: "active" });
        assert.equal(blog.deadEndSince, null);
        const first = (await s.blogs.recordFetch(blog.id, {
          at: at(-3 * DAY),
          status: "error",
          error: "redirects to a 404",
          deadEnd: true,
          nextFetchAt: null,
          failureCount: 1,
        })) as Blog;
        assert.equal(first.deadEndSince?.getTime(), at(-3 * DAY).getTime());
        const again = (await s.blogs.recordFetch(blog.id, {
          at: T0,
          status: "gone",
          error: "redirects to a 404",
          deadEnd: true,
          nextFetchAt: at(7 * DAY),
          failureCount: 2,
        })) as Blog;
        assert.equal(again.deadEndSince?.getTime(), at(-3 * DAY).getTime(), "the run keeps its start");
        assert.equal((await s.blogs.get(blog.id))?.status, "gone");
        const other = (await s.blogs.recordFetch(blog.id, {
          at: at(HOUR),
          status: "error",
          error: "HTTP 500",
          nextFetchAt: null,
          failureCount: 3,
        })) as Blog;
        assert.equal(other.deadEndSince, null, "another failure ends the run");
        await s.blogs.recordFetch(blog.id, {
          at: at(2 * HOUR),
          status: "error",
          deadEnd: true,
          nextFetchAt: null,
          failureCount: 4,
        });
        const reenabled = (await s.blogs.edit(blog.id, { status: "pending" })) as Blog;
        assert.equal(reenabled.deadEndSince, null);
      });

      it('"Sync now" lists every fetchable blog, due or not, except those told to wait and gone ones before their check', async () => {
        const notDue = await add({ status: "active" });
        await s.blogs.recordFetch(notDue.id, {
          at: T0,
          status: "active",
          nextFetchAt: at(DAY),
          failureCount: 0,
          schedule: schedule([]),
        });
        const waiting = await add({ status: "active" });
        await s.blogs.recordFetch(waiting.id, {
          at: T0,
          status: "error",
          nextFetchAt: at(HOUR),
          failureCount: 1,
          schedule: schedule([], { waitUntil: at(HOUR) }),
        });
        const waited = await add({ status: "active" });
        await s.blogs.recordFetch(waited.id, {
          at: at(-HOUR),
          status: "error",
          nextFetchAt: at(DAY),
          failureCount: 1,
          schedule: schedule([], { waitUntil: at(-1) }),
        });
        const gone = await add({ status: "active" });
        await s.blogs.recordFetch(gone.id, { at: T0, status: "gone", nextFetchAt: at(7 * DAY), failureCount: 1 });
        const goneDue = await add({ status: "active" });
        await s.blogs.recordFetch(goneDue.id, {
          at: at(-7 * DAY),
          status: "gone",
          nextFetchAt: at(-1),
          failureCount: 1,
        });
        await add({ skipItemFetch: true, source: "microsub" });
        const fresh = await add();
        assert.deepEqual(
          (await s.blogs.listDue(T0, 10)).map((b) => b.id),
          [fresh.id, goneDue.id],
        );
        assert.deepEqual(
          (await s.blogs.listDue(T0, 10, { everyone: true })).map((b) => b.id).sort(),
          [notDue.id, waited.id, fresh.id, goneDue.id].sort(),
        );
      });

      it("filters and counts blogs by health: dormant, failing, moved, gone; and by how they are kept fresh", async () => {
        const query = { dormantBefore: at(-180 * DAY), failingSince: at(-7 * DAY) };
        const fetch = (id: string, record: Partial<FetchRecord>) =>
          s.blogs.recordFetch(id, { at: T0, status: "active", nextFetchAt: null, failureCount: 0, ...record });
        const dormant = await add({ title: "Dormant" });
        await fetch(dormant.id, { schedule: schedule([at(-200 * DAY)], { fetchInterval: DAY }) });
        const lively = await add({ title: "Lively" });
        await fetch(lively.id, { schedule: schedule([at(-DAY)]) });
        const paced = await add({ title: "Paced" });
        await fetch(paced.id, { schedule: schedule([at(-DAY)], { fetchReason: "server" }) });
        const pushed = await add({ title: "Pushed" });
        await fetch(pushed.id, { schedule: schedule([at(-DAY)], { fetchReason: "push" }) });
        const failing = await add({ title: "Failing" });
        await fetch(failing.id, { at: at(-8 * DAY), status: "error", error: "HTTP 500", failureCount: 1 });
        await fetch(failing.id, { status: "error", error: "HTTP 502", failureCount: 2 });
        const erring = await add({ title: "Erring" });
        await fetch(erring.id, { status: "error", error: "HTTP 500", failureCount: 1 });
        const gone = await add({ title: "Gone" });
        await fetch(gone.id, { status: "gone", failureCount: 1 });
        const moved = await add({ title: "Moved", feedUrl: "https://moving.example/feed" });
        await fetch(moved.id, { feedUrl: "https://moved.example/feed", schedule: schedule([at(-DAY)]) });
        await add({ title: "Pending" });
        await add({ title: "Microsub", skipItemFetch: true, source: "microsub", status: "active" });
        const deleted = await add({ title: "Deleted" });
        await fetch(deleted.id, { schedule: schedule([at(-400 * DAY)]) });
        await s.blogs.softDelete(deleted.id);

        const filtered = async (condition: "dormant" | "failing" | "moved") =>
          titles((await list({ health: { condition, ...query } })).items);
        assert.deepEqual(await filtered("dormant"), ["Dormant"]);
        assert.deepEqual(await filtered("failing"), ["Failing"]);
        assert.deepEqual(await filtered("moved"), ["Moved"]);
        assert.deepEqual(titles((await list({ status: "gone" })).items), ["Gone"]);

        assert.deepEqual(await s.blogs.healthCounts(query), {
          freshness: { schedule: 3, server: 1, push: 1, backoff: 2, pending: 1, external: 1, off: 1 },
          health: { healthy: 5, dormant: 1, failing: 1, erroring: 2, gone: 1, moved: 1 },
        });
      });
    });

    describe("items", () => {
      it("upserts by (blog, uid): adds, updates changed, ignores unchanged", async () => {
        const blog = await add();
        const other = await add();
        const first = await s.items.upsertMany(
          blog.id,
          [newItem("a", at(-2)), newItem("b", at(-1), { categories: ["x", "y"] })],
          T0,
        );
        assert.deepEqual(first, { added: 2, updated: 0 });
        assert.deepEqual(await s.items.upsertMany(other.id, [newItem("a", at(-2))], T0), { added: 1, updated: 0 });
        const before = await s.items.list({ blogId: blog.id, limit: 10, offset: 0 });
        const second = await s.items.upsertMany(
          blog.id,
          [
            newItem("a", at(-2)),
            newItem("b", at(-1), { categories: ["x", "y"], title: "Changed" }),
            newItem("c", null),
          ],
          at(DAY),
        );
        assert.deepEqual(second, { added: 1, updated: 1 });
        for (const [field, value] of [
          ["summary", "s2"],
          ["content", "c2"],
          ["url", "https://example.net/moved"],
          ["published", at(-3)],
          ["author", "Ann"],
          ["photo", "https://example.net/p.jpg"],
          ["categories", ["z"]],
        ] as const) {
          const result = await s.items.upsertMany(blog.id, [newItem("a", at(-2), { [field]: value })], T0);
          assert.deepEqual(result, { added: 0, updated: 1 }, field);
        }
        const after = await s.items.list({ blogId: blog.id, limit: 10, offset: 0 });
        assert.equal(after.length, 3);
        assert.equal(await s.items.count(), 4);
        const b = after.find((i) => i.uid === "b");
        assert.equal(b?.id, before.find((i) => i.uid === "b")?.id, "ids are stable across updates");
        assert.equal(b?.title, "Changed");
        assert.deepEqual(b?.categories, ["x", "y"]);
        const a = after.find((i) => i.uid === "a");
        assert.deepEqual(a?.categories, ["z"]);
        assert.equal(a?.published?.getTime(), at(-2).getTime());
      });

      it("lists without the content when asked (content: false), the rest as with it", async () => {
        const blog = await add({ category: "C" });
        const ahead = at(3 * DAY);
        await s.items.upsertMany(
          blog.id,
          [newItem("dated", at(-DAY)), newItem("ahead", ahead), newItem("undated", null)],
          T0,
        );
        await s.blogs.refreshItemStats(blog.id);
        for (const query of [{}, { blogId: blog.id }, { category: "C" }, { offset: 1 }]) {
          const full = await s.items.list({ limit: 10, offset: 0, ...query });
          const light = await s.items.list({ limit: 10, offset: 0, ...query, content: false });
          assert.equal(full.length, query.offset ? 2 : 3, JSON.stringify(query));
          assert.ok(full.every((item) => item.content !== null));
          assert.deepEqual(
            light,
            full.map((item) => ({ ...item, content: null })),
            JSON.stringify(query),
          );
        }
      });

      it("lists newest first, undated after dated, ties by id descending", async () => {
        const blog = await add();
        const same = at(-DAY);
        await s.items.upsertMany(
          blog.id,
          [newItem("undated1", null), newItem("old", at(-2 * DAY)), newItem("tie1", same)],
          T0,
        );
        await s.items.upsertMany(
          blog.id,
          [newItem("tie2", same), newItem("new", at(-1)), newItem("undated2", null)],
          T0,
        );
        const items = await s.items.list({ blogId: blog.id, limit: 10, offset: 0 });
        const ties = items
          .filter((i) => i.uid.startsWith("tie"))
          .sort(byId)
          .reverse()
          .map((i) => i.uid);
        const undated = items
          .filter((i) => i.uid.startsWith("undated"))
          .sort(byId)
          .reverse()
          .map((i) => i.uid);
        assert.deepEqual(
          items.map((i) => i.uid),
          ["new", ...ties, "old", ...undated],
        );
        const page = await s.items.list({ blogId: blog.id, limit: 2, offset: 3 });
        assert.deepEqual(
          page.map((i) => i.id),
          items.slice(3, 5).map((i) => i.id),
        );
        assert.deepEqual(await s.items.list({ blogId: blog.id, limit: 0, offset: 0 }), []);
      });

      it("lists a post dated more than a day ahead after every dated post, and does not make its blog recent", async () => {
        const blog = await add({ category: "Ahead" });
        const now = Date.now();
        const far = new Date(now + 400 * DAY);
        await s.items.upsertMany(
          blog.id,
          [
            newItem("far", far),
            newItem("two-days", new Date(now + 2 * DAY)),
            newItem("soon", new Date(now + DAY / 2)),
            newItem("today", new Date(now - 1000)),
            newItem("old", new Date(now - 3 * DAY)),
            newItem("undated", null),
          ],
          new Date(now),
        );
        await s.blogs.refreshItemStats(blog.id);
        for (const query of [{ blogId: blog.id }, {}, { category: "Ahead" }]) {
          const uids = (await s.items.list({ ...query, limit: 10, offset: 0 })).map((i) => i.uid);
          assert.deepEqual(uids, ["soon", "today", "old", "far", "two-days", "undated"], JSON.stringify(query));
          assert.deepEqual(
            (await s.items.list({ ...query, limit: 2, offset: 2 })).map((i) => i.uid),
            ["old", "far"],
          );
          assert.deepEqual(
            (await s.items.list({ ...query, limit: 5, offset: 5 })).map((i) => i.uid),
            ["undated"],
          );
        }
        assert.equal(
          (await s.blogs.get(blog.id))?.lastItemAt?.getTime(),
          now + DAY / 2,
          "lastItemAt is the newest post within a day ahead",
        );
      });

      it("a category's pages follow the same order as the whole list, at every offset", async () => {
        const now = Date.now();
        const mixed = [await add({ category: "Mix" }), await add({ category: "Mix" }), await add({ category: "Mix" })];
        const hidden = await add({ category: "Mix" });
        const other = await add({ category: "Other" });
        const tie = new Date(now - 5 * 3600_000);
        let n = 0;
        for (const blog of [...mixed, hidden, other]) {
          const items: NewItem[] = [];
          for (let k = 0; k < 7; k++) {
            n++;
            const published =
              k === 0
                ? tie
                : k === 1
                  ? null
                  : k === 2 && blog === mixed[1]
                    ? new Date(now + 90 * DAY)
                    : new Date(now - ((n * 7919) % 97) * 3600_000);
            items.push(newItem(`p${n}`, published));
          }
          await s.items.upsertMany(blog.id, items, new Date(now));
        }
        await s.blogs.edit(hidden.id, { hidden: true });
        const ids = new Set(mixed.map((blog) => blog.id));
        const whole = (await s.items.list({ limit: 100, offset: 0 }))
          .filter((item) => ids.has(item.blogId))
          .map((item) => item.id);
        assert.equal(whole.length, 21);
        for (const [limit, offset] of [
          [21, 0],
          [1, 0],
          [5, 0],
          [5, 3],
          [4, 17],
          [10, 15],
          [3, 30],
        ]) {
          const page = (await s.items.list({ category: "Mix", limit, offset })).map((item) => item.id);
          assert.deepEqual(page, whole.slice(offset, offset + limit), `limit ${limit} offset ${offset}`);
        }
      });

      it("without blogId lists items of publicly visible blogs only; filters by blog category", async () => {
        const tech = await add({ category: "Tech" });
        const life = await add({ category: "Life" });
        const hidden = await add({ category: "Tech" });
        const deleted = await add({ category: "Tech" });
        const inactive = await add({ category: "Tech" });
        const gone = await add({ category: "Tech", status: "active" });
        let n = 0;
        for (const blog of [tech, life, hidden, deleted, inactive, gone]) {
          await s.items.upsertMany(blog.id, [newItem(`i${n}`, at(-n * 1000))], T0);
          n++;
        }
        await s.blogs.edit(hidden.id, { hidden: true });
        await s.blogs.softDelete(deleted.id);
        await unlistAll(inactive.id);
        await setStatus(gone.id, "gone");
        const all = await s.items.list({ limit: 10, offset: 0 });
        assert.deepEqual(
          all.map((i) => i.blogId),
          [tech.id, life.id],
          "a gone blog's items are not public",
        );
        assert.deepEqual(
          (await s.items.list({ category: "Tech", limit: 10, offset: 0 })).map((i) => i.blogId),
          [tech.id],
        );
        assert.deepEqual(
          (await s.items.list({ limit: 1, offset: 1 })).map((i) => i.blogId),
          [life.id],
        );
        assert.equal(
          (await s.items.list({ blogId: hidden.id, limit: 10, offset: 0 })).length,
          1,
          "a blogId query sees its blog's items",
        );
        assert.equal(
          (await s.items.list({ blogId: gone.id, limit: 10, offset: 0 })).length,
          1,
          "the admin still reads a gone blog's items",
        );
      });

      it("latestByBlog gives each blog's first items in list order, in one call; blogs without items and unknown ids are left out", async () => {
        const one = await add();
        const two = await add();
        await s.blogs.edit(two.id, { hidden: true });
        const empty = await add();
        const ahead = new Date(Date.now() + 3 * DAY);
        await s.items.upsertMany(
          one.id,
          [
            newItem("u", null),
            newItem("1", at(-3)),
            newItem("2", at(-2)),
            newItem("3", at(-1)),
            newItem("ahead", ahead),
          ],
          T0,
        );
        await s.items.upsertMany(two.id, [newItem("x", null), newItem("y", at(-5))], T0);
        const latest = await s.items.latestByBlog([one.id, two.id, empty.id, newId(), one.id], 2);
        assert.deepEqual([...latest.keys()].sort(), [one.id, two.id].sort());
        assert.deepEqual(
          latest.get(one.id)?.map((i) => i.uid),
          ["3", "2"],
        );
        assert.deepEqual(
          latest.get(two.id)?.map((i) => i.uid),
          ["y", "x"],
          "undated after dated, hidden blogs too",
        );
        for (const blog of [one, two]) {
          const listed = await s.items.list({ blogId: blog.id, limit: 5, offset: 0 });
          assert.deepEqual(
            (await s.items.latestByBlog([blog.id], 5)).get(blog.id),
            listed,
            "the same items as list, in its order",
          );
        }
        assert.deepEqual(
          (await s.items.latestByBlog([one.id], 5)).get(one.id)?.map((i) => i.uid),
          ["3", "2", "1", "ahead", "u"],
          "posts more than a day ahead after the others",
        );
        assert.equal((await s.items.latestByBlog([one.id], 0)).size, 0);
        assert.equal((await s.items.latestByBlog([], 3)).size, 0);
      });

      it("store trims a blog to its newest items, undated last, and refreshes its stats", async () => {
        const blog = await add();
        const other = await add();
        await s.items.upsertMany(
          blog.id,
          [newItem("u", null), newItem("1", at(-3)), newItem("2", at(-2)), newItem("3", at(-1))],
          T0,
        );
        await s.items.upsertMany(other.id, [newItem("x", at(-9))], T0);
        assert.deepEqual(await s.items.store(blog.id, [], T0, 2), { added: 0, updated: 0, trimmed: 2 });
        assert.deepEqual(
          (await s.items.list({ blogId: blog.id, limit: 10, offset: 0 })).map((i) => i.uid),
          ["3", "2"],
        );
        assert.equal((await s.blogs.get(blog.id))?.itemCount, 2);
        assert.equal((await s.items.store(blog.id, [], T0, 5)).trimmed, 0);
        assert.equal(await s.items.count(), 3);
      });

      it("stores a fetch's items in one call: upserted, trimmed to the newest `keep`, the blog's stats refreshed", async () => {
        const blog = await add();
        const first = await s.items.store(blog.id, [newItem("1", at(-3)), newItem("2", at(-2))], T0, 3);
        assert.deepEqual(first, { added: 2, updated: 0, trimmed: 0 });
        let stored = await s.blogs.get(blog.id);
        assert.equal(stored?.itemCount, 2, "stats refreshed without a trim");
        assert.deepEqual(stored?.lastItemAt, at(-2));
        const changed = newItem("2", at(-2), { title: "Changed" });
        const second = await s.items.store(blog.id, [changed, newItem("3", at(-1)), newItem("4", at(0))], T0, 3);
        assert.deepEqual(second, { added: 2, updated: 1, trimmed: 1 });
        assert.deepEqual(
          (await s.items.list({ blogId: blog.id, limit: 10, offset: 0 })).map((i) => [i.uid, i.title]),
          [
            ["4", "Title 4"],
            ["3", "Title 3"],
            ["2", "Changed"],
          ],
        );
        stored = await s.blogs.get(blog.id);
        assert.equal(stored?.itemCount, 3);
        assert.deepEqual(stored?.lastItemAt, at(0));
        assert.deepEqual(await s.items.store(blog.id, [], T0, 3), { added: 0, updated: 0, trimmed: 0 });
      });

      it("prunes by date as dates: 8 days old and undated-fetched-long-ago go, 6 days and future stay", async () => {
        const now = new Date();
        const cutoff = new Date(now.getTime() - 7 * DAY);
        const a = await add();
        const b = await add();
        const c = await add();
        await s.items.upsertMany(
          a.id,
          [
            newItem("8d", new Date(now.getTime() - 8 * DAY)),
            newItem("6d", new Date(now.getTime() - 6 * DAY)),
            newItem("at-cutoff", cutoff),
            newItem("future", new Date(now.getTime() + 30 * DAY)),
          ],
          now,
        );
        await s.items.upsertMany(b.id, [newItem("undated-old", null)], new Date(now.getTime() - 9 * DAY));
        await s.items.upsertMany(b.id, [newItem("undated-new", null)], new Date(now.getTime() - DAY));
        // A very old item and one just past the cutoff go too.
        await s.items.upsertMany(
          c.id,
          [
            newItem("y2k", new Date("2000-12-31T23:59:59.999Z")),
            newItem("later", new Date(now.getTime() - 8 * DAY + 60_000)),
          ],
          now,
        );
        for (const blog of [a, b, c]) await s.blogs.refreshItemStats(blog.id);
        const result = await s.items.pruneOlderThan(cutoff);
        assert.equal(result.deleted, 4);
        assert.deepEqual([...result.blogIds].sort(), [a.id, b.id, c.id].sort());
        const left = (await s.items.list({ limit: 100, offset: 0 })).map((i) => i.uid).sort();
        assert.deepEqual(left, ["6d", "at-cutoff", "future", "undated-new"], "strictly older than the cutoff goes");
        assert.equal((await s.blogs.get(a.id))?.itemCount, 3, "stats refreshed by the prune");
        assert.equal((await s.blogs.get(c.id))?.itemCount, 0);
        assert.equal((await s.blogs.get(c.id))?.lastItemAt, null);
        assert.deepEqual(await s.items.pruneOlderThan(cutoff), { deleted: 0, blogIds: [] });
      });

      it("deleteAll clears items and resets every blog's stats", async () => {
        const a = await add();
        const b = await add();
        await s.items.upsertMany(a.id, [newItem("1", T0), newItem("2", T0)], T0);
        await s.items.upsertMany(b.id, [newItem("1", T0)], T0);
        for (const blog of [a, b]) await s.blogs.refreshItemStats(blog.id);
        assert.equal((await s.blogs.get(a.id))?.itemCount, 2);
        assert.equal(await s.items.deleteAll(), 3);
        assert.equal(await s.items.count(), 0);
        for (const blog of [a, b]) {
          const read = (await s.blogs.get(blog.id)) as Blog;
          assert.equal(read.itemCount, 0);
          assert.equal(read.lastItemAt, null);
        }
      });
    });

    describe("sources", () => {
      it("creates with defaults, lists in creation order, updates, deletes", async () => {
        const first = await s.sources.create({
          type: "opml_url",
          name: "First",
          settings: { url: "https://x.example/opml" },
        });
        assert.equal(first.enabled, true);
        assert.equal(first.status, "pending");
        assert.deepEqual(first.settings, { url: "https://x.example/opml" });
        assert.equal(first.lastError, null);
        assert.equal(first.lastSyncAt, null);
        assert.equal(first.lastImport, null);
        assert.equal(first.etag, null);
        assert.equal(first.lastModified, null);
        assert.ok(first.createdAt instanceof Date && first.updatedAt instanceof Date);
        const second = await s.sources.create({ type: "feedland", name: "Second", enabled: false });
        assert.equal(second.enabled, false);
        assert.deepEqual(second.settings, {});
        assert.deepEqual(
          (await s.sources.list()).map((x) => x.id),
          [first.id, second.id],
        );
        assert.equal(await s.sources.count(), 2);

        const counts = { added: 1, updated: 2, unchanged: 3, skipped: 4, missing: 5 };
        const updated = (await s.sources.update(first.id, {
          name: "Renamed",
          enabled: false,
          settings: { url: "https://y.example/opml", category: "Tech" },
          status: "ok",
          lastError: null,
          lastSyncAt: T0,
          lastImport: counts,
          etag: '"e"',
          lastModified: "yesterday",
        })) as NonNullable<Awaited<ReturnType<Storage["sources"]["get"]>>>;
        assert.equal(updated.name, "Renamed");
        assert.equal(updated.enabled, false);
        assert.deepEqual(updated.settings, { url: "https://y.example/opml", category: "Tech" });
        assert.equal(updated.status, "ok");
        assert.equal(updated.lastSyncAt?.getTime(), T0.getTime());
        assert.deepEqual(updated.lastImport, counts);
        assert.equal(updated.etag, '"e"');
        assert.equal(updated.lastModified, "yesterday");
        assert.equal(updated.type, "opml_url");
        assert.deepEqual(await s.sources.get(first.id), updated);
        const partial = await s.sources.update(first.id, { status: "error", lastError: "boom" });
        assert.equal(partial?.name, "Renamed");
        assert.equal(partial?.lastError, "boom");
        assert.equal(await s.sources.update("0123456789abcdef01234567", { name: "x" }), null);

        assert.equal(await s.sources.delete(first.id), true);
        assert.equal(await s.sources.delete(first.id), false);
        assert.equal(await s.sources.get(first.id), null);
        assert.equal(await s.sources.count(), 1);
      });
    });

    describe("meta and leases", () => {
      it("stores JSON documents by key", async () => {
        assert.equal(await s.meta.get("status"), null);
        await s.meta.set("status", { running: false, counts: [1, 2], nested: { a: "b" }, none: null });
        assert.deepEqual(await s.meta.get("status"), {
          running: false,
          counts: [1, 2],
          nested: { a: "b" },
          none: null,
        });
        await s.meta.set("status", "replaced");
        assert.equal(await s.meta.get("status"), "replaced");
        await s.meta.set("n", 42);
        assert.equal(await s.meta.get<number>("n"), 42);
      });

      it("grants a lease to one holder at a time until it expires", async () => {
        const ttl = 60_000;
        assert.equal(await s.meta.acquireLease("sync", "A", ttl, T0), true);
        assert.equal(await s.meta.acquireLease("sync", "B", ttl, at(1000)), false, "held by A");
        assert.equal(await s.meta.acquireLease("other", "B", ttl, at(1000)), true, "leases are per name");
        assert.equal(await s.meta.acquireLease("sync", "A", ttl, at(30_000)), true, "A renews");
        assert.equal(await s.meta.acquireLease("sync", "B", ttl, at(ttl + 1000)), false, "renewal extended A's lease");
        assert.equal(await s.meta.acquireLease("sync", "B", ttl, at(30_000 + ttl)), true, "expired exactly now");
        assert.equal(await s.meta.acquireLease("sync", "A", ttl, at(30_000 + ttl + 1)), false, "now B holds it");
      });

      it("releases a lease only for its holder", async () => {
        assert.equal(await s.meta.acquireLease("sync", "A", 60_000, T0), true);
        await s.meta.releaseLease("sync", "B");
        assert.equal(await s.meta.acquireLease("sync", "B", 60_000, at(1)), false);
        await s.meta.releaseLease("sync", "A");
        assert.equal(await s.meta.acquireLease("sync", "B", 60_000, at(2)), true);
        await s.meta.releaseLease("never-taken", "A");
      });
    });

    describe("push subscriptions", () => {
      const subscription = (blogId: string, fields: Partial<PushSubscription> = {}): PushSubscription => ({
        id: newId(),
        blogId,
        kind: "websub",
        hub: "https://hub.example/",
        topic: "https://blog.example/feed.xml",
        callbackToken: `token-${Math.random().toString(36).slice(2)}`,
        secret: "s3cret",
        state: "requested",
        leaseSeconds: 864_000,
        expiresAt: null,
        lastError: null,
        requestedAt: T0,
        verifiedAt: null,
        lastNotifiedAt: null,
        distrustedUntil: null,
        createdAt: T0,
        updatedAt: T0,
        ...fields,
      });

      it("stores a subscription and finds it by id, callback token, blog and topic, dates kept to the millisecond", async () => {
        const blog = await add();
        const record = subscription(blog.id, { expiresAt: at(DAY), verifiedAt: at(5), state: "active" });
        await s.push.put(record);
        assert.deepEqual(await s.push.get(record.id), record);
        assert.deepEqual(await s.push.getByToken(record.callbackToken), record);
        assert.deepEqual(await s.push.listByBlog(blog.id), [record]);
        assert.deepEqual(await s.push.listByTopic("websub", record.topic), [record]);
        assert.deepEqual(await s.push.listByTopic("rsscloud", record.topic), []);
        assert.equal(await s.push.getByToken("token-unknown"), null);
        assert.equal(await s.push.get(newId()), null);
      });

      it("replaces by id, keeps one subscription per blog and kind, and deletes", async () => {
        const blog = await add();
        const first = subscription(blog.id);
        await s.push.put(first);
        await s.push.put({ ...first, state: "denied", lastError: "no", updatedAt: at(1) });
        assert.equal((await s.push.get(first.id))?.state, "denied");
        const cloud = subscription(blog.id, { kind: "rsscloud", secret: null });
        await s.push.put(cloud);
        const second = subscription(blog.id);
        await s.push.put(second);
        assert.equal(await s.push.get(first.id), null, "the blog's earlier WebSub subscription was replaced");
        assert.deepEqual((await s.push.listByBlog(blog.id)).map((x) => x.id).sort(), [cloud.id, second.id].sort());
        assert.equal((await s.push.list()).length, 2);
        assert.equal(await s.push.delete(second.id), true);
        assert.equal(await s.push.delete(second.id), false);
        assert.deepEqual(
          (await s.push.list()).map((x) => x.id),
          [cloud.id],
        );
      });

      it("notes a notification's time and nothing else", async () => {
        const blog = await add();
        const record = subscription(blog.id, { state: "active", expiresAt: at(DAY), verifiedAt: at(5) });
        await s.push.put(record);
        await s.push.noteNotified(record.id, at(60));
        assert.deepEqual(await s.push.get(record.id), { ...record, lastNotifiedAt: at(60) });
        await s.push.noteNotified(newId(), at(60));
      });

      it("refuses a filter object where a callback token belongs", async () => {
        await s.push.put(subscription((await add()).id));
        await assert.rejects(s.push.getByToken({ $ne: null } as unknown as string));
      });
    });

    describe("recommendations: followed blogs' blogrolls, suggestion candidates, dismissals", () => {
      const rec = (host: string, extra: Partial<Recommendation> = {}): Recommendation => ({
        feedUrl: `https://${host}/feed.xml`,
        siteUrl: `https://${host}/`,
        title: host,
        description: null,
        ...extra,
      });
      const record = (blogId: string, fields: Partial<BlogBlogroll> = {}): BlogBlogroll => ({
        blogId,
        url: "https://friend.example/blogroll.opml",
        via: "head",
        checkedAt: T0,
        etag: '"v1"',
        lastModified: null,
        count: 0,
        ...fields,
      });

      it("saves a blog's blogroll record and entries; a save without entries (304) keeps them", async () => {
        const { blog } = await s.blogs.upsertFromSource(newBlog());
        assert.equal(await s.recommendations.getBlogroll(blog.id), null);
        assert.deepEqual(await s.recommendations.entries(blog.id), []);
        const entries = [
          rec("a.example", { description: "About A" }),
          rec("b.example", { siteUrl: null, title: null }),
          rec("A.example"),
        ];
        await s.recommendations.saveBlogroll(record(blog.id, { count: 3 }), entries);
        assert.deepEqual(await s.recommendations.getBlogroll(blog.id), record(blog.id, { count: 3 }));
        assert.deepEqual(
          await s.recommendations.entries(blog.id),
          entries.slice(0, 2),
          "in order, a repeat by normalised address dropped",
        );
        await s.recommendations.saveBlogroll(record(blog.id, { checkedAt: at(DAY), etag: '"v2"', count: 3 }));
        assert.equal((await s.recommendations.getBlogroll(blog.id))?.etag, '"v2"');
        assert.deepEqual((await s.recommendations.getBlogroll(blog.id))?.checkedAt, at(DAY));
        assert.equal((await s.recommendations.entries(blog.id)).length, 2);
        await s.recommendations.saveBlogroll(record(blog.id, { url: null, via: null }), []);
        assert.deepEqual(await s.recommendations.entries(blog.id), []);
        assert.equal((await s.recommendations.getBlogroll(blog.id))?.url, null);
      });

      it("keeps at most MAX_RECOMMENDATIONS_PER_BLOG entries of one blogroll", async () => {
        const { blog } = await s.blogs.upsertFromSource(newBlog());
        const many = Array.from({ length: MAX_RECOMMENDATIONS_PER_BLOG + 50 }, (_, index) => rec(`m${index}.example`));
        await s.recommendations.saveBlogroll(record(blog.id, { count: many.length }), many);
        const kept = await s.recommendations.entries(blog.id);
        assert.equal(kept.length, MAX_RECOMMENDATIONS_PER_BLOG);
        assert.equal(kept.at(-1)?.feedUrl, many[MAX_RECOMMENDATIONS_PER_BLOG - 1].feedUrl);
      });

      it("lists candidates most recommended first, leaving out followed (any status, by normalised address), dismissed and too rarely listed feeds", async () => {
        const blogs = [];
        for (let index = 0; index < 4; index++) blogs.push((await s.blogs.upsertFromSource(newBlog())).blog);
        const followed = (await s.blogs.upsertFromSource(newBlog({ feedUrl: "https://followed.example/feed.xml" })))
          .blog;
        await s.blogs.softDelete(followed.id);
        const lists: string[][] = [
          ["three.example", "two.example", "followed.example", "gone.example", "once.example"],
          ["three.example", "two.example", "followed.example", "gone.example"],
          ["three.example", "FOLLOWED.example", "gone.example"],
          ["zeta.example", "alpha.example"],
        ];
        for (const [index, hosts] of lists.entries())
          await s.recommendations.saveBlogroll(
            record(blogs[index].id, { count: hosts.length }),
            hosts.map((host) => rec(host)),
          );
        await s.recommendations.saveBlogroll(record(blogs[3].id, { count: 3 }), [
          rec("zeta.example"),
          rec("alpha.example"),
          rec("two.example", { title: "Two, by its own name", description: "Two writes" }),
        ]);
        await s.recommendations.dismiss("https://GONE.example/feed.xml/", at(5));
        await s.recommendations.dismiss("https://gone.example/feed.xml", at(6));

        const candidates = await s.recommendations.candidates({ minRecommenders: 2, limit: 10 });
        assert.deepEqual(
          candidates.map((c) => [new URL(c.outlines[0].feedUrl).hostname, c.outlines.length]),
          [
            ["three.example", 3],
            ["two.example", 3],
          ],
        );
        assert.deepEqual(
          candidates[0].outlines.map((outline) => outline.blogId),
          [blogs[0].id, blogs[1].id, blogs[2].id].sort(),
          "one outline per recommender, in the order they were followed",
        );
        assert.deepEqual(
          candidates[1].outlines.map(({ blogId, ...outline }) => [blogId, outline]),
          [
            [blogs[0].id, rec("two.example")],
            [blogs[1].id, rec("two.example")],
            [blogs[3].id, rec("two.example", { title: "Two, by its own name", description: "Two writes" })],
          ],
          "each recommender's own outline, unmixed",
        );
        const ones = await s.recommendations.candidates({ minRecommenders: 1, limit: 10 });
        assert.deepEqual(
          ones.map((c) => new URL(c.outlines[0].feedUrl).hostname),
          ["three.example", "two.example", "alpha.example", "once.example", "zeta.example"],
          "ties by feed address",
        );
        assert.equal((await s.recommendations.candidates({ minRecommenders: 1, limit: 2 })).length, 2);
      });

      it("a purged blog's blogroll is no longer counted; a record for an unknown blog is not kept", async () => {
        const a = (await s.blogs.upsertFromSource(newBlog())).blog;
        const b = (await s.blogs.upsertFromSource(newBlog())).blog;
        await s.recommendations.saveBlogroll(record(a.id), [rec("x.example")]);
        await s.recommendations.saveBlogroll(record(b.id), [rec("x.example")]);
        assert.equal((await s.recommendations.candidates({ minRecommenders: 2, limit: 5 })).length, 1);
        await s.blogs.purge(b.id);
        assert.deepEqual(await s.recommendations.candidates({ minRecommenders: 1, limit: 5 }), [
          { outlines: [{ ...rec("x.example"), blogId: a.id }] },
        ]);
        assert.equal(await s.recommendations.getBlogroll(b.id), null);
        const unknown = "0123456789abcdef01234567";
        await s.recommendations.saveBlogroll(record(unknown), [rec("y.example")]);
        assert.equal(await s.recommendations.getBlogroll(unknown), null);
      });
    });
  });
}
