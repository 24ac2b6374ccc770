import { readFile } from "node:fs/promises";
import path from "node:path";
import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { packageRoot } from "../package-root.js";
import { guarded } from "../api/guarded.js";
import { publicResponses, sendCacheable } from "../api/respond.js";

export const WIDGET_PATH = "/widget.js";
/** The module itself: plain JavaScript shipped as is (no build step), at the package root. */
export const WIDGET_FILE = path.join(packageRoot, "widget", "blogroll-widget.js");

/**
 * GET {mountPath}/widget.js: the embeddable widget, an ES module. Module
 * scripts from another origin are fetched with CORS, so it carries the API's
 * CORS header; an ETag and Cache-Control let browsers keep it.
 */
export function createWidgetRouter(context: BlogrollContext): Router {
  const router = express.Router();
  const { options } = context;
  let body: Promise<Buffer> | null = null;
  router.use(WIDGET_PATH, publicResponses(options));
  router.get(
    WIDGET_PATH,
    guarded(context, { error: "Failed to load the widget" }, async (request, response) => {
      if (!body) {
        body = readFile(WIDGET_FILE);
        body.catch(() => (body = null)); // a failed read is tried again by the next request
      }
      sendCacheable(request, response, options, await body, "text/javascript; charset=utf-8");
    }),
  );
  return router;
}
