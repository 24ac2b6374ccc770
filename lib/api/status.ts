import type { BlogrollContext } from "../context.js";
import { cachedPerContext } from "./short-cache.js";

/** Blog and item counts (status is polled by widgets: counted again only after a write, see short-cache.ts). */
const counts = cachedPerContext(5000, async (storage) => {
  const [blogs, items] = await Promise.all([storage.blogs.count(), storage.items.count()]);
  return { blogs, items };
});

/** The `/api/status` body: the earlier plugin's fields plus `nextSync`, `progress` and `contentDoneAt`. */
export async function readStatus(context: BlogrollContext) {
  // The status first: once it says a run is over, that run's writes have settled and the counts include them.
  const status = await context.scheduler.getStatus();
  const { blogs, items } = await counts(context, `${status.lastSync ?? ""}|${status.isRunning}`);
  return {
    status: "ok",
    isRunning: status.isRunning,
    blogs: { count: blogs },
    items: { count: items },
    lastSync: status.lastSync,
    nextSync: status.nextSync,
    progress: status.progress,
    contentDoneAt: status.contentDoneAt,
    lastSyncStats: status.lastSyncStats,
  };
}
