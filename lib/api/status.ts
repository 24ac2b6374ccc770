import type { BlogrollContext } from "../context.js";

const COUNT_TTL = 5000;
const countCache = new WeakMap<BlogrollContext, { at: number; blogs: number; items: number }>();

/**
 * Blog and item counts, cached a few seconds per plugin instance: status is
 * polled by widgets and must not scan every row on every request.
 */
async function counts(context: BlogrollContext): Promise<{ blogs: number; items: number }> {
  const cached = countCache.get(context);
  if (cached && Date.now() - cached.at < COUNT_TTL) return cached;
  const storage = await context.getStorage();
  const [blogs, items] = await Promise.all([storage.blogs.count(), storage.items.count()]);
  const fresh = { at: Date.now(), blogs, items };
  countCache.set(context, fresh);
  return fresh;
}

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
