import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { isValidId } from "../storage/id.js";
import type { BlogSort, Item } from "../storage/types.js";
import { QueryError, MAX_ITEMS_OFFSET, MAX_LIMIT, integerParam, optionalText } from "./validate.js";
import { guarded, type Handler } from "./guarded.js";
import { serializeBlog, serializeBlogContext, serializeItem } from "./serialize.js";
import { publicResponses, sendCacheableJson } from "./respond.js";
import { sendOpmlExport } from "./opml-export.js";
import { readStatus } from "./status.js";
import { cachedPerContext } from "./short-cache.js";
import { isPubliclyVisible, listPublicItems } from "./public-items.js";
import { createRiverRouter } from "../river/routes.js";
import { createWidgetRouter } from "../widget/route.js";
import { createPushRouter } from "../push/routes.js";
import { createPageRouter, createPageResponder, type PageResponder } from "../page/routes.js";
import { createLiveRouter } from "../live/route.js";

/** Categories group every visible blog: kept until a write rather than grouped per request. */
const publicCategories = cachedPerContext(5000, (storage) => storage.blogs.categories());

const BLOG_DETAIL_ITEMS = 20;
const DEFAULT_BLOG_LIMIT = 100;
const DEFAULT_ITEM_LIMIT = 50;

function parseSort(query: Record<string, unknown>): BlogSort {
  const sort = optionalText(query, "sort");
  if (sort === undefined || sort === "title") return "title";
  if (sort === "recent") return "recent";
  throw new QueryError({ error: "Invalid sort" });
}

/**
 * The public, unauthenticated API (spec section 4.1–4.7), the river feeds,
 * the blogroll page (its fragment and JSON) and the widget.
 */
export function createPublicApiRouter(
  context: BlogrollContext,
  page: PageResponder = createPageResponder(context),
): Router {
  const router = express.Router();
  const { options } = context;

  // WebSub and rssCloud callbacks, first: a flood of notices then walks one layer, not every public route.
  router.use("/push", createPushRouter(context));
  router.use("/api", publicResponses(options));

  router.get(
    "/api/blogs",
    guarded(context, { error: "Failed to fetch blogs" }, async (request, response) => {
      const query = request.query as Record<string, unknown>;
      const category = optionalText(query, "category");
      const source = optionalText(query, "source");
      const sort = parseSort(query);
      const limit = integerParam(query, "limit", DEFAULT_BLOG_LIMIT, MAX_LIMIT.blogs);
      const offset = integerParam(query, "offset", 0);
      const storage = await context.getStorage();
      const page = await storage.blogs.listPublic({ category, source, sort, limit, offset });
      sendCacheableJson(request, response, options, {
        items: page.items.map(serializeBlog),
        total: page.total,
        hasMore: offset + page.items.length < page.total,
      });
    }),
  );

  router.get(
    "/api/blogs/:id",
    guarded(context, { error: "Failed to fetch blog" }, async (request, response) => {
      const id = String(request.params.id);
      if (!isValidId(id)) {
        response.status(400).json({ error: "Invalid blog ID" });
        return;
      }
      const storage = await context.getStorage();
      const blog = await storage.blogs.get(id.toLowerCase());
      if (!blog || !isPubliclyVisible(blog)) {
        response.status(404).json({ error: "Blog not found" });
        return;
      }
      let items: Item[];
      if (blog.source === "microsub" && blog.microsubFeedId) {
        const microsub = context.getMicrosub();
        items = microsub
          ? await microsub.listItems({ feedIds: [blog.microsubFeedId], limit: BLOG_DETAIL_ITEMS, offset: 0 })
          : [];
      } else {
        items = await storage.items.list({ blogId: blog.id, limit: BLOG_DETAIL_ITEMS, offset: 0, content: false });
      }
      const now = new Date();
      sendCacheableJson(request, response, options, {
        ...serializeBlog(blog),
        items: items.map((item) => serializeItem(item, now)),
      });
    }),
  );

  router.get(
    "/api/items",
    guarded(context, { error: "Failed to fetch items" }, async (request, response) => {
      const query = request.query as Record<string, unknown>;
      const blogParam = optionalText(query, "blog");
      if (blogParam !== undefined && !isValidId(blogParam)) {
        response.status(400).json({ error: "Invalid blog ID" });
        return;
      }
      const blogId = blogParam?.toLowerCase();
      const category = optionalText(query, "category");
      const limit = integerParam(query, "limit", DEFAULT_ITEM_LIMIT, MAX_LIMIT.items);
      const offset = integerParam(query, "offset", 0, MAX_ITEMS_OFFSET, true);
      const { items, hasMore, blogs } = await listPublicItems(context, {
        blogId,
        category,
        limit,
        offset,
        content: false,
      });
      const now = new Date();
      sendCacheableJson(request, response, options, {
        items: items.map((item) => ({
          ...serializeItem(item, now),
          blog: serializeBlogContext(blogs.get(item.blogId)),
        })),
        hasMore,
      });
    }),
  );

  router.get(
    "/api/categories",
    guarded(context, { error: "Failed to fetch categories" }, async (request, response) => {
      sendCacheableJson(request, response, options, { items: await publicCategories(context) });
    }),
  );

  router.get(
    "/api/status",
    guarded(context, { error: "Failed to fetch status" }, async (request, response) => {
      sendCacheableJson(request, response, options, await readStatus(context));
    }),
  );

  const opml =
    (category: string | undefined): Handler =>
    (request, response) =>
      sendOpmlExport(context, request, response, category);
  router.get(
    "/api/opml",
    guarded(context, { error: "Failed to export OPML" }, (request, response) => opml(undefined)(request, response)),
  );
  router.get(
    "/api/opml/:category",
    guarded(context, { error: "Failed to export OPML" }, (request, response) =>
      opml(String(request.params.category))(request, response),
    ),
  );

  // Beside the spec's API: live events, the river feeds, the page and the site widget.
  if (options.live) router.use(createLiveRouter(context));
  router.use(createRiverRouter(context));
  router.use(createPageRouter(context, page));
  router.use(createWidgetRouter(context));

  // A path parameter that is not valid percent-encoding (`/api/blogs/%ZZ`) fails
  // before any handler runs: answer it like any other bad value of that parameter.
  router.use("/api", (error: unknown, request: Request, response: Response, next: NextFunction) => {
    if (!(error instanceof URIError) || response.headersSent) return next(error);
    if (request.path.startsWith("/blogs/")) response.status(400).json({ error: "Invalid blog ID" });
    else if (request.path.startsWith("/opml/")) response.status(400).json({ error: "Invalid category" });
    else next(error);
  });

  return router;
}
