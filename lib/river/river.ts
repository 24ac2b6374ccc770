import type { Blog, Item } from "../storage/types.js";

/** The blog an entry comes from: the `source` of an Atom entry, the extension object of a JSON Feed item. */
export interface RiverBlog {
  id: string;
  title: string;
  siteUrl: string | null;
  feedUrl: string;
  photo: string | null;
  category: string | null;
  author: string | null;
}

export interface RiverEntry {
  id: string;
  /** Plain text; null when the post has none (notes). */
  title: string | null;
  url: string | null;
  published: Date | null;
  /** The post's date; for an undated post, when it was first fetched (Atom requires a date, none is invented for `published`). */
  updated: Date;
  author: string | null;
  summary: string | null;
  /** Sanitised HTML, as stored. */
  content: string | null;
  categories: string[];
  blog: RiverBlog;
}

/** Everything both river formats say, independent of the format. */
export interface River {
  title: string;
  description: string;
  /** The web page showing the blogroll. */
  homePageUrl: string;
  /** Canonical address of each format (with the category, when one is asked for). */
  atomUrl: string;
  jsonUrl: string;
  rssUrl: string;
  /** The OPML export of the same blogs (`source:blogroll`, `Link: rel="blogroll"`). */
  blogrollUrl: string;
  /** Newest entry's `updated`, or the epoch for an empty river (a fixed value keeps the body, and its ETag, stable). */
  updated: Date;
  entries: RiverEntry[];
  generator: { name: string; version: string };
}

/** Ids that are already absolute IRIs (http(s), urn:, tag:) are kept, as Atom asks of copied entries. */
const ABSOLUTE_ID = /^(?:https?:\/\/|urn:|tag:)\S+$/i;

/**
 * A stable, globally unique id for a post: its own id when that is an
 * absolute IRI, otherwise its blog's feed address with the id as fragment
 * (RSS guids such as "1234" are unique only within their feed).
 */
export function entryId(uid: string, feedUrl: string): string {
  return ABSOLUTE_ID.test(uid) && URL.canParse(uid) ? uid : `${feedUrl}#${encodeURIComponent(uid)}`;
}

function riverBlog(blog: Blog): RiverBlog {
  return {
    id: blog.id,
    title: blog.title,
    siteUrl: blog.siteUrl,
    feedUrl: blog.feedUrl,
    photo: blog.photo || blog.iconUrl || null,
    category: blog.category,
    author: blog.author,
  };
}

/** Entries for a page of items; an item whose blog vanished meanwhile is left out. */
export function riverEntries(items: Item[], blogs: Map<string, Blog>): RiverEntry[] {
  const entries: RiverEntry[] = [];
  for (const item of items) {
    const blog = blogs.get(item.blogId);
    if (!blog) continue;
    entries.push({
      id: entryId(item.uid, blog.feedUrl),
      title: item.title,
      url: item.url,
      published: item.published,
      updated: item.published ?? item.fetchedAt,
      author: item.author,
      summary: item.summary,
      content: item.content,
      categories: item.categories,
      blog: riverBlog(blog),
    });
  }
  return entries;
}

/** The newest `updated` of the entries (the epoch when there are none). */
export function newestUpdate(entries: RiverEntry[]): Date {
  let newest = 0;
  for (const entry of entries) newest = Math.max(newest, entry.updated.getTime());
  return new Date(newest);
}
