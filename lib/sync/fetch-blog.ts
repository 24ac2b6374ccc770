import type { Dispatcher } from "undici";
import { fetchUrl, FetchError, type FetchResult } from "../http/fetch.js";
import type { HostLimiter } from "../http/host-limiter.js";
import type { FirstReads } from "./first-reads.js";
import type { ParsedFeed, ParseFeedOptions, PushLinks } from "../feeds/types.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, FeedMetadata, FetchRecord, Storage } from "../storage/types.js";
import { feedUrlKey } from "../url/normalise.js";
import {
  describeDeadEnd,
  describeFailure,
  describeProblem,
  errorText,
  httpStatusMessage,
  UNEXPECTED_FAILURE,
} from "./failure-message.js";
import { nextFetch, type FetchFacts } from "./next-fetch.js";
import type { IconNeed } from "./site-icons.js";
import { storeItems } from "./store-items.js";
import type { FeedBody } from "./parse-tasks.js";
import { DAY } from "../time/durations.js";
import { changesBlogroll } from "./blogroll-dates.js";

const FEED_ACCEPT =
  "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, " +
  "application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.5, */*;q=0.1";

export interface SyncBlogDeps {
  /** Caps simultaneous requests per host (each redirect hop counted at its own host), shared by every fetch of the run. */
  limiter: HostLimiter;
  /**
   * parseFeed, in a worker pool or on this thread (see feedParser). With
   * `handOver`, the body is the parser's: a worker may take its buffer (moved,
   * not copied), and the caller reads it no more. A feed's body comes still
   * compressed (EncodedBody), for the parser to decode.
   */
  parse: (body: FeedBody, options: ParseFeedOptions, handOver?: boolean) => Promise<ParsedFeed>;
  now: () => Date;
  dispatcher?: Dispatcher;
  /** Told of errors that are neither the remote's nor the feed's fault (the owner only sees a generic message). */
  log?: (message: string) => void;
  /** Told of every feed read and stored (push discovery, safety polls of pushed blogs); must not throw or wait. */
  onFeedRead?: (blog: Blog, read: FeedRead) => void;
  /** The schedule's dice (jitter), Math.random by default. */
  random?: () => number;
  /** Push subscriptions, when push is on (lib/push); without it no blog counts as pushed. */
  pushSignal?: PushSignal;
  /** Feeds read while being added: a blog never fetched takes its read from here instead of asking again. */
  firstReads?: FirstReads;
  /** This fetch answers a push notification: new posts are what the push announced, not posts it missed. */
  answersPush?: boolean;
  /** Told once the feed's response is in hand or its request failed, before the parse and the writes (the run gives the fetch slot on). */
  fetched?: () => void;
}

/** What a read of a feed told beyond its items: where it pushes, and how many posts were new. */
export interface FeedRead {
  /** The URL that answered (after redirects). */
  url: string;
  /** The response's Link header. */
  link: string | null;
  push?: PushLinks;
  itemsAdded: number;
  /** True when the new posts were announced by a push notification (the push did not miss them). */
  answersPush: boolean;
}

/**
 * What the schedule needs to know of push: whether a verified, unexpired,
 * trusted subscription delivers a blog's posts (it is then only polled at
 * maxFetchInterval, for safety). A safety poll that still finds new posts
 * puts the blog back on its schedule at once; the push manager, told of the
 * read (onFeedRead), stops trusting that subscription for a while.
 */
export interface PushSignal {
  isActive(blog: Blog): Promise<boolean>;
  /**
   * True when a verified notification announced a change since the blog's
   * last fetch (`blog` as it was before this one): the posts found now are
   * the ones announced, as for a fetch that answers a push.
   */
  announced?(blog: Blog): Promise<boolean>;
}

/** What one blog's sync came to. `aborted`: the run was stopped and nothing was written. */
export type BlogOutcome = "updated" | "not-modified" | "failed" | "gone" | "aborted";

export interface BlogSyncResult {
  outcome: BlogOutcome;
  itemsAdded: number;
  itemsDeleted: number;
  /** Set when the blog shows a site icon (it has no image of its own): the run looks it up afterwards. */
  icon?: IconNeed;
  /** Set when the feed was read (2xx) and names a blogroll (`<source:blogroll>`): its address. */
  feedBlogroll?: string;
  /** Set when this fetch changed what the blogroll's exports show of the blog (see changesBlogroll). */
  blogrollChanged?: true;
}

type SyncOptions = Pick<
  BlogrollOptions,
  | "fetchTimeout"
  | "maxBodySize"
  | "allowPrivateNetworks"
  | "maxItemsPerBlog"
  | "maxItemAge"
  | "minFetchInterval"
  | "maxFetchInterval"
>;

const aborted: BlogSyncResult = { outcome: "aborted", itemsAdded: 0, itemsDeleted: 0 };

/** A feed whose redirects end in 404 or 410 at every fetch for this long is gone. */
export const DEAD_END_GONE_AFTER = 7 * DAY;

/**
 * Fetches one blog's feed (conditionally, with its ETag / Last-Modified; a
 * blog never fetched takes the read made while it was added, if one is kept)
 * and records the outcome in one `recordFetch`:
 * Every outcome but 410 sets the blog's next fetch by its schedule
 * (lib/schedule/policy.ts): its posting rate, the server's floors, back-off.
 * - 304: fetch recorded, nothing parsed or written;
 * - 2xx: parsed, items upserted and trimmed to `maxItemsPerBlog`, stats and
 *   feed metadata refreshed; a permanent redirect moves `feedUrl`. A feed
 *   that is only partly readable (truncated, broken items) keeps its whole
 *   items but records status `error` with the problem and backs off, its
 *   validators dropped so the next fetch reads it afresh;
 * - 410 at the feed's own address: status `gone` (off every public surface,
 *   checked again weekly); redirects that end in 404 or 410: an error, and
 *   `gone` once every fetch for DEAD_END_GONE_AFTER ended so;
 * - 429/503: status `error`, next fetch at the server's Retry-After (not even "Sync now" asks sooner);
 * - anything else: status `error` with a short message and exponential
 *   back-off; stored items are left alone.
 * A gone blog stays gone through any failure; a fetch that finds its feed
 * (2xx or 304) brings it back.
 * A blog fetched well (2xx or 304) that has no image of its own says which
 * site's icon it needs; icons are not looked up here, so they never delay
 * the feeds.
 * `deps.fetched` is told once the response is in (or the request failed),
 * before the parse and the writes.
 * Never throws: storage errors are caught and reported as `failed`. When
 * `signal` aborts, the request is cancelled and, unless the writes had begun
 * (they are then completed), nothing is written.
 */
export async function syncBlog(
  storage: Storage,
  blog: Blog,
  options: SyncOptions,
  signal: AbortSignal,
  deps: SyncBlogDeps,
): Promise<BlogSyncResult> {
  const fetchedAt = deps.now();
  const schedule = (facts: Omit<FetchFacts, "at">) =>
    nextFetch(blog, { ...facts, at: fetchedAt }, options, deps.random);
  const pushActive = deps.pushSignal ? await deps.pushSignal.isActive(blog).catch(() => false) : false;
  const describe = (error: unknown) => {
    const message = describeFailure(error, options);
    if (message === UNEXPECTED_FAILURE) deps.log?.(`syncing ${blog.feedUrl} failed: ${errorText(error)}`);
    return message;
  };
  let response: FetchResult;
  try {
    const added = blog.lastFetchAt === null ? deps.firstReads?.take(blog.feedUrl) : null;
    response =
      added ??
      (await fetchUrl(blog.feedUrl, {
        timeout: options.fetchTimeout,
        maxBodySize: options.maxBodySize,
        allowPrivateNetworks: options.allowPrivateNetworks,
        etag: blog.etag,
        lastModified: blog.lastModified,
        accept: FEED_ACCEPT,
        // A feed's body is decompressed where it is parsed (a worker), so this thread holds only its
        // compressed bytes; a page's is decompressed here, its head gives the site icon.
        leaveEncoded: (contentType) => !maybePage(contentType),
        signal,
        dispatcher: deps.dispatcher,
        // Every hop takes a slot of its own host, so the per-host limit also holds where redirects lead.
        hostGate: (host, task) => deps.limiter.run(host, task),
      }));
  } catch (error) {
    if (signal.aborted) return aborted;
    return recordFailure(storage, blog, fetchedAt, describe(error), schedule);
  } finally {
    deps.fetched?.();
  }
  if (signal.aborted) return aborted;
  const deadEnd = response.redirects.length > 0 && (response.status === 404 || response.status === 410);

  try {
    if (response.notModified) {
      const saved = await storage.blogs.recordFetch(blog.id, {
        ...success(fetchedAt),
        ...schedule({ outcome: "unchanged", failureCount: 0, response, pushActive }),
        etag: response.etag ?? undefined,
        lastModified: response.lastModified ?? undefined,
        feedUrl: await movedFeedUrl(storage, blog, response),
      });
      return withIcon(
        noting(blog, saved, { outcome: "not-modified", itemsAdded: 0, itemsDeleted: 0 }),
        iconNeed(saved, response),
      );
    }
    if (response.status === 410 && !deadEnd)
      return await recordGone(storage, blog, fetchedAt, httpStatusMessage(410), schedule);
    if (deadEnd) {
      const message = describeDeadEnd(response.url, response.status);
      const since = blog.deadEndSince ?? fetchedAt;
      if (fetchedAt.getTime() - since.getTime() >= DEAD_END_GONE_AFTER)
        return await recordGone(storage, blog, fetchedAt, message, schedule, true);
      return await recordFailure(storage, blog, fetchedAt, message, schedule, response, true);
    }
    if (response.status < 200 || response.status > 299) {
      return await recordFailure(storage, blog, fetchedAt, httpStatusMessage(response.status), schedule, response);
    }

    let parsed: ParsedFeed;
    // A feed's body is needed no more once parsed: it is handed to the parser, so a parse worker takes
    // it rather than a copy and this thread holds no body until its next collection. A page (HTML, or
    // unlabelled) is kept: as an h-feed, its head gives the site icon without another request.
    const keepPage = maybePage(response.contentType);
    try {
      parsed = await deps.parse(
        response.encoding
          ? { bytes: response.body, encoding: response.encoding, maxSize: options.maxBodySize }
          : response.body,
        {
          url: response.url,
          contentType: response.contentType,
          contentLocation: response.contentLocation,
          contentLanguage: response.contentLanguage,
          maxItems: options.maxItemsPerBlog,
        },
        !keepPage,
      );
    } catch (error) {
      if (signal.aborted) return aborted;
      // A body that could not be decoded (too large once decompressed, corrupt) failed as its read would have.
      const read = error instanceof FetchError ? null : response;
      return await recordFailure(storage, blog, fetchedAt, describe(error), schedule, read);
    }

    if (signal.aborted) return aborted;

    // From here on the blog's writes run to the end even if the run is stopped.
    const { added, trimmed } = await storeItems(storage, blog.id, parsed.items, fetchedAt, options);
    // A poll of a pushed blog that finds new posts nobody announced: the push missed them, back to the schedule.
    const answersPush =
      deps.answersPush === true ||
      (added > 0 && (await deps.pushSignal?.announced?.(blog).catch(() => false)) === true);
    const pushKept = pushActive && (added === 0 || answersPush);
    const failureCount = parsed.problem ? blog.failureCount + 1 : 0;
    const record = parsed.problem
      ? partlyRead(fetchedAt, describeProblem(parsed.problem), failureCount)
      : success(fetchedAt);
    const saved = await storage.blogs.recordFetch(blog.id, {
      ...record,
      ...schedule({
        outcome: parsed.problem ? "failed" : "fetched",
        failureCount,
        response,
        parsed,
        pushActive: pushKept,
      }),
      etag: parsed.problem ? null : response.etag,
      lastModified: parsed.problem ? null : response.lastModified,
      feedUrl: await movedFeedUrl(storage, blog, response),
      metadata: feedMetadata(parsed),
    });
    deps.onFeedRead?.(saved ?? blog, {
      url: response.url,
      link: response.link,
      push: parsed.feed.push,
      itemsAdded: added,
      answersPush,
    });
    const page =
      parsed.feed.type === "hfeed" && keepPage
        ? { url: response.url, body: response.body, contentType: response.contentType }
        : undefined;
    const read = noting(blog, saved, {
      outcome: parsed.problem ? "failed" : "updated",
      itemsAdded: added,
      itemsDeleted: trimmed,
    });
    return withIcon(
      parsed.feed.blogroll ? { ...read, feedBlogroll: parsed.feed.blogroll } : read,
      iconNeed(saved, response, page),
    );
  } catch (error) {
    if (error instanceof FetchError && error.code === "aborted") return aborted;
    deps.log?.(`saving ${blog.feedUrl} failed: ${errorText(error)}`);
    // A storage failure on this blog: note it if the database still answers, and move on.
    await recordFailure(storage, blog, fetchedAt, "Could not save this blog's items", schedule).catch(() => undefined);
    return { outcome: "failed", itemsAdded: 0, itemsDeleted: 0 };
  }
}

/** A body that may be an HTML page (an h-feed): labelled HTML, or not labelled at all. */
function maybePage(contentType: string | null): boolean {
  return contentType === null || /html/i.test(contentType);
}

function success(at: Date): FetchRecord {
  return { at, status: "active", error: null, nextFetchAt: null, failureCount: 0 };
}

/** A feed read only in part: in error, with back-off, like any failure (its items are kept all the same). */
function partlyRead(at: Date, message: string, failureCount: number): FetchRecord {
  return { at, status: "error", error: message, failureCount, nextFetchAt: null };
}

type Schedule = (facts: Omit<FetchFacts, "at">) => Pick<FetchRecord, "nextFetchAt" | "schedule">;

/** A failed fetch: an error with back-off, or for a gone blog one more week gone. */
async function recordFailure(
  storage: Storage,
  blog: Blog,
  at: Date,
  message: string,
  schedule: Schedule,
  response: FetchResult | null = null,
  deadEnd = false,
): Promise<BlogSyncResult> {
  if (blog.status === "gone") return recordGone(storage, blog, at, message, schedule, deadEnd);
  const failureCount = blog.failureCount + 1;
  const saved = await storage.blogs.recordFetch(blog.id, {
    at,
    status: "error",
    error: message,
    deadEnd,
    failureCount,
    ...schedule({ outcome: "failed", failureCount, response }),
  });
  return noting(blog, saved, { outcome: "failed", itemsAdded: 0, itemsDeleted: 0 });
}

/** The result, marked when the write changed what the blogroll's exports show of the blog. */
function noting(before: Blog, saved: Blog | null, result: BlogSyncResult): BlogSyncResult {
  return changesBlogroll(before, saved) ? { ...result, blogrollChanged: true } : result;
}

/** The feed is gone: off every public surface until a weekly check (or the owner's Refresh) finds it again. */
async function recordGone(
  storage: Storage,
  blog: Blog,
  at: Date,
  message: string,
  schedule: Schedule,
  deadEnd = false,
): Promise<BlogSyncResult> {
  const failureCount = blog.failureCount + 1;
  const saved = await storage.blogs.recordFetch(blog.id, {
    at,
    status: "gone",
    error: message,
    deadEnd,
    failureCount,
    ...schedule({ outcome: "gone", failureCount }),
  });
  return noting(blog, saved, { outcome: "gone", itemsAdded: 0, itemsDeleted: 0 });
}

/** The permanent-redirect target, unless it is where the blog already is or another blog already has it. */
async function movedFeedUrl(storage: Storage, blog: Blog, response: FetchResult): Promise<string | undefined> {
  const target = response.permanentRedirect;
  if (!target || feedUrlKey(target) === feedUrlKey(blog.feedUrl)) return undefined;
  const holder = await storage.blogs.getByFeedUrl(target);
  return holder && holder.id !== blog.id ? undefined : target;
}

/**
 * What the feed says about itself; absent values never blank what is known.
 * Storage shows it where neither the owner nor an origin gives a value
 * (lib/storage/provenance.ts), so a listing and the feed never overwrite
 * each other in turn at every sync.
 */
function feedMetadata({ feed }: ParsedFeed): FeedMetadata {
  const metadata: FeedMetadata = { feedType: feed.type };
  if (feed.title) metadata.title = feed.title;
  if (feed.description) metadata.description = feed.description;
  if (feed.siteUrl) metadata.siteUrl = feed.siteUrl;
  if (feed.photo) metadata.photo = feed.photo;
  if (feed.author) metadata.author = feed.author;
  return metadata;
}

function withIcon(result: BlogSyncResult, icon: IconNeed | undefined): BlogSyncResult {
  return icon ? { ...result, icon } : result;
}

/**
 * The icon a blog just written needs: none when it has an image (the feed's
 * or the owner's); else its site's (the site URL as now stored, so a 200
 * and a 304 ask for the same site), or the feed host's home page.
 */
function iconNeed(saved: Blog | null, response: FetchResult, page?: IconNeed["page"]): IconNeed | undefined {
  if (!saved || saved.photo) return undefined;
  return { siteUrl: saved.siteUrl ?? new URL("/", response.url).href, ...(page ? { page } : {}) };
}

/** Host key for the per-host limit ("" for unparseable URLs, which fail fast anyway). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}
