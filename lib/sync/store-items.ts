import type { NormalisedItem } from "../feeds/types.js";
import type { BlogrollOptions } from "../options.js";
import type { Storage } from "../storage/types.js";
import { DAY } from "../time/durations.js";

/**
 * Stores a blog's parsed items the one way both a fetch and a push do:
 * items older than `maxItemAge` days left out, the rest upserted, the blog
 * trimmed to `maxItemsPerBlog` and its item stats refreshed.
 */
export async function storeItems(
  storage: Storage,
  blogId: string,
  items: NormalisedItem[],
  at: Date,
  options: Pick<BlogrollOptions, "maxItemAge" | "maxItemsPerBlog">,
): Promise<{ added: number; trimmed: number }> {
  const cutoff = new Date(at.getTime() - options.maxItemAge * DAY);
  const fresh = items.filter((item) => item.published === null || item.published >= cutoff);
  const { added } = fresh.length > 0 ? await storage.items.upsertMany(blogId, fresh, at) : { added: 0 };
  const trimmed = await storage.items.trimBlog(blogId, options.maxItemsPerBlog);
  await storage.blogs.refreshItemStats(blogId);
  return { added, trimmed };
}
