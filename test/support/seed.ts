import type { Blog, NewItem, Storage } from "../../lib/storage/types.js";

let sequence = 0;

/** Adds a blog through the storage port, the way a source would, then applies owner edits. */
export async function addBlog(
  storage: Storage,
  fields: Partial<
    Pick<Blog, "title" | "category" | "source" | "siteUrl" | "description" | "feedType" | "photo" | "author">
  > & {
    pinned?: boolean;
    hidden?: boolean;
    deleted?: boolean;
    feedUrl?: string;
    lastFetchAt?: Date;
    microsubFeedId?: string;
    microsubChannelName?: string;
    /** What the owner says about it (owner edits). */
    relationship?: string[];
    note?: string;
    fediverse?: string;
    fediverseUrl?: string;
  } = {},
): Promise<Blog> {
  sequence++;
  const { blog } = await storage.blogs.upsertFromSource({
    feedUrl: fields.feedUrl ?? `https://blog${sequence}.example.org/feed.xml`,
    title: fields.title ?? `Blog ${sequence}`,
    category: fields.category ?? null,
    source: fields.source === undefined ? "manual" : fields.source,
    siteUrl: fields.siteUrl ?? null,
    description: fields.description ?? null,
    feedType: fields.feedType ?? "rss",
    photo: fields.photo ?? null,
    author: fields.author ?? null,
    microsubFeedId: fields.microsubFeedId ?? null,
    microsubChannelName: fields.microsubChannelName ?? null,
    skipItemFetch: fields.source === "microsub",
    status: "active",
  });
  if (fields.pinned || fields.hidden)
    await storage.blogs.edit(blog.id, { pinned: fields.pinned ?? false, hidden: fields.hidden ?? false });
  const { relationship, note, fediverse, fediverseUrl } = fields;
  if (relationship || note || fediverse)
    await storage.blogs.edit(blog.id, { relationship, note, fediverse, fediverseUrl });
  if (fields.lastFetchAt) {
    await storage.blogs.recordFetch(blog.id, {
      at: fields.lastFetchAt,
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
    });
  }
  if (fields.deleted) await storage.blogs.softDelete(blog.id);
  return (await storage.blogs.get(blog.id)) as Blog;
}

/** An item with sensible defaults; `published: null` makes an undated one. */
export function item(uid: string, published: Date | null, extra: Partial<NewItem> = {}): NewItem {
  return {
    uid,
    url: `https://example.org/posts/${encodeURIComponent(uid)}`,
    title: `Post ${uid}`,
    summary: `Summary of ${uid}`,
    content: `<p>Content of ${uid}</p>`,
    published,
    author: null,
    photo: null,
    categories: [],
    ...extra,
  };
}

/** Stores items for a blog and refreshes its counters, as a sync does. */
export async function addItems(
  storage: Storage,
  blogId: string,
  items: NewItem[],
  fetchedAt = new Date(),
): Promise<void> {
  await storage.items.upsertMany(blogId, items, fetchedAt);
  await storage.blogs.refreshItemStats(blogId);
}

export const daysAgo = (days: number, from = Date.now()) => new Date(from - days * 86_400_000);
