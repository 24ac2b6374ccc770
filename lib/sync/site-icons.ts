import type { Dispatcher } from "undici";
import { readIconRecord, writeIconRecord, type IconFinding } from "../discovery/icon-records.js";
import { bestIcon, readHeadLinks } from "../discovery/page-icon.js";
import { blogrollsOfHead, blogrollsOfLinkHeader } from "../network/announce.js";
import { decodeText } from "../encoding/decode.js";
import { fetchUrl, FetchError, type FetchResult } from "../http/fetch.js";
import type { HostLimiter } from "../http/host-limiter.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, Storage } from "../storage/types.js";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";
import { errorText } from "./failure-message.js";

/** `iconUrl` of a blog whose site has no icon. */
const NO_ICON = "";
/** Bytes of a home page read for its icon: heads are rarely more than a few KB, inline styles included. */
const ICON_PAGE_CAP = 256 * 1024;
/** Bytes of /favicon.ico read: only whether it is an image matters. */
const FAVICON_CAP = 64 * 1024;
const PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1";

/** A blog's wish for an icon, told by the feed fetch. */
export interface IconNeed {
  /** The site whose icon the blog shows. */
  siteUrl: string;
  /** A page already in hand (an h-feed is its site's page): its head is read instead of a request. */
  page?: { url: string; body: Uint8Array; contentType: string | null };
}

export interface IconStats {
  /** Requests made for icons (home pages and /favicon.ico). */
  requests: number;
  /** Blogs whose icon changed. */
  updated: number;
}

export interface SiteIconDeps {
  storage: Storage;
  options: Pick<BlogrollOptions, "fetchTimeout" | "allowPrivateNetworks">;
  /** The run's per-host limit, shared with the feeds: icon requests wait in its extra lane. */
  limiter: HostLimiter;
  /** Caps icon requests in flight across hosts (one key: a plain semaphore). */
  lane: HostLimiter;
  signal: AbortSignal;
  now: () => Date;
  dispatcher?: Dispatcher;
  log: (message: string) => void;
}

/**
 * The site icons of one sync run, looked up after the feeds, in the
 * cheapest order: what is recorded (per site, per origin, with an expiry),
 * a page already in hand, then the site's home page (read only up to its
 * `</head>`), then its origin's `/favicon.ico`. Each site's page and each
 * origin's favicon is asked at most once per run and not again until its
 * record expires, whatever the number of feeds sharing it.
 */
export function createSiteIconLookups(deps: SiteIconDeps) {
  const { storage, signal, log } = deps;
  const pages = new Map<string, Promise<IconFinding>>();
  const favicons = new Map<string, Promise<IconFinding>>();
  const pending = new Set<Promise<void>>();
  const stats: IconStats = { requests: 0, updated: 0 };

  const request = (url: string, accept: string, cap: number, stopAt: string[]): Promise<FetchResult> =>
    deps.lane.run("icons", () => {
      stats.requests++;
      return fetchUrl(url, {
        timeout: deps.options.fetchTimeout,
        maxBodySize: cap,
        partial: { stopAt },
        allowPrivateNetworks: deps.options.allowPrivateNetworks,
        accept,
        signal,
        dispatcher: deps.dispatcher,
        hostGate: (host, task) => deps.limiter.run(host, task, "extra"),
      });
    });

  /** Asked once per run per key: the record if fresh, else `ask` (then recorded). */
  const once = (
    memo: Map<string, Promise<IconFinding>>,
    key: string,
    source: "page" | "favicon",
    url: string,
    ask: () => Promise<IconFinding>,
  ) => {
    let finding = memo.get(key);
    if (!finding) {
      finding = (async () => {
        const known = await readIconRecord(storage.meta, source, url, deps.now());
        if (known) return known;
        const found = await ask();
        await writeIconRecord(storage.meta, source, url, found, deps.now());
        return found;
      })();
      memo.set(key, finding);
    }
    return finding;
  };

  const pageOf = (siteUrl: string) =>
    once(pages, feedUrlKey(siteUrl), "page", siteUrl, async () => {
      try {
        const page = await request(siteUrl, PAGE_ACCEPT, ICON_PAGE_CAP, ["</head", "<body"]);
        if (page.status < 200 || page.status > 299) return { icon: null, reachable: page.status < 500, url: page.url };
        return { ...readPage(page.body, page.contentType, page.url, page.link), reachable: true, url: page.url };
      } catch (error) {
        return unreachable(error);
      }
    });

  const faviconOf = (pageUrl: string) => {
    const origin = new URL(pageUrl).origin;
    return once(favicons, origin, "favicon", origin, async () => {
      try {
        const icon = await request(`${origin}/favicon.ico`, "image/*", FAVICON_CAP, []);
        // Soft 404s answer 200 with an HTML page: only an image counts.
        const isImage =
          icon.status === 200 && icon.body.byteLength > 0 && !/html|xml|json/i.test(icon.contentType ?? "");
        return { icon: isImage ? icon.url : null, reachable: icon.status < 500 };
      } catch (error) {
        return unreachable(error);
      }
    });
  };

  const iconFor = async (need: IconNeed): Promise<string | null> => {
    if (need.page && !pages.has(feedUrlKey(need.page.url))) {
      const { url, body, contentType } = need.page;
      const finding: IconFinding = {
        ...readPage(body.subarray(0, ICON_PAGE_CAP), contentType, url, null),
        reachable: true,
        url,
      };
      pages.set(
        feedUrlKey(url),
        writeIconRecord(storage.meta, "page", url, finding, deps.now()).then(() => finding),
      );
    }
    const page = await pageOf(need.siteUrl);
    if (page.icon || !page.reachable) return page.icon;
    return (await faviconOf(page.url ?? need.siteUrl)).icon;
  };

  const settle = async (blog: Blog, need: IconNeed) => {
    try {
      const icon = await iconFor(need);
      // null (never looked up) and NO_ICON both show no icon: no write between them.
      if (signal.aborted || (blog.iconUrl ?? NO_ICON) === (icon ?? NO_ICON)) return;
      if (await storage.blogs.setIcon(blog.id, icon ?? NO_ICON)) stats.updated++;
    } catch (error) {
      if (!signal.aborted) log(`site icon of ${blog.feedUrl} not recorded: ${errorText(error)}`);
    }
  };

  return {
    /**
     * What this run learned, or is learning, of a site's page (null when it has
     * not asked): the blogroll lookups read the announcements from it.
     */
    knownPage(siteUrl: string): Promise<IconFinding> | null {
      return parseHttpUrl(siteUrl) ? (pages.get(feedUrlKey(siteUrl)) ?? null) : null;
    },
    /** Queues the blog's icon lookup; it never delays the caller. */
    want(blog: Blog, need: IconNeed): void {
      if (!parseHttpUrl(need.siteUrl)) return;
      const task = settle(blog, need).finally(() => pending.delete(task));
      pending.add(task);
    },
    /** Resolves when every lookup queued so far has ended, with the run's figures. */
    async settled(): Promise<IconStats> {
      while (pending.size > 0) await Promise.all(pending);
      return { ...stats };
    },
  };
}

export type SiteIconLookups = ReturnType<typeof createSiteIconLookups>;

/**
 * The icon a page's head declares, and the blogrolls it and its Link header
 * announce (read here so the blogroll lookups need not fetch the page again);
 * the body is at most a capped prefix, so this stays small.
 */
function readPage(
  body: Uint8Array,
  contentType: string | null,
  url: string,
  link: string | null,
): { icon: string | null; blogrolls: string[] } {
  const links = body.byteLength > 0 ? readHeadLinks(decodeText(body, contentType), url) : [];
  const announced = [...blogrollsOfLinkHeader(link, url), ...blogrollsOfHead(links)].map((entry) => entry.url);
  return { icon: bestIcon(links), blogrolls: [...new Set(announced)] };
}

function unreachable(error: unknown): IconFinding {
  // A stopped run is not "no icon": nothing is recorded.
  if (error instanceof FetchError && error.code === "aborted") throw error;
  return { icon: null, reachable: false };
}
