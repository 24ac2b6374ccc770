import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { HostLimiter } from "../http/host-limiter.js";
import { syncBlog } from "../sync/fetch-blog.js";
import { feedParser } from "../sync/parse-pool.js";
import { notFound } from "./forms.js";
import { liveBlog } from "./blog-edit.js";
import { accepted } from "./triggers.js";

/**
 * POST /blogs/:id/refresh: fetches one blog now, whatever its schedule or
 * back-off (unconditional: its validators are not sent, so the feed is read
 * again). Answers 202 with the status record, or redirects to the blog page.
 */
export function refreshBlogController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    const back = `${context.options.mountPath}/blogs/${blog.id}`;
    if (blog.skipItemFetch) return accepted(context, request, response, back, "blogRefreshSkipped");
    const storage = await context.getStorage();
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    const result = await syncBlog(storage, { ...blog, etag: null, lastModified: null }, context.options, abort.signal, {
      limiter: new HostLimiter(1),
      parse: feedParser(true),
      now: () => new Date(),
      pushSignal: context.push,
    });
    const ok = result.outcome === "updated" || result.outcome === "not-modified";
    await accepted(context, request, response, back, ok ? "blogRefreshed" : "blogRefreshFailed");
  };
}
