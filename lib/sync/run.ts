import { setMaxListeners } from "node:events";
import type { Dispatcher } from "undici";
import { HostLimiter } from "../http/host-limiter.js";
import type { BlogrollOptions } from "../options.js";
import type { Storage } from "../storage/types.js";
import { forEachDueBlog } from "./due-blogs.js";
import { syncBlog, type BlogSyncResult, type SyncBlogDeps } from "./fetch-blog.js";
import { feedParser } from "./parse-pool.js";
import type { RunContext, SyncRunner } from "./scheduler.js";
import type { SyncStats } from "./status-record.js";
import { createSiteIconLookups } from "./site-icons.js";
import { createBlogrollLookups } from "../network/blogroll-lookups.js";
import { createFediverseRechecks } from "../fediverse/recheck.js";
import { LIVE_LOG_KEPT_MS } from "../storage/live-log.js";
import { DAY, HOUR } from "../time/durations.js";
import { recordBlogrollDates } from "./blogroll-dates.js";

/** How often scheduled runs re-read the sources (OPML, FeedLand, Microsub): lists change far more slowly than blogs. */
export const SOURCE_REFRESH_INTERVAL = HOUR;
/** Meta key: when the sources were last re-read. */
const SOURCES_READ_KEY = "sourcesReadAt";

/** Counts of a source refresh, as the sources module reports them. */
export interface SourceRefreshCounts {
  total: number;
  success: number;
  failed: number;
}

export interface SyncRunnerDeps {
  options: BlogrollOptions;
  /** Re-reads the blog list from every source before blogs are fetched (the sources module). */
  refreshSources?: (storage: Storage, signal: AbortSignal) => Promise<SourceRefreshCounts>;
  /** undici dispatcher for every feed request (tests map host names to loopback with it). */
  dispatcher?: Dispatcher;
  now?: () => Date;
  /** Parse feeds in worker threads (default true) rather than on the main thread. */
  parseInWorkers?: boolean;
  log?: (message: string) => void;
  /** Told of every feed read (push discovery and safety polls: see SyncBlogDeps.onFeedRead). */
  onFeedRead?: SyncBlogDeps["onFeedRead"];
  /** Which blogs a push subscription delivers (their schedule is then a safety poll: see SyncBlogDeps.pushSignal). */
  pushSignal?: SyncBlogDeps["pushSignal"];
  /** Feeds read while being added (see SyncBlogDeps.firstReads). */
  firstReads?: SyncBlogDeps["firstReads"];
  /** Told when a run may have changed the exported blogroll (sources re-read, a blog's shown fields or status changed). */
  onBlogrollChange?: () => void;
}

/**
 * Builds the scheduler's run: refresh sources (at most every
 * SOURCE_REFRESH_INTERVAL, or always on "Sync now"), fetch every due blog
 * (every blog on "Sync now", but those a server told to wait) through
 * the pool (`concurrency` requests at a time, `perHostConcurrency` per host;
 * a blog's slot goes to the next as soon as its response is in), apply
 * retention (`maxItemAge`) and report the content done; site icons, looked
 * up meanwhile in a second lane that yields to the feeds at every host,
 * finish after that. A stopped run (context.signal) cancels requests in
 * flight, writes nothing further and rejects with the abort reason; a run
 * that finishes resolves with its figures.
 */
export function createSyncRunner(deps: SyncRunnerDeps): SyncRunner {
  const { options } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? (() => undefined);
  const parse = feedParser(deps.parseInWorkers ?? true);

  return async (storage: Storage, context: RunContext): Promise<SyncStats> => {
    const startedAt = Date.now();
    const runAt = now();
    const { signal } = context;
    // Every request in flight listens for the stop (and lets go when done): not a leak, so no warning.
    // Feeds, icons and blogrolls each have up to `concurrency` requests in flight.
    setMaxListeners(Math.max(10, options.concurrency * 3 + 10), signal);

    const newOnly = context.newBlogsOnly === true;
    const sources = newOnly
      ? { total: 0, success: 0, failed: 0 }
      : await refreshSourcesInTurn(storage, deps, runAt, context.everyone === true, signal, log);
    signal.throwIfAborted();
    if (sources.total > 0) deps.onBlogrollChange?.();

    const blogs = { total: 0, success: 0, failed: 0, notModified: 0 };
    const items = { added: 0, deleted: 0 };
    const tally = (result: BlogSyncResult) => {
      if (result.outcome === "aborted") return;
      blogs.total++;
      if (result.outcome === "updated" || result.outcome === "not-modified") blogs.success++;
      else blogs.failed++;
      if (result.outcome === "not-modified") blogs.notModified++;
      items.added += result.itemsAdded;
      items.deleted += result.itemsDeleted;
      if (result.blogrollChanged) deps.onBlogrollChange?.();
    };
    const limiter = new HostLimiter(options.perHostConcurrency);
    const blogDeps = {
      limiter,
      parse,
      now,
      dispatcher: deps.dispatcher,
      log,
      onFeedRead: deps.onFeedRead,
      pushSignal: deps.pushSignal,
      firstReads: deps.firstReads,
    };
    // Icon requests are small (a page's head, a favicon's first bytes) and parse nothing: their own lane, as wide as the feeds'.
    const lane = new HostLimiter(options.concurrency);
    const icons = createSiteIconLookups({
      storage,
      options,
      limiter,
      lane,
      signal,
      now,
      dispatcher: deps.dispatcher,
      log,
    });
    // The blogs' own blogrolls (for suggestions), in the same extras lane, reading what the icon lookups read.
    const blogrolls = createBlogrollLookups({
      storage,
      options,
      limiter,
      lane,
      knownPage: icons.knownPage,
      signal,
      now,
      dispatcher: deps.dispatcher,
      log,
    });
    // Fediverse handles' profile addresses, asked again weekly in the same extras lane.
    const fediverse = createFediverseRechecks({ storage, options, limiter, lane, signal, now, log });
    let contentFinished = false;
    try {
      await forEachDueBlog(
        storage,
        runAt,
        { concurrency: options.concurrency, perHost: options.perHostConcurrency, everyone: context.everyone },
        signal,
        async (blog, fetched) => {
          if (newOnly && blog.lastFetchAt !== null) return;
          const result = await syncBlog(storage, blog, options, signal, { ...blogDeps, fetched });
          tally(result);
          if (result.icon && options.siteIcons) icons.want(blog, result.icon);
          if (result.outcome === "updated" || result.outcome === "not-modified")
            blogrolls.want(blog, result.feedBlogroll, result.icon?.siteUrl);
          if (result.outcome !== "aborted") fediverse.want(blog);
        },
        (done, total) => context.progress(done, total),
      );
      signal.throwIfAborted();
      if (!newOnly) {
        await fediverse.wantUnfetched();
        items.deleted += await applyRetention(storage, new Date(now().getTime() - options.maxItemAge * DAY), log);
        await storage.events
          .trimBefore(new Date(now().getTime() - LIVE_LOG_KEPT_MS))
          .catch((error: unknown) => log(`trimming live events failed: ${(error as Error).message}`));
      }
      contentFinished = true;
    } finally {
      // A stopped or failed run leaves no lookup running unobserved.
      if (!contentFinished) await Promise.all([icons.settled(), blogrolls.settled(), fediverse.settled()]);
    }
    const contentDoneAt = now().toISOString();
    context.contentDone?.(contentDoneAt);
    const iconStats = await icons.settled();
    const blogrollStats = await blogrolls.settled();
    await fediverse.settled();
    signal.throwIfAborted();
    const extrasDoneAt = now().toISOString();
    return {
      lastFullSync: extrasDoneAt,
      duration: Date.now() - startedAt,
      sources,
      blogs,
      items,
      contentDoneAt,
      extrasDoneAt,
      icons: iconStats,
      blogrolls: blogrollStats,
    };
  };
}

/**
 * The scheduler's run: a sync, then, when it changed the blogroll, its dates
 * recorded, so the OPML export's dateModified says so at once rather than at
 * its next request. (Digesting every blog after every run would cost each
 * run as much as the blogroll is long.)
 */
export function createScheduledRun(
  deps: Omit<SyncRunnerDeps, "onBlogrollChange">,
  logError: (message: string, error: unknown) => void,
): SyncRunner {
  let blogrollChanged = false;
  const runSync = createSyncRunner({ ...deps, onBlogrollChange: () => void (blogrollChanged = true) });
  return async (storage, context) => {
    blogrollChanged = false;
    const stats = await runSync(storage, context);
    if (blogrollChanged)
      await recordBlogrollDates(storage).catch((error: unknown) =>
        logError("Recording when the blogroll changed failed", error),
      );
    return stats;
  };
}

/** Refreshes the sources when their turn has come (or when asked to), and notes when. */
async function refreshSourcesInTurn(
  storage: Storage,
  deps: SyncRunnerDeps,
  runAt: Date,
  force: boolean,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<SourceRefreshCounts> {
  if (!deps.refreshSources) return { total: 0, success: 0, failed: 0 };
  const last = await storage.meta.get<string>(SOURCES_READ_KEY).catch(() => null);
  const lastAt = last ? Date.parse(last) : Number.NaN;
  if (!force && lastAt <= runAt.getTime() && runAt.getTime() - lastAt < SOURCE_REFRESH_INTERVAL) {
    return { total: 0, success: 0, failed: 0 };
  }
  const counts = await refreshSources(storage, deps, signal, log);
  await storage.meta.set(SOURCES_READ_KEY, runAt.toISOString()).catch(() => undefined);
  return counts;
}

async function refreshSources(
  storage: Storage,
  deps: SyncRunnerDeps,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<SourceRefreshCounts> {
  if (!deps.refreshSources) return { total: 0, success: 0, failed: 0 };
  try {
    return await deps.refreshSources(storage, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    // Blogs already known are still worth fetching; count every source as failed.
    log(`source refresh failed: ${(error as Error).message}`);
    const total = await storage.sources.count().catch(() => 0);
    return { total, success: 0, failed: total };
  }
}

/**
 * Deletes items older than `cutoff` (by published date, or fetch time when
 * undated; future-dated items stay) and recomputes itemCount/lastItemAt of
 * the blogs touched. Returns how many items went.
 */
export async function applyRetention(
  storage: Storage,
  cutoff: Date,
  log: (message: string) => void = () => undefined,
): Promise<number> {
  try {
    const { deleted, blogIds } = await storage.items.pruneOlderThan(cutoff);
    for (const blogId of blogIds) await storage.blogs.refreshItemStats(blogId);
    return deleted;
  } catch (error) {
    log(`retention failed: ${(error as Error).message}`);
    return 0;
  }
}
