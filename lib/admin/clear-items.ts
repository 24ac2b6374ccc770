import type { Blog, Storage } from "../storage/types.js";

const PAGE = 500;

/** Blogs whose items a sync fetches (Microsub blogs keep theirs elsewhere; gone ones are not fetched). */
function refetchable(blog: Blog): boolean {
  return !blog.skipItemFetch && blog.status !== "gone";
}

/** Already due now and without validators: nothing to reset. */
function alreadyDue(blog: Blog): boolean {
  return blog.nextFetchAt === null && blog.etag === null && blog.lastModified === null;
}

/**
 * Deletes every stored item and makes every fetchable blog due now with its
 * HTTP validators forgotten: otherwise the next sync would get 304s and
 * bring nothing back. Item counters are recomputed. Returns the items deleted.
 */
export async function clearItemsForResync(storage: Storage, now = new Date()): Promise<number> {
  const deleted = await storage.items.deleteAll();
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.blogs.list({ visibility: "admin", limit: PAGE, offset });
    for (const blog of page.items) {
      if (refetchable(blog) && !alreadyDue(blog)) {
        await storage.blogs.recordFetch(blog.id, {
          at: blog.lastFetchAt ?? now,
          status: blog.status,
          error: blog.lastError,
          nextFetchAt: null,
          failureCount: blog.failureCount,
          etag: null,
          lastModified: null,
        });
      }
      await storage.blogs.refreshItemStats(blog.id);
    }
    if (page.items.length < PAGE) return deleted;
  }
}
