import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { readOwnerStatus } from "../api/status.js";
import type { Blog, Item } from "../storage/types.js";

const LATEST_ITEMS = 10;
/** The query parameter that carries, from a trigger to the dashboard, when the last run before it ended. */
export const SYNCED_BEFORE = "syncedBefore";

/** The end of the last run before the one this page was opened for, when the trigger said (an ISO date, or "" for none). */
function syncedBefore(query: Request["query"]): string | undefined {
  const value = query[SYNCED_BEFORE];
  return typeof value === "string" && (value === "" || !Number.isNaN(Date.parse(value))) && value.length <= 40
    ? value
    : undefined;
}
const ERROR_BLOGS = 20;

/** Items with the title of the blog each belongs to. */
export async function withBlogTitles(blogsById: (ids: string[]) => Promise<Blog[]>, items: Item[]) {
  const blogs = new Map(
    (await blogsById([...new Set(items.map((item) => item.blogId))])).map((blog) => [blog.id, blog]),
  );
  return items.map((item) => ({ item, blog: blogs.get(item.blogId) ?? null }));
}

/** GET /: counts, sync state (with a live progress line), latest items, sources and blogs in error, actions. */
export function dashboardController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const storage = await context.getStorage();
    // The figures are the owner's status record's: counted again after a write (every few seconds during a sync), not per view.
    const [status, sources, errorBlogs, items] = await Promise.all([
      readOwnerStatus(context),
      storage.sources.list(),
      storage.blogs.list({ visibility: "admin", status: "error", sort: "recent", limit: ERROR_BLOGS, offset: 0 }),
      storage.items.list({ limit: LATEST_ITEMS, offset: 0 }),
    ]);
    response.render("blogroll-dashboard", {
      title: response.locals.__("blogroll.title"),
      status,
      counts: {
        sources: sources.length,
        blogs: status.owner.blogs.count,
        items: status.owner.items.count,
        errors: errorBlogs.total,
      },
      errorBlogs: errorBlogs.items,
      errorSources: sources.filter((source) => source.status === "error"),
      // Poll for progress only while a run goes on or was just started from this page.
      poll: status.isRunning || request.query.notice === "syncStarted" || request.query.notice === "itemsCleared",
      // What the poll compares the status with: the run's start when the page was opened for one, else now.
      lastSyncSeen: syncedBefore(request.query) ?? status.lastSync ?? "",
      latest: await withBlogTitles((ids) => storage.blogs.getMany(ids), items),
    });
  };
}
