import type { Item, PublicBlog } from "../storage/types.js";

/**
 * A blog as the public API returns it: spec 2.1, plus `lastItemAt` read by
 * site widgets and what the owner says about the blog (relationship, note,
 * fediverse handle and profile page), which the spec's open field list leaves room for.
 */
export interface ApiBlog {
  id: string;
  title: string;
  description: string | null;
  feedUrl: string;
  siteUrl: string | null;
  feedType: string | null;
  category: string | null;
  tags: string[];
  photo: string | null;
  author: string | null;
  status: string;
  itemCount: number;
  pinned: boolean;
  lastFetchAt: string | null;
  lastItemAt: string | null;
  source: string | null;
  microsubChannel?: string | null;
  /** XFN 1.1 values, [] when none. */
  relationship: string[];
  /** The owner's public line about the blog, plain text. */
  note: string | null;
  /** `@user@host`. */
  fediverse: string | null;
  fediverseUrl: string | null;
}

/** An item as the public API returns it (spec 2.2). `published` is absent when unknown. */
export interface ApiItem {
  id: string;
  url: string | null;
  title: string | null;
  summary: string | null;
  published?: string;
  isFuture: boolean;
  author: string | null;
  photo: string | null;
  categories: string[];
}

export interface ApiBlogContext {
  id: string;
  title: string;
  siteUrl: string | null;
  category: string | null;
  photo: string | null;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** Only the public fields: internal ones (etag, lastError, the private notes, ...) never leave the server. */
export function serializeBlog(blog: PublicBlog): ApiBlog {
  const out: ApiBlog = {
    id: blog.id,
    title: blog.title,
    description: blog.description,
    feedUrl: blog.feedUrl,
    siteUrl: blog.siteUrl,
    feedType: blog.feedType,
    category: blog.category,
    tags: blog.tags,
    photo: blog.photo || blog.iconUrl || null,
    author: blog.author,
    status: blog.status,
    itemCount: blog.itemCount,
    pinned: blog.pinned,
    lastFetchAt: iso(blog.lastFetchAt),
    lastItemAt: iso(blog.lastItemAt),
    source: blog.source ?? null,
    relationship: blog.relationship,
    note: blog.note,
    fediverse: blog.fediverse,
    fediverseUrl: blog.fediverseUrl,
  };
  if (blog.source === "microsub") out.microsubChannel = blog.microsubChannelName ?? blog.category ?? null;
  return out;
}

/** `isFuture` is computed against `now`, per request; an unknown date stays absent. */
export function serializeItem(item: Omit<Item, "content">, now: Date): ApiItem {
  const published = item.published;
  return {
    id: item.id,
    url: item.url,
    title: item.title,
    summary: item.summary,
    ...(published ? { published: published.toISOString() } : {}),
    isFuture: published !== null && published.getTime() > now.getTime(),
    author: item.author,
    photo: item.photo,
    categories: item.categories,
  };
}

export function serializeBlogContext(blog: PublicBlog | null | undefined): ApiBlogContext | null {
  if (!blog) return null;
  return {
    id: blog.id,
    title: blog.title,
    siteUrl: blog.siteUrl,
    category: blog.category,
    photo: blog.photo || blog.iconUrl || null,
  };
}
