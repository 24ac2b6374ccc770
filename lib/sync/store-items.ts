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
  const { added, trimmed } = await storage.items.store(blogId, fresh, at, options.maxItemsPerBlog);
  return { added, trimmed };
}
