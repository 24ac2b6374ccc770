import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { readOwnerStatus } from "../api/status.js";
import type { Blog, Item } from "../storage/types.js";

const LATEST_ITEMS = 10;
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
      latest: await withBlogTitles((ids) => storage.blogs.getMany(ids), items),
    });
  };
}
