import type { BlogrollContext } from "../context.js";
import { healthQuery } from "../schedule/health.js";
import { cachedPerContext } from "./short-cache.js";

/**
 * What the public sees, counted: the visible blogs (as `/api/blogs` counts
 * them) and their stored items (status is polled by widgets: counted again
 * only after a write, see short-cache.ts).
 */
const publicCounts = cachedPerContext(5000, (storage) => storage.blogs.publicTotals());

/** The `/api/status` body: the earlier plugin's fields plus `nextSync`, `progress` and `contentDoneAt`. */
export async function readStatus(context: BlogrollContext) {
  // The status first: once it says a run is over, that run's writes have settled and the counts include them.
  const status = await context.scheduler.getStatus();
  // During a run the counts move with every fetch: recounted every few seconds, not per request.
  const counts = await publicCounts(context, `${status.lastSync ?? ""}|${status.isRunning}`, status.isRunning);
  return {
    status: "ok",
    isRunning: status.isRunning,
    blogs: { count: counts.blogs },
    items: { count: counts.items },
    lastSync: status.lastSync,
    nextSync: status.nextSync,
    progress: status.progress,
    contentDoneAt: status.contentDoneAt,
    lastSyncStats: status.lastSyncStats,
  };
}

/**
 * The owner's status (admin only): the public record plus `owner`, the
 * counts only the owner needs: every blog but deleted ones, how many of them
 * the public sees and how many are hidden, all by how they are kept fresh
 * and by health (gone ones among them), and every stored item.
 */
export async function readOwnerStatus(context: BlogrollContext) {
  const record = await readStatus(context);
  const { blogs, hidden, items, health } = await ownerCounts(
    context,
    `${record.lastSync ?? ""}|${record.isRunning}`,
    record.isRunning,
  );
  return {
    ...record,
    owner: {
      blogs: {
        count: blogs,
        public: record.blogs.count,
        hidden,
        byFreshness: health.freshness,
        byHealth: health.health,
      },
      items: { count: items },
    },
  };
}

/** The owner's counts, computed once per change like the public ones (dormancy moves with the clock: at most 5 s late). */
const ownerCounts = cachedPerContext(5000, async (storage, context) => {
  const [blogs, hidden, items, health] = await Promise.all([
    storage.blogs.count(),
    storage.blogs.list({ visibility: "admin", status: "hidden", limit: 0, offset: 0 }),
    storage.items.count(),
    storage.blogs.healthCounts(healthQuery(context.options, new Date())),
  ]);
  return { blogs, hidden: hidden.total, items, health };
});
