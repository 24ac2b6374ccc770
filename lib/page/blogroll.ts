import { futureHorizon } from "../storage/future.js";
import type { Blog, Item } from "../storage/types.js";
import type { PageQuery } from "./query.js";
import type { ReadBlog } from "./snapshots.js";
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
 * The blogroll as the page shows it, from the visible blogs of the query
 * with their latest posts (BlogSnapshots.read): null when the query names a
 * category no visible blog has; else in the page's order, grouped by
 * category unless `group=none`. Categories follow natural order, blogs
 * without one last.
 */
export function arrangeBlogroll(
  read: ReadonlyMap<string, ReadBlog>,
  query: PageQuery,
  locale: string,
  now = Date.now(),
): BlogrollData | null {
  if (query.category !== undefined && read.size === 0) return null;
  const horizon = futureHorizon(now).getTime();
  const cutoff = query.activeWithin === null ? null : now - query.activeWithin * DAY;
  const shown: PageBlog[] = [];
  for (const { blog, posts } of read.values()) {
    const entry = { blog, posts, lastPostAt: lastPostDate(blog, posts, horizon) };
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
