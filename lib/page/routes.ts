import path from "node:path";
import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { guarded } from "../api/guarded.js";
import { blogrollLink, mountUrl, opmlUrl, riverUrls } from "../api/public-urls.js";
import { publicResponses, sendCacheable, strongEtag } from "../api/respond.js";
import { packageRoot } from "../package-root.js";
import { ChangeClock } from "../river/change-clock.js";
import { changeCount } from "../storage/change-count.js";
import { createTranslator, loadCatalogs } from "../standalone/i18n.js";
import { loadBlogroll, type BlogrollData } from "./blogroll.js";
import { BoundedMap, FreshValues } from "./cache.js";
import { renderFragment, renderPage, type PageLinks, type RenderContext } from "./html.js";
import { blogrollJson } from "./json.js";
import { dataKey, pageSearch, parsePageQuery } from "./query.js";
import { PAGE_CSS_HASH } from "./styles.js";

/** The blogroll as a page, as a fragment for includes, and as JSON for static-site builds. */
export const PAGE_PATHS = { page: "/blogroll", embed: "/blogroll/embed", json: "/blogroll.json" } as const;
export type PageFormat = keyof typeof PAGE_PATHS;

const CONTENT_TYPES: Record<PageFormat, string> = {
  page: "text/html; charset=utf-8",
  embed: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** Loaded data is kept this long at most: the bound for writes of other processes, and for relative dates. */
const DATA_TTL_MS = 5000;
/** Queries whose data is kept (each holds every listed blog and its latest posts). */
const DATA_KEPT = 8;
/** Built bodies kept (per format, query and address the request came to), and their bytes at most. */
const BODIES_KEPT = 64;
const BODY_BYTES = 16 * 1024 * 1024;

/**
 * The policy of the page (and of the fragment opened on its own): nothing
 * runs, the page's one style sheet by hash, images from anywhere (the blogs'
 * own icons, many on plain http:).
 */
const FRAGMENT_CSP = "default-src 'none'; img-src http: https: data:; base-uri 'none'; form-action 'none'";
const CSP: Partial<Record<PageFormat, string>> = {
  page: `${FRAGMENT_CSP}; style-src ${PAGE_CSS_HASH}`,
  embed: FRAGMENT_CSP,
};

interface Built {
  bytes: number;
  /** The data version it was built from. */
  version: number;
  body: Buffer;
  etag: string;
  lastModified: Date;
}

export type PageResponder = (format: PageFormat) => (request: Request, response: Response) => Promise<void>;

/**
 * Answers the three formats from data kept per query while the blogroll is
 * unchanged (see FreshValues) and bodies kept per data version, so a
 * revalidation (If-None-Match) or a repeat costs no storage read and no
 * rendering; a change written by this process shows at the next request.
 * ETag is the body's digest, Last-Modified when this process first served
 * that body (the river's change clock).
 */
export function createPageResponder(context: BlogrollContext): PageResponder {
  const { options } = context;
  const catalogs = loadCatalogs(path.join(packageRoot, "locales"));
  const data = new FreshValues<BlogrollData | null>(DATA_TTL_MS, DATA_KEPT);
  const bodies = new BoundedMap<Built>(BODIES_KEPT, BODY_BYTES);
  const clock = new ChangeClock();

  return (format) =>
    guarded(context, { error: "Failed to fetch blogroll" }, async (request, response) => {
      const query = parsePageQuery(request.query as Record<string, unknown>);
      const owner = context.owner();
      const storage = await context.getStorage();
      const dataSlot = JSON.stringify([dataKey(query), owner.locale]);
      const loaded = data.get(dataSlot, changeCount(storage), () => loadBlogroll(context, query, owner.locale));
      const blogroll = await loaded.value;
      if (!blogroll) {
        // Made-up category names take no slot from the blogroll's real queries.
        data.forget(dataSlot);
        response.status(404).json({ error: "Category not found" });
        return;
      }
      const base = mountUrl(request, response, options);
      const rivers = riverUrls(base, query.category);
      const links: PageLinks = { opml: opmlUrl(base, query.category), ...rivers };
      const key = JSON.stringify([format, base, dataKey(query), query.headingLevel, owner.locale]);
      let built = bodies.get(key);
      if (!built || built.version !== loaded.version) {
        const now = Date.now();
        const render: RenderContext = { locale: owner.locale, __: createTranslator(catalogs, owner.locale), now };
        const named = owner.name ? render.__("blogroll.home.title", { name: owner.name }) : options.riverTitle;
        const title = query.category === undefined ? named : `${named} – ${query.category}`;
        const headed = query.category === undefined && query.group === "category";
        let text: string;
        if (format === "page") text = renderPage(blogroll, render, { title, links, headed });
        else if (format === "embed")
          text = renderFragment(blogroll, render, { headingLevel: query.headingLevel, headed });
        else {
          const search = pageSearch(query);
          const own = { page: `${base}${PAGE_PATHS.page}${search}`, embed: `${base}${PAGE_PATHS.embed}${search}` };
          text = JSON.stringify(
            blogrollJson(
              blogroll,
              { title, owner: { name: owner.name, url: owner.url }, links: { ...own, ...links } },
              new Date(now),
            ),
          );
        }
        const body = Buffer.from(text);
        const etag = strongEtag(body);
        built = { bytes: body.length, version: loaded.version, body, etag, lastModified: clock.since(key, etag) };
        bodies.set(key, built);
      }
      response.set("Link", blogrollLink(links.opml));
      const csp = CSP[format];
      if (csp) response.set("Content-Security-Policy", csp);
      sendCacheable(request, response, options, built.body, CONTENT_TYPES[format], built.lastModified, built.etag);
    });
}

/** GET {mount}/blogroll, /blogroll/embed and /blogroll.json, public, with the API's CORS and caching. */
export function createPageRouter(
  context: BlogrollContext,
  respond: PageResponder = createPageResponder(context),
): Router {
  const router = express.Router();
  for (const format of Object.keys(PAGE_PATHS) as PageFormat[]) {
    router.use(PAGE_PATHS[format], publicResponses(context.options));
    router.get(PAGE_PATHS[format], respond(format));
  }
  return router;
}
