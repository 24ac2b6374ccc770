import path from "node:path";
import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { guarded } from "../api/guarded.js";
import { blogrollLink, mountUrl, opmlUrl, riverUrls } from "../api/public-urls.js";
import { notModified, publicResponses, sendCacheable, strongEtag } from "../api/respond.js";
import { packageRoot } from "../package-root.js";
import { ChangeClock } from "../river/change-clock.js";
import type { Storage } from "../storage/types.js";
import { MINUTE } from "../time/durations.js";
import { createTranslator, loadCatalogs } from "../standalone/i18n.js";
import { arrangeBlogroll, type BlogrollData } from "./blogroll.js";
import { FreshValues } from "./cache.js";
import { chooseCoding, type Coding } from "../api/codings.js";
import { EncodedBody } from "./encoded.js";
import { KeptAnswers, type KeptAnswersPolicy } from "./kept-answers.js";
import { CardMemo, cardsInTurns, renderFragment, renderPage, type PageLinks, type RenderContext } from "./html.js";
import { blogrollJson } from "./json.js";
import { dataKey, pageSearch, parsePageQuery } from "./query.js";
import { BlogSnapshots } from "./snapshots.js";
import { PAGE_CSS_HASH } from "./styles.js";

/** The blogroll as a page, as a fragment for includes, and as JSON for static-site builds. */
export const PAGE_PATHS = { page: "/blogroll", embed: "/blogroll/embed", json: "/blogroll.json" } as const;
export type PageFormat = keyof typeof PAGE_PATHS;

const CONTENT_TYPES: Record<PageFormat, string> = {
  page: "text/html; charset=utf-8",
  embed: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** Loaded data is kept this long at most: the bound for changes the change clock does not see, and for relative dates. */
const DATA_TTL_MS = 5000;
/** Queries whose data is kept (each holds every listed blog and its latest posts). */
const DATA_KEPT = 8;
/**
 * Bodies kept (per format, query and address the request came to), their
 * bytes at most, and how they are rebuilt after a change (see KeptAnswers).
 */
const BODIES: KeptAnswersPolicy = {
  capacity: 64,
  maxBytes: 16 * 1024 * 1024,
  ttlMs: DATA_TTL_MS,
  maxStaleMs: 5000,
  minGapMs: 1000,
  settleMs: 20,
  interestMs: 10 * MINUTE,
};

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
  body: EncodedBody;
  etag: string;
  lastModified: Date;
}

export type PageResponder = (format: PageFormat) => (request: Request, response: Response) => Promise<void>;

/**
 * Answers the three formats from bodies kept per address, rebuilt in the
 * background after a change the storage's change clock sees (KeptAnswers
 * over context.changes: this process's writes, and the live event log every
 * process writes): a revalidation (If-None-Match) or
 * a repeat costs no storage read and no rendering, and a request after a
 * change gets the kept body until its rebuild is ready. Builds of the three
 * formats share one read of the data per query (FreshValues), which reads
 * again only the blogs a change touched (BlogSnapshots), and the page's and
 * fragment's builds the blogs' cards, made anew only for blogs whose card
 * changed (`cards`). ETag is the
 * body's digest, Last-Modified when this process first built that body (the
 * river's change clock).
 */
export function createPageResponder(context: BlogrollContext, cards = new CardMemo()): PageResponder {
  const { options } = context;
  const catalogs = loadCatalogs(path.join(packageRoot, "locales"));
  const data = new FreshValues<BlogrollData | null>(DATA_TTL_MS, DATA_KEPT);
  const clock = new ChangeClock();
  /** Codings readers asked for: a rebuild compresses its body in them before it is served. */
  const codingsAsked = new Set<Coding>();
  const { changes } = context;
  let kept: {
    storage: Storage;
    bodies: KeptAnswers<Built | null>;
    snapshots: BlogSnapshots;
    unfollow: () => void;
  } | null = null;

  const keptFor = (storage: Storage) => {
    if (kept?.storage === storage) return kept;
    kept?.unfollow();
    kept?.snapshots.close();
    const bodies = new KeptAnswers<Built | null>({
      policy: BODIES,
      changes: () => changes.version,
      bytesOf: (built) => built?.body.body.length ?? 0,
      keep: (built) => built !== null,
      onError: (error) => context.log.error("Rebuilding the blogroll page failed", error),
    });
    const snapshots = new BlogSnapshots(context, storage, DATA_TTL_MS, DATA_KEPT);
    kept = { storage, bodies, snapshots, unfollow: changes.onChange(() => bodies.changed()) };
    return kept;
  };

  return (format) =>
    guarded(context, { error: "Failed to fetch blogroll" }, async (request, response) => {
      const query = parsePageQuery(request.query as Record<string, unknown>);
      const owner = context.owner();
      const storage = await context.getStorage();
      await changes.follow();
      // A client that saw a live event asks for an answer that includes it (null: not an event of this log).
      const covering = query.lastEventId === null ? null : await changes.covering(query.lastEventId);
      const dataSlot = JSON.stringify([dataKey(query), owner.locale]);
      const base = mountUrl(request, response, options);
      const rivers = riverUrls(base, query.category);
      const links: PageLinks = { opml: opmlUrl(base, query.category), ...rivers };
      const key = JSON.stringify([format, base, dataKey(query), query.headingLevel, owner.locale]);
      const { bodies, snapshots } = keptFor(storage);
      const load = async () => arrangeBlogroll(await snapshots.read(query.category, query.latest), query, owner.locale);
      const build = async (): Promise<Built | null> => {
        const blogroll = await data.get(dataSlot, changes.version, load).value;
        if (!blogroll) {
          // Made-up category names take no slot from the blogroll's real queries.
          data.forget(dataSlot);
          return null;
        }
        const now = Date.now();
        const render: RenderContext = { locale: owner.locale, __: createTranslator(catalogs, owner.locale), now };
        const named = owner.name ? render.__("blogroll.home.title", { name: owner.name }) : options.riverTitle;
        const title = query.category === undefined ? named : `${named} – ${query.category}`;
        const headed = query.category === undefined && query.group === "category";
        let encoded: Buffer;
        if (format === "json") {
          const search = pageSearch(query);
          const own = { page: `${base}${PAGE_PATHS.page}${search}`, embed: `${base}${PAGE_PATHS.embed}${search}` };
          const head = { title, owner: { name: owner.name, url: owner.url }, links: { ...own, ...links } };
          encoded = await blogrollJson(blogroll, head, new Date(now));
        } else {
          const made = await cardsInTurns(blogroll, render, cards);
          encoded =
            format === "page"
              ? renderPage(blogroll, render, { title, links, headed, cards: made })
              : renderFragment(blogroll, render, { headingLevel: query.headingLevel, headed, cards: made });
        }
        const body = new EncodedBody(encoded);
        // Compressed as readers asked for it before, in the background: none of them waits for it.
        await body.prepare(codingsAsked);
        const etag = strongEtag(body.body);
        return { body, etag, lastModified: clock.since(key, etag) };
      };
      const built = await bodies.get(key, build, covering ?? undefined);
      if (!built) {
        response.status(404).json({ error: "Category not found" });
        return;
      }
      response.set("Link", blogrollLink(links.opml));
      const csp = CSP[format];
      if (csp) response.set("Content-Security-Policy", csp);
      // The same body in every coding: one ETag (as the compression middleware keeps it), varied by Accept-Encoding.
      response.vary("Accept-Encoding");
      const coding = notModified(request, built.etag, built.lastModified)
        ? null
        : chooseCoding(request, built.body.body);
      let body = built.body.body;
      if (coding) {
        codingsAsked.add(coding);
        body = await built.body.in(coding);
        response.set("Content-Encoding", coding);
      }
      sendCacheable(request, response, options, body, CONTENT_TYPES[format], built.lastModified, built.etag);
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
