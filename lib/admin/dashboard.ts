import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { readStatus } from "../api/status.js";

/** The admin home page: counts, sync state and actions. */
export function dashboardController(context: BlogrollContext) {
  return async (_request: Request, response: Response) => {
    const storage = await context.getStorage();
    const [status, sources, errors] = await Promise.all([
      readStatus(context),
      storage.sources.count(),
      storage.blogs.count({ status: "error" }),
    ]);
    response.render("blogroll-dashboard", {
      title: response.locals.__("blogroll.title"),
      status,
      counts: { sources, blogs: status.blogs.count, items: status.items.count, errors },
      mountPath: context.options.mountPath,
    });
  };
}
