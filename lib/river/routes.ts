import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { packageJson } from "../package-root.js";
import { guarded } from "../api/guarded.js";
import { listPublicItems } from "../api/public-items.js";
import { publicResponses, sendCacheable, strongEtag } from "../api/respond.js";
import { integerParam, optionalText } from "../api/validate.js";
import { blogrollLink, mountUrl, opmlUrl, RIVER_PATHS, riverUrls, type RiverFormat } from "../api/public-urls.js";
import { BuiltBodies } from "./built-bodies.js";
import { ChangeClock } from "./change-clock.js";
import { buildJsonFeed } from "./json-feed.js";
import { newestUpdate, riverEntries, type River } from "./river.js";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;
const CONTENT_TYPES: Record<RiverFormat, string> = {
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
  rss: "application/rss+xml; charset=utf-8",
};

/** The builders; Atom's and RSS's load with their XML writer at their first request (docs/sync.md, Memory). */
const BUILDERS: Record<RiverFormat, () => Promise<(river: River) => string>> = {
  atom: async () => (await import("./atom.js")).buildAtom,
  json: async () => (river) => JSON.stringify(buildJsonFeed(river)),
  rss: async () => (await import("./rss.js")).buildRss,
};

/** The slot of a river body: its format, category and length, nothing else of the request. */
export function riverBodyKey(format: RiverFormat, category: string | undefined, limit: number): string {
  return JSON.stringify([format, category ?? null, limit]);
}

/**
 * The river feeds: the newest posts of every visible blog (or of one
 * category) as Atom 1.0, JSON Feed 1.1 and RSS 2.0, beside the API and
 * served like it (CORS, ETag, Cache-Control), plus Last-Modified and a
 * `Link` header naming the blogroll (the OPML export of the same blogs).
 */
export function createRiverRouter(context: BlogrollContext, kept: { bodies?: BuiltBodies } = {}): Router {
  const router = express.Router();
  const { options } = context;
  const clock = new ChangeClock();
  const bodies = kept.bodies ?? new BuiltBodies();

  const read = async (
    request: Request,
    response: Response,
  ): Promise<(River & { category: string | undefined; limit: number }) | null> => {
    const query = request.query as Record<string, unknown>;
    const category = optionalText(query, "category");
    const limit = integerParam(query, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    if (category !== undefined) {
      const storage = await context.getStorage();
      const { total } = await storage.blogs.list({ category, visibility: "public", limit: 0, offset: 0 });
      if (total === 0) return null;
    }
    const { items, blogs } = await listPublicItems(context, { category, limit, offset: 0 });
    const entries = riverEntries(items, blogs);
    const base = mountUrl(request, response, options);
    const urls = riverUrls(base, category);
    return {
      title: category === undefined ? options.riverTitle : `${options.riverTitle} - ${category}`,
      description: options.riverDescription,
      homePageUrl: options.riverHomePageUrl ?? new URL("/", urls.atom).href,
      atomUrl: urls.atom,
      jsonUrl: urls.json,
      rssUrl: urls.rss,
      blogrollUrl: opmlUrl(base, category),
      updated: newestUpdate(entries),
      entries,
      generator: { name: packageJson.name, version: packageJson.version },
      category,
      limit,
    };
  };

  const serve = (format: RiverFormat) => async (request: Request, response: Response) => {
    const river = await read(request, response);
    if (!river) {
      response.status(404).json({ error: "Category not found" });
      return;
    }
    // Only what changes the body picks its slot: other query parameters and Host headers cannot multiply them.
    const key = riverBodyKey(format, river.category, river.limit);
    const build = await BUILDERS[format]();
    const body = bodies.get(key, river, () => Buffer.from(build(river)));
    const lastModified = clock.since(key, strongEtag(body));
    response.set("Link", blogrollLink(river.blogrollUrl));
    sendCacheable(request, response, options, body, CONTENT_TYPES[format], lastModified);
  };

  for (const format of Object.keys(RIVER_PATHS) as RiverFormat[]) {
    router.use(RIVER_PATHS[format], publicResponses(options));
    router.get(RIVER_PATHS[format], guarded(context, { error: "Failed to fetch river" }, serve(format)));
  }
  return router;
}
