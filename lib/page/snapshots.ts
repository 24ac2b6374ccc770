import { backgroundTurn } from "./turns.js";
import type { BlogrollContext } from "../context.js";
import { isPubliclyVisible } from "../api/public-items.js";
import { BoundedMap } from "./cache.js";
import { changeCount, onStorageWrite, type SettledWrite } from "../storage/change-count.js";
import type { Blog, Item, Storage } from "../storage/types.js";

/** A publicly visible blog and its latest posts, as read from storage. */
export interface ReadBlog {
  blog: Blog;
  /** Newest first, at most the `latest` it was read for. */
  posts: Item[];
}

/** Most blogs one page lists. */
export const MAX_PAGE_BLOGS = 10_000;
/**
 * Blogs read, or blogs' latest posts, per storage call. The build yields to
 * other requests between calls (SQLite answers each in one piece, on this
 * thread), so a rebuild never holds the server for more than one of them:
 * about a millisecond for 50 blogs, most of it making blogs of their rows.
 */
const PAGE = 50;
/** Blogs a refresh reads again at most; a change touching more is read in full. */
const MAX_TOUCHED = PAGE;
/** Writes remembered (what each touched), for refreshes of snapshots taken before them. */
const WRITES_KEPT = 1024;

/**
 * Every publicly visible blog of the category, as the storage's one public
 * rule says. A write between two pages may shift the list by one: a blog is
 * kept once, and the page's rebuilds see the write and build again.
 */
async function visibleBlogs(storage: Storage, category: string | undefined): Promise<Blog[]> {
  const blogs = new Map<string, Blog>();
  for (let offset = 0; offset < MAX_PAGE_BLOGS; offset += PAGE) {
    if (offset > 0) await backgroundTurn();
    const { items, total } = await storage.blogs.list({
      category,
      visibility: "public",
      sort: "title",
      limit: Math.min(PAGE, MAX_PAGE_BLOGS - offset),
      offset,
    });
    for (const blog of items) blogs.set(blog.id, blog);
    if (items.length < PAGE || offset + items.length >= total) break;
  }
  return [...blogs.values()];
}

/** The latest posts of each blog: our own from storage a page of blogs per call, a Microsub blog's from the Microsub plugin. */
async function latestPosts(
  context: BlogrollContext,
  storage: Storage,
  blogs: Blog[],
  latest: number,
): Promise<Map<string, Item[]>> {
  if (latest === 0) return new Map();
  const isMicrosub = (blog: Blog) => blog.source === "microsub" && blog.microsubFeedId !== null;
  // Counters say which blogs have posts: the others cost no read.
  const withPosts = blogs.filter((blog) => !isMicrosub(blog) && blog.itemCount > 0).map((blog) => blog.id);
  const posts = new Map<string, Item[]>();
  for (let start = 0; start < withPosts.length; start += PAGE) {
    await backgroundTurn();
    for (const [id, items] of await storage.items.latestByBlog(withPosts.slice(start, start + PAGE), latest))
      posts.set(id, items);
  }
  const microsub = context.getMicrosub();
  if (!microsub) return posts;
  for (const blog of blogs.filter(isMicrosub)) {
    const items = await microsub.listItems({ feedIds: [blog.microsubFeedId as string], limit: latest, offset: 0 });
    if (items.length > 0) posts.set(blog.id, items);
  }
  return posts;
}

/** The visible blogs of one category (or all) with their latest posts, and where the change record stood when read. */
interface Snapshot {
  blogs: ReadonlyMap<string, ReadBlog>;
  /** The storage's write count when its read began: every write of this process settled before is in it. */
  writes: number;
  /** The newest live event when its read began: every event up to it is in it. */
  seq: number;
  /** When the full read it was refreshed from began. */
  fullAt: number;
  /** Not counted: snapshots are bounded by number (they share most of their blogs). */
  bytes: 0;
}

/**
 * The page's reads of the visible blogs and their latest posts, kept per
 * category and number of posts, and refreshed after a change by reading
 * again only the blogs it touched: those this process's writes name (the
 * storage's count of writes says what each one wrote), and those the live
 * event log names (every process sharing the database writes it). Read in
 * full instead when that is not known (a write that may touch any blog, more
 * events or blogs than a refresh reads, writes or events forgotten) and when
 * the last full read is `ttlMs` old: the bound for changes neither records
 * (another process's that leave no event, the Microsub plugin's).
 */
export class BlogSnapshots {
  private readonly kept: BoundedMap<Snapshot>;
  /** Writes of this process settled since this began, oldest first (consecutive counts). */
  private readonly written: SettledWrite[] = [];
  private readonly unsubscribe: () => void;
  /** Reads so far: in full, and refreshes of the changed blogs only. */
  readonly reads = { full: 0, refreshes: 0 };

  constructor(
    private readonly context: BlogrollContext,
    private readonly storage: Storage,
    private readonly ttlMs: number,
    capacity: number,
  ) {
    this.kept = new BoundedMap(capacity);
    this.unsubscribe = onStorageWrite(storage, (write) => {
      this.written.push(write);
      if (this.written.length > WRITES_KEPT) this.written.shift();
    });
  }

  /** The visible blogs of `category` (all when undefined) with their `latest` posts each, by id. */
  async read(category: string | undefined, latest: number, now = Date.now()): Promise<ReadonlyMap<string, ReadBlog>> {
    const key = JSON.stringify([category ?? null, latest]);
    const writes = changeCount(this.storage);
    const { newest: seq, oldest } = await this.storage.events.bounds();
    const base = this.kept.get(key);
    if (base && now - base.fullAt < this.ttlMs) {
      const touched = await this.touchedSince(base, seq, oldest);
      const blogs = touched && (await this.refresh(base.blogs, touched, category, latest));
      if (blogs) {
        this.reads.refreshes++;
        this.keep(key, { blogs, writes, seq, fullAt: base.fullAt, bytes: 0 });
        return blogs;
      }
    }
    this.reads.full++;
    const list = await visibleBlogs(this.storage, category);
    const posts = await latestPosts(this.context, this.storage, list, latest);
    const blogs = new Map(list.map((blog) => [blog.id, { blog, posts: posts.get(blog.id) ?? [] }]));
    this.keep(key, { blogs, writes, seq, fullAt: now, bytes: 0 });
    return blogs;
  }

  /** Stops hearing of writes (the responder's storage changed). */
  close(): void {
    this.unsubscribe();
  }

  /** Kept unless a snapshot taken later already is (reads of one key may overlap). */
  private keep(key: string, snapshot: Snapshot): void {
    const kept = this.kept.get(key);
    if (kept && (kept.writes > snapshot.writes || kept.seq > snapshot.seq)) return;
    this.kept.set(key, snapshot);
  }

  /**
   * The blogs changed since `base` was read, by this process's writes and by
   * the events logged up to `seq`; null when that is not known.
   */
  private async touchedSince(base: Snapshot, seq: number, oldest: number | null): Promise<Set<string> | null> {
    const touched = new Set<string>();
    const current = changeCount(this.storage);
    if (current > base.writes) {
      const first = this.written.findIndex((write) => write.count > base.writes);
      if (first < 0 || this.written[first].count !== base.writes + 1) return null;
      for (const write of this.written.slice(first)) {
        if (!write.blogIds) return null;
        for (const id of write.blogIds) touched.add(id);
      }
    }
    if (seq > base.seq) {
      // Events trimmed from the log since: what they named is not known.
      if (oldest === null || oldest > base.seq + 1) return null;
      const events = await this.storage.events.after(base.seq, MAX_TOUCHED + 1);
      if (events.length > MAX_TOUCHED) return null;
      for (const event of events) touched.add(event.blogId);
    }
    return touched.size > MAX_TOUCHED ? null : touched;
  }

  /** `blogs` with the `touched` ones read again (null when the result would be more than a page lists). */
  private async refresh(
    blogs: ReadonlyMap<string, ReadBlog>,
    touched: Set<string>,
    category: string | undefined,
    latest: number,
  ): Promise<ReadonlyMap<string, ReadBlog> | null> {
    if (touched.size === 0) return blogs;
    // A full read stops at MAX_PAGE_BLOGS in the storage's title order: which blogs it keeps is its to say.
    if (blogs.size >= MAX_PAGE_BLOGS) return null;
    const read = await this.storage.blogs.getMany([...touched]);
    const visible = read.filter(
      (blog) => isPubliclyVisible(blog) && (category === undefined || blog.category === category),
    );
    const posts = await latestPosts(this.context, this.storage, visible, latest);
    const next = new Map(blogs);
    for (const id of touched) next.delete(id);
    for (const blog of visible) next.set(blog.id, { blog, posts: posts.get(blog.id) ?? [] });
    return next.size > MAX_PAGE_BLOGS ? null : next;
  }
}
