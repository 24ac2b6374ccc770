import type { BlogrollContext } from "../context.js";
import { cachedPerContext } from "./short-cache.js";

/** Blog and item counts (status is polled by widgets: no count of every row per request). */
const counts = cachedPerContext(5000, async (context) => {
  const storage = await context.getStorage();
  const [blogs, items] = await Promise.all([storage.blogs.count(), storage.items.count()]);
  return { blogs, items };
});

/** The `/api/status` body: the earlier plugin's fields plus `nextSync` and `progress`. */
export async function readStatus(context: BlogrollContext) {
  const [status, { blogs, items }] = await Promise.all([context.scheduler.getStatus(), counts(context)]);
  return {
    status: "ok",
    isRunning: status.isRunning,
    blogs: { count: blogs },
    items: { count: items },
    lastSync: status.lastSync,
    nextSync: status.nextSync,
    progress: status.progress,
    lastSyncStats: status.lastSyncStats,
  };
}
