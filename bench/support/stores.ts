/** Blogs for the benchmarks' stores (temporary SQLite stores come from test/sync/harness.ts). */
import type { Storage } from "../../lib/storage/types.js";

/** Adds one manual blog per feed URL, in `categories` round-robin categories. */
export async function addBlogs(storage: Storage, feedUrls: string[], categories = 50): Promise<void> {
  for (const [index, feedUrl] of feedUrls.entries()) {
    await storage.blogs.upsertFromSource({
      feedUrl,
      title: `Blog ${index}`,
      source: "manual",
      category: `Category ${index % categories}`,
    });
  }
}
