import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { packageJson } from "../package-root.js";
import { guarded } from "../api/guarded.js";
import { listPublicItems } from "../api/public-items.js";
import { publicResponses, sendCacheable, strongEtag } from "../api/respond.js";
import { integerParam, optionalText } from "../api/validate.js";
import type { OpmlHeadLink } from "../opml/build.js";
import { buildAtom } from "./atom.js";
import { BuiltBodies } from "./built-bodies.js";
import { ChangeClock } from "./change-clock.js";
import { buildJsonFeed } from "./json-feed.js";
import { newestUpdate, riverEntries, type River } from "./river.js";

export const RIVER_PATHS = { atom: "/river.atom", json: "/river.json" } as const;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;
const CONTENT_TYPES = { atom: "application/atom+xml; charset=utf-8", json: "application/feed+json; charset=utf-8" } as const;

type Format = keyof typeof RIVER_PATHS;

/** A Host header is echoed into feed links: only a plain host[:port] is believed. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The absolute address of the mount path as this request reached it. */
function mountUrl(request: Request): string {
  const host = request.get("host") ?? "";
  return `${request.protocol}://${PLAIN_HOST.test(host) ? host : "localhost"}${request.baseUrl}`;
}

/** The river feeds' addresses, for the blogroll or one category, as this request reached the mount path. */
function riverUrls(request: Request, category: string | undefined) {
  const base = mountUrl(request);
  const search = category === undefined ? "" : `?${new URLSearchParams({ category })}`;
  return { atom: `${base}${RIVER_PATHS.atom}${search}`, json: `${base}${RIVER_PATHS.json}${search}` };
}

/** The river feeds as OPML head links. */
export function riverLinks(request: Request, category: string | undefined): OpmlHeadLink[] {
  const urls = riverUrls(request, category);
  return [
    { rel: "alternate", type: "application/atom+xml", href: urls.atom },
    { rel: "alternate", type: "application/feed+json", href: urls.json },
  ];
}

/**
 * The river feeds: the newest posts of every visible blog (or of one
 * category) as Atom 1.0 and JSON Feed 1.1, beside the API and served like
 * it (CORS, ETag, Cache-Control), plus Last-Modified.
 */
export function createRiverRouter(context: BlogrollContext): Router {
  const router = express.Router();
  const { options } = context;
  const clock = new ChangeClock();
  const bodies = new BuiltBodies();

  const read = async (request: Request): Promise<River | null> => {
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
    const urls = riverUrls(request, category);
    return {
      title: category === undefined ? options.riverTitle : `${options.riverTitle} - ${category}`,
      description: options.riverDescription,
      homePageUrl: options.riverHomePageUrl ?? new URL("/", urls.atom).href,
      atomUrl: urls.atom,
      jsonUrl: urls.json,
      updated: newestUpdate(entries),
      entries,
      generator: { name: packageJson.name, version: packageJson.version },
    };
  };

  const serve = (format: Format) => async (request: Request, response: Response) => {
    const river = await read(request);
    if (!river) {
      response.status(404).json({ error: "Category not found" });
      return;
    }
    const key = `${format} ${mountUrl(request)} ${request.url}`;
    const body = bodies.get(key, river, () => Buffer.from(format === "atom" ? buildAtom(river) : JSON.stringify(buildJsonFeed(river))));
    const lastModified = clock.since(key, strongEtag(body));
    sendCacheable(request, response, options, body, CONTENT_TYPES[format], lastModified);
  };

  for (const format of ["atom", "json"] as const) {
    router.use(RIVER_PATHS[format], publicResponses(options));
    router.get(RIVER_PATHS[format], guarded(context, { error: "Failed to fetch river" }, serve(format)));
  }
  return router;
}
