import type { BlogrollContext } from "../context.js";
import { healthQuery } from "../schedule/health.js";
import { cachedPerContext } from "./short-cache.js";

/**
 * Blog and item counts, and blogs by how they are kept fresh and by health
 * (status is polled by widgets: counted again only after a write, see
 * short-cache.ts; dormancy moves with the clock, so at most 5 s late).
 */
const counts = cachedPerContext(5000, async (storage, context) => {
  const [blogs, items, health] = await Promise.all([
    storage.blogs.count(),
    storage.items.count(),
    storage.blogs.healthCounts(healthQuery(context.options, new Date())),
  ]);
  return { blogs, items, health };
});

/** The `/api/status` body: the earlier plugin's fields plus `nextSync`, `progress` and `contentDoneAt`. */
export async function readStatus(context: BlogrollContext) {
  // The status first: once it says a run is over, that run's writes have settled and the counts include them.
  const status = await context.scheduler.getStatus();
  const { blogs, items, health } = await counts(context, `${status.lastSync ?? ""}|${status.isRunning}`);
  return {
    status: "ok",
    isRunning: status.isRunning,
    blogs: { count: blogs, byFreshness: health.freshness, byHealth: health.health },
    items: { count: items },
    lastSync: status.lastSync,
    nextSync: status.nextSync,
    progress: status.progress,
    contentDoneAt: status.contentDoneAt,
    lastSyncStats: status.lastSyncStats,
  };
}
