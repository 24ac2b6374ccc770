import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { isValidId } from "../storage/id.js";
import type { Blog, BlogSort, Item } from "../storage/types.js";
import { QueryError, MAX_ITEMS_OFFSET, MAX_LIMIT, integerParam, optionalText } from "./validate.js";
import { serializeBlog, serializeBlogContext, serializeItem } from "./serialize.js";
import { sendCacheable, sendCacheableJson, setPublicHeaders } from "./respond.js";
import { exportOpml } from "./opml-export.js";
import { readStatus } from "./status.js";
import { cachedPerContext } from "./short-cache.js";

/** Categories group every visible blog: kept until a write rather than grouped per request. */
const publicCategories = cachedPerContext(5000, (storage) => storage.blogs.categories());

const BLOG_DETAIL_ITEMS = 20;
const DEFAULT_BLOG_LIMIT = 100;
const DEFAULT_ITEM_LIMIT = 50;
/** Microsub follows whose items /api/items merges (one list read per request; far above any real follow list). */
const MAX_MICROSUB_BLOGS = 10_000;

type Handler = (request: Request, response: Response) => Promise<void>;

/**
 * Runs a handler; a QueryError becomes its 400 body, anything else is logged
 * and answered with the spec's exact failure body — never a stack.
 */
export function guarded(context: BlogrollContext, failure: Record<string, unknown>, handler: Handler): Handler {
  return async (request, response) => {
    try {
      await handler(request, response);
    } catch (error) {
      if (error instanceof QueryError) {
        response.status(400).json(error.body);
        return;
      }
      context.log.error(`${request.method} ${request.originalUrl ?? request.url} failed`, error);
      if (!response.headersSent) response.status(500).json(failure);
    }
  };
}

function isPubliclyVisible(blog: Blog): boolean {
  return !blog.hidden && blog.status !== "deleted" && blog.status !== "inactive";
}

function parseSort(query: Record<string, unknown>): BlogSort {
  const sort = optionalText(query, "sort");
  if (sort === undefined || sort === "title") return "title";
  if (sort === "recent") return "recent";
  throw new QueryError({ error: "Invalid sort" });
}

/**
 * The visible Microsub blogs an items query covers, by Microsub feed id: their
 * items are read from the Microsub plugin, never copied. Empty when the
 * integration is absent.
 */
async function microsubBlogsByFeed(context: BlogrollContext, category: string | undefined, blogId: string | undefined) {
  const byFeed = new Map<string, Blog>();
  const microsub = context.getMicrosub();
  if (!microsub) return { microsub: null, byFeed };
  const storage = await context.getStorage();
  let blogs: Blog[];
  if (blogId) {
    const blog = await storage.blogs.get(blogId);
    blogs = blog && blog.source === "microsub" && isPubliclyVisible(blog) ? [blog] : [];
  } else {
    blogs = (await storage.blogs.list({ source: "microsub", category, visibility: "public", limit: MAX_MICROSUB_BLOGS, offset: 0 })).items;
  }
  for (const blog of blogs) {
    if (blog.microsubFeedId && (!category || blog.category === category)) byFeed.set(blog.microsubFeedId, blog);
  }
  return { microsub, byFeed };
}

/** Newest first: published desc, undated after dated, then id desc (ids sort by creation). */
function compareItems(a: Item, b: Item): number {
  const pa = a.published?.getTime();
  const pb = b.published?.getTime();
  if (pa !== pb) {
    if (pa === undefined) return 1;
    if (pb === undefined) return -1;
    return pb - pa;
  }
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The public, unauthenticated API (spec section 4.1–4.7). */
export function createPublicApiRouter(context: BlogrollContext): Router {
  const router = express.Router();
  const { options } = context;

  router.use("/api", (request, response, next) => {
    setPublicHeaders(response, options);
    if (request.method === "OPTIONS") {
      response.set("Access-Control-Allow-Methods", "GET, OPTIONS");
      response.set("Access-Control-Allow-Headers", "If-None-Match");
      response.set("Access-Control-Max-Age", "86400");
      response.status(204).end();
      return;
    }
    next();
  });

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
      const page = await storage.blogs.list({ category, source, sort, limit, offset, visibility: "public" });
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
        items = microsub ? await microsub.listItems({ feedIds: [blog.microsubFeedId], limit: BLOG_DETAIL_ITEMS, offset: 0 }) : [];
      } else {
        items = await storage.items.list({ blogId: blog.id, limit: BLOG_DETAIL_ITEMS, offset: 0 });
      }
      const now = new Date();
      sendCacheableJson(request, response, options, { ...serializeBlog(blog), items: items.map((item) => serializeItem(item, now)) });
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
      const storage = await context.getStorage();

      let blogFilterPasses = true;
      if (blogId) {
        const blog = await storage.blogs.get(blogId);
        blogFilterPasses = blog !== null && isPubliclyVisible(blog) && (!category || blog.category === category);
      }
      let page: Item[] = [];
      let microsubBlogs = new Map<string, Blog>();
      if (blogFilterPasses) {
        const { microsub, byFeed } = await microsubBlogsByFeed(context, category, blogId);
        microsubBlogs = byFeed;
        const feedIds = [...byFeed.keys()];
        if (microsub && feedIds.length > 0) {
          // Merge two newest-first streams: each side gives at most offset + limit + 1 rows.
          const want = offset + limit + 1;
          const [ours, theirs] = await Promise.all([
            storage.items.list({ blogId, category, limit: want, offset: 0 }),
            microsub.listItems({ feedIds, limit: want, offset: 0 }),
          ]);
          page = [...ours, ...theirs].sort(compareItems).slice(offset, offset + limit + 1);
        } else {
          page = await storage.items.list({ blogId, category, limit: limit + 1, offset });
        }
      }
      const hasMore = page.length > limit;
      page = page.slice(0, limit);

      const blogs = await blogsForItems(context, page, microsubBlogs);
      const now = new Date();
      sendCacheableJson(request, response, options, {
        items: page.map((item) => ({ ...serializeItem(item, now), blog: serializeBlogContext(blogs.get(item.blogId)) })),
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

  const opml = (category: string | undefined): Handler => async (request, response) => {
    const document = await exportOpml(await context.getStorage(), category);
    const filename = category === undefined ? "blogroll.opml" : `blogroll-${encodeURIComponent(category)}.opml`;
    response.set("Content-Disposition", `attachment; filename="${filename}"`);
    sendCacheable(request, response, options, Buffer.from(document), "text/x-opml");
  };
  router.get("/api/opml", guarded(context, { error: "Failed to export OPML" }, (request, response) => opml(undefined)(request, response)));
  router.get(
    "/api/opml/:category",
    guarded(context, { error: "Failed to export OPML" }, (request, response) => opml(String(request.params.category))(request, response)),
  );

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

/** Blog context for a page of items, in one query; Microsub items (whose blogId is their feed id) map through `microsubBlogs`. */
async function blogsForItems(context: BlogrollContext, items: Item[], microsubBlogs: Map<string, Blog>): Promise<Map<string, Blog>> {
  const storage = await context.getStorage();
  const ids = [...new Set(items.map((item) => item.blogId))].filter((id) => !microsubBlogs.has(id));
  const byId = new Map((await storage.blogs.getMany(ids.filter(isValidId))).map((blog) => [blog.id, blog]));
  for (const [feedId, blog] of microsubBlogs) byId.set(feedId, blog);
  return byId;
}
