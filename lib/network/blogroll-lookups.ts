import type { Dispatcher } from "undici";
import { readIconRecord, type IconFinding } from "../discovery/icon-records.js";
import { decodeText } from "../encoding/decode.js";
import { FetchError } from "../http/fetch.js";
import type { HostLimiter } from "../http/host-limiter.js";
import type { BlogrollOptions } from "../options.js";
import { parseOpmlInWorker } from "../sync/parse-pool.js";
import type { Blog, BlogBlogroll, BlogrollVia, Recommendation, Storage } from "../storage/types.js";
import { parseHttpUrl } from "../url/http-url.js";
import { wellKnownBlogroll } from "./announce.js";
import { fetchOpmlDocument, includeFetcher, type OpmlFetchDeps } from "./fetch-opml.js";
import { readOpmlTree } from "./opml-tree.js";
import { DAY } from "../time/durations.js";

/** How long what was learned of a blog's blogroll is trusted: a week, then it is read again (conditionally). */
export const BLOGROLL_RECHECK = 7 * DAY;
/** Bytes of one blog's blogroll, includes and all: a recommendation list, not a directory. */
export const BLOGROLL_MAX_BYTES = 512 * 1024;
/** Outlines of one blog's blogroll, includes and all. */
export const BLOGROLL_MAX_OUTLINES = 5000;
/** Requests for blogrolls (lists, includes, well-known paths) in one sync run; the rest wait for the next runs. */
export const BLOGROLL_REQUESTS_PER_RUN = 200;

export interface BlogrollLookupStats {
  /** Requests made for blogrolls this run. */
  requests: number;
  /** Blogs whose blogroll was read (200) or confirmed (304). */
  read: number;
  /** Blogs left for a later run because the run's request budget was spent (once it is, without a look at their records). */
  deferred: number;
}

export interface BlogrollLookupDeps {
  storage: Storage;
  options: Pick<BlogrollOptions, "fetchTimeout" | "allowPrivateNetworks" | "maxBodySize">;
  /** The run's per-host limit, shared with the feeds: blogroll requests wait in its extra lane. */
  limiter: HostLimiter;
  /** Caps extra requests in flight across hosts (the icons' lane). */
  lane: HostLimiter;
  /** What the icon lookups of this run learned of a site's page, when they asked. */
  knownPage(siteUrl: string): Promise<IconFinding> | null;
  signal: AbortSignal;
  now: () => Date;
  dispatcher?: Dispatcher;
  log: (message: string) => void;
  /** Requests allowed this run (BLOGROLL_REQUESTS_PER_RUN by default). */
  requestBudget?: number;
}

interface Where {
  url: string;
  via: BlogrollVia;
}

/** What one read of a blogroll gave: its feeds, or nothing there (404, not OPML), or try again later (unreachable, budget). */
type ReadOutcome =
  | { kind: "read"; entries: Recommendation[]; count: number; etag: string | null; lastModified: string | null }
  | { kind: "unchanged" }
  | { kind: "none" }
  | { kind: "later" };

/** Meta key remembering that an origin's well-known path had no blogroll (one record per origin, not per blog). */
function wellKnownMissKey(url: string): string {
  return `blogroll:wellKnownMiss:${new URL(url).origin}`;
}

/** Budget exhausted: the blog waits for a later run. */
class OverBudget extends Error {}

/**
 * The blogrolls of followed blogs, learned in each sync's extras lane, after
 * the feeds and never ahead of one. A blog is looked at when the week since
 * its last look has passed (or its feed just named another blogroll), the
 * cheapest way first: the `<source:blogroll>` its feed gave in this run, the
 * list already known (read again conditionally), the announcements of its
 * site's page as the icon lookup read them (no request of its own), then its
 * origin's `/.well-known/recommendations.opml`. Lists are read with their
 * includes under small caps (BLOGROLL_MAX_BYTES, BLOGROLL_MAX_OUTLINES) and
 * the run's request budget; every request goes through the guarded fetch with
 * the feeds' per-host limit. What is read goes to the recommendation store
 * only: nothing of it reaches the public API.
 */
export function createBlogrollLookups(deps: BlogrollLookupDeps) {
  const { storage, signal, log } = deps;
  const pending = new Set<Promise<void>>();
  const stats: BlogrollLookupStats = { requests: 0, read: 0, deferred: 0 };
  const budget = deps.requestBudget ?? BLOGROLL_REQUESTS_PER_RUN;
  /** One read per list address per run, whatever the number of blogs naming it. */
  const reads = new Map<string, Promise<ReadOutcome>>();
  /** The list addresses read this run (a blog naming one costs no request). */
  const readUrls = new Set<string>();

  const spend = () => {
    if (stats.requests >= budget) throw new OverBudget();
    stats.requests++;
  };
  const fetchDeps: OpmlFetchDeps = {
    options: { ...deps.options, maxBodySize: Math.min(deps.options.maxBodySize, BLOGROLL_MAX_BYTES) },
    signal,
    dispatcher: deps.dispatcher,
    hostGate: (host, task) => deps.limiter.run(host, task, "extra"),
  };
  const inLane = <T>(task: () => Promise<T>) => deps.lane.run("blogrolls", task);
  const fetchInclude = includeFetcher(fetchDeps);

  const readList = (where: Where, known: BlogBlogroll | null): Promise<ReadOutcome> => {
    const sameList = known?.url === where.url;
    const key = `${where.url}\n${sameList ? (known?.etag ?? "") + (known?.lastModified ?? "") : ""}`;
    let outcome = reads.get(key);
    if (!outcome) {
      outcome = inLane(async (): Promise<ReadOutcome> => {
        spend();
        let result;
        try {
          result = await fetchOpmlDocument(
            where.url,
            fetchDeps,
            sameList ? { etag: known?.etag, lastModified: known?.lastModified } : {},
          );
        } catch (error) {
          if (error instanceof FetchError && error.code === "aborted") throw error;
          return { kind: "later" };
        }
        if (result.notModified) return { kind: "unchanged" };
        if (result.status >= 500 || result.status === 429) return { kind: "later" };
        if (result.status < 200 || result.status > 299) return { kind: "none" };
        const text = decodeText(result.body, result.contentType);
        let root;
        try {
          root = await parseOpmlInWorker(text, {
            maxBytes: BLOGROLL_MAX_BYTES,
            maxOutlines: BLOGROLL_MAX_OUTLINES,
            url: result.url,
          });
        } catch {
          return { kind: "none" };
        }
        const tree = await readOpmlTree(
          root,
          result.url,
          Buffer.byteLength(text, "utf8"),
          {
            parse: parseOpmlInWorker,
            fetchText: async (url, maxBytes) => {
              if (stats.requests >= budget) return { ok: false, reason: "the run's request budget is spent" };
              stats.requests++;
              return fetchInclude(url, maxBytes);
            },
          },
          { maxBytes: BLOGROLL_MAX_BYTES, maxOutlines: BLOGROLL_MAX_OUTLINES },
        );
        const entries = tree.feeds.map((feed) => ({
          feedUrl: feed.xmlUrl,
          siteUrl: feed.htmlUrl,
          title: feed.title,
          description: feed.description,
        }));
        return { kind: "read", entries, count: entries.length, etag: result.etag, lastModified: result.lastModified };
      });
      reads.set(key, outcome);
      readUrls.add(where.url);
    }
    return outcome;
  };

  const wellKnownMissed = async (url: string, now: Date) => {
    const record = await storage.meta.get<{ until: string }>(wellKnownMissKey(url));
    return record !== null && Date.parse(record.until) > now.getTime();
  };
  const noteWellKnownMiss = (url: string, now: Date) =>
    storage.meta.set(wellKnownMissKey(url), { until: new Date(now.getTime() + BLOGROLL_RECHECK).toISOString() });

  /** The site page's announcements: this run's icon lookup, else its record (null: never read, so unknown). */
  const announcedBySite = async (siteUrl: string): Promise<string[] | null> => {
    const finding = deps.knownPage(siteUrl) ?? readIconRecord(storage.meta, "page", siteUrl, deps.now());
    const page = await finding.catch(() => null);
    return page?.blogrolls ?? null;
  };

  const whereFor = async (
    blog: Blog,
    feedBlogroll: string | null | undefined,
    known: BlogBlogroll | null,
    siteUrl: string | undefined,
  ): Promise<Where | null> => {
    if (feedBlogroll) return { url: feedBlogroll, via: "feed" };
    if (known?.url && known.via) return { url: known.url, via: known.via };
    const site = siteUrl ?? blog.siteUrl ?? new URL("/", blog.feedUrl).href;
    const announced = await announcedBySite(site);
    if (announced?.[0]) return { url: announced[0], via: "head" };
    const wellKnown = wellKnownBlogroll(site);
    return wellKnown ? { url: wellKnown, via: "well-known" } : null;
  };

  const settle = async (blog: Blog, feedBlogroll: string | null | undefined, siteUrl: string | undefined) => {
    try {
      const now = deps.now();
      const known = await storage.recommendations.getBlogroll(blog.id);
      const fresh = known !== null && now.getTime() - known.checkedAt.getTime() < BLOGROLL_RECHECK;
      // A feed that names another list than the one known is followed at once; otherwise a week is a week.
      if (fresh && !(feedBlogroll && feedBlogroll !== known.url)) return;
      const where = await whereFor(blog, feedBlogroll, known, siteUrl);
      const base = { blogId: blog.id, checkedAt: now };
      if (!where) {
        await storage.recommendations.saveBlogroll(
          { ...base, url: null, via: null, etag: null, lastModified: null, count: 0 },
          [],
        );
        return;
      }
      // An origin whose well-known path had nothing is not asked again for another of its blogs within the week.
      if (where.via === "well-known" && (await wellKnownMissed(where.url, now))) {
        await storage.recommendations.saveBlogroll(
          { ...base, url: null, via: null, etag: null, lastModified: null, count: 0 },
          [],
        );
        return;
      }
      const outcome = await readList(where, known);
      if (signal.aborted) return;
      if (where.via === "well-known" && outcome.kind === "none") await noteWellKnownMiss(where.url, now);
      switch (outcome.kind) {
        case "read":
          stats.read++;
          await storage.recommendations.saveBlogroll(
            {
              ...base,
              url: where.url,
              via: where.via,
              etag: outcome.etag,
              lastModified: outcome.lastModified,
              count: outcome.count,
            },
            outcome.entries,
          );
          break;
        case "unchanged":
          stats.read++;
          await storage.recommendations.saveBlogroll({
            ...base,
            url: where.url,
            via: where.via,
            etag: known?.etag ?? null,
            lastModified: known?.lastModified ?? null,
            count: known?.count ?? 0,
          });
          break;
        case "none":
          // The list went away or never was (a well-known path that is not there): asked again in a week.
          await storage.recommendations.saveBlogroll(
            { ...base, url: null, via: null, etag: null, lastModified: null, count: 0 },
            [],
          );
          break;
        case "later":
          // Unreachable for now: what is known stays, and the next look is in a week (a broken host is not asked hourly).
          await storage.recommendations.saveBlogroll(
            known
              ? { ...known, checkedAt: now }
              : { ...base, url: null, via: null, etag: null, lastModified: null, count: 0 },
          );
          break;
      }
    } catch (error) {
      if (error instanceof OverBudget) {
        stats.deferred++;
        return;
      }
      if (!signal.aborted)
        log(`blogroll of ${blog.feedUrl} not read: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  return {
    /**
     * Queues a look at the blog's own blogroll; never delays the caller.
     * `feedBlogroll`: its feed's `<source:blogroll>` when the feed was read
     * this run (null: none; undefined: not read). `siteUrl`: the site the
     * icon lookup asks about, when it does.
     */
    want(blog: Blog, feedBlogroll: string | null | undefined, siteUrl?: string): void {
      if (blog.skipItemFetch || !parseHttpUrl(blog.feedUrl)) return;
      // Once the run's requests are spent, a look would read the blog's records only to find that out (three reads
      // per blog, thousands of blogs a run on a large blogroll): the blog waits for a later run unread, unless its
      // feed names a list this run has read.
      if (stats.requests >= budget && !(feedBlogroll && readUrls.has(feedBlogroll))) {
        stats.deferred++;
        return;
      }
      const task = settle(blog, feedBlogroll, siteUrl).finally(() => pending.delete(task));
      pending.add(task);
    },
    /** Resolves when every look queued so far has ended, with the run's figures. */
    async settled(): Promise<BlogrollLookupStats> {
      while (pending.size > 0) await Promise.all(pending);
      return { ...stats };
    },
  };
}

export type BlogrollLookups = ReturnType<typeof createBlogrollLookups>;
