import { backgroundTurn } from "./turns.js";
import type { BlogrollContext } from "../context.js";
import { futureHorizon } from "../storage/future.js";
import type { Blog, Item, Storage } from "../storage/types.js";
import type { PageQuery } from "./query.js";
import { DAY } from "../time/durations.js";

/** One blog as the page shows it: its latest posts and when it last posted. */
export interface PageBlog {
  blog: Blog;
  /** Newest first, at most `latest`. */
  posts: Item[];
  /** Its newest post's date as far as we know (stored posts, else what its feed last showed); null when never seen. */
  lastPostAt: Date | null;
}

/** A category's blogs in the page's order; `category` null for blogs without one (or for the one list of `group=none`). */
export interface PageGroup {
  category: string | null;
  blogs: PageBlog[];
}

export interface BlogrollData {
  groups: PageGroup[];
  /** Blogs listed, over all groups. */
  count: number;
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

/** The latest posts of each blog: our own from storage in one call, a Microsub blog's from the Microsub plugin. */
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

/** The newest of the dates we have for a blog's last post, those more than a day ahead left out. */
function lastPostDate(blog: Blog, posts: Item[], horizon: number): Date | null {
  let newest: Date | null = null;
  for (const date of [posts[0]?.published ?? null, blog.lastPostAt, blog.lastItemAt]) {
    if (date && date.getTime() <= horizon && (!newest || date > newest)) newest = date;
  }
  return newest;
}

/**
 * Natural title order ("Blog 2" before "Blog 10", case and accents aside),
 * in the page's language; pinned blogs first. With `recent`, the blog with
 * the newest post comes first and blogs without a known post last, by title.
 */
function compareBlogs(sort: PageQuery["sort"], collator: Intl.Collator) {
  const byTitle = (a: PageBlog, b: PageBlog) =>
    collator.compare(a.blog.title, b.blog.title) || (a.blog.id < b.blog.id ? -1 : a.blog.id > b.blog.id ? 1 : 0);
  return (a: PageBlog, b: PageBlog): number => {
    if (a.blog.pinned !== b.blog.pinned) return a.blog.pinned ? -1 : 1;
    if (sort === "recent") {
      const at = a.lastPostAt?.getTime() ?? -Infinity;
      const bt = b.lastPostAt?.getTime() ?? -Infinity;
      if (at !== bt) return bt - at;
    }
    return byTitle(a, b);
  };
}

/** A collator for natural order in `locale` (English when the tag is not one Intl knows). */
export function naturalCollator(locale: string): Intl.Collator {
  const options: Intl.CollatorOptions = { numeric: true, sensitivity: "base" };
  try {
    return new Intl.Collator(locale, options);
  } catch {
    return new Intl.Collator("en", options);
  }
}

/**
 * The blogroll as the page shows it: the visible blogs of the query (null
 * when it names a category no visible blog has), each with its latest
 * posts, in the page's order, grouped by category unless `group=none`.
 * Categories follow natural order, blogs without one last.
 */
export async function loadBlogroll(
  context: BlogrollContext,
  query: PageQuery,
  locale: string,
  now = Date.now(),
): Promise<BlogrollData | null> {
  const storage = await context.getStorage();
  const blogs = await visibleBlogs(storage, query.category);
  if (query.category !== undefined && blogs.length === 0) return null;
  const posts = await latestPosts(context, storage, blogs, query.latest);
  const horizon = futureHorizon(now).getTime();
  const cutoff = query.activeWithin === null ? null : now - query.activeWithin * DAY;
  const shown: PageBlog[] = [];
  for (const blog of blogs) {
    const own = posts.get(blog.id) ?? [];
    const entry = { blog, posts: own, lastPostAt: lastPostDate(blog, own, horizon) };
    // A post dated more than a day ahead is no sign of life: lastPostAt leaves it out.
    if (cutoff !== null && (entry.lastPostAt === null || entry.lastPostAt.getTime() < cutoff)) continue;
    shown.push(entry);
  }
  const collator = naturalCollator(locale);
  shown.sort(compareBlogs(query.sort, collator));
  if (query.group === "none")
    return { groups: shown.length > 0 ? [{ category: null, blogs: shown }] : [], count: shown.length };
  const groups = new Map<string | null, PageBlog[]>();
  for (const entry of shown) {
    const key = entry.blog.category || null;
    const members = groups.get(key);
    if (members) members.push(entry);
    else groups.set(key, [entry]);
  }
  const ordered = [...groups].sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : collator.compare(a, b)));
  return { groups: ordered.map(([category, members]) => ({ category, blogs: members })), count: shown.length };
}
