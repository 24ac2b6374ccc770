import { createHash } from "node:crypto";
import type { Item, PublicBlog } from "../storage/types.js";
import { futureHorizon } from "../storage/future.js";

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

/**
 * A stable, globally unique id for a post of a blog: a name-based UUID
 * (RFC 9562 version 8, from SHA-256) of the blog's id and the post's uid.
 * Not the feed address, which a permanent redirect changes (every post
 * would come back as new in readers), and never the post's own id alone,
 * which two blogs reading the same feed would both publish.
 */
export function entryId(blogId: string, uid: string): string {
  const hex = createHash("sha256").update(`${blogId}\n${uid}`).digest("hex").slice(0, 32).split("");
  hex[12] = "8"; // version 8
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16); // RFC 9562 variant
  const text = hex.join("");
  return `urn:uuid:${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

function riverBlog(blog: PublicBlog): RiverBlog {
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
export function riverEntries(items: Item[], blogs: Map<string, PublicBlog>): RiverEntry[] {
  const entries: RiverEntry[] = [];
  for (const item of items) {
    const blog = blogs.get(item.blogId);
    if (!blog) continue;
    entries.push({
      id: entryId(blog.id, item.uid),
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

/** The newest `updated` of the entries, those more than a day ahead left out (the epoch when there are none). */
export function newestUpdate(entries: RiverEntry[], now = Date.now()): Date {
  let newest = 0;
  for (const entry of entries) {
    const time = entry.updated.getTime();
    if (time <= futureHorizon(now).getTime()) newest = Math.max(newest, time);
  }
  return new Date(newest);
}
