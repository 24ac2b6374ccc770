import { FeedParseError } from "../feeds/errors.js";
import { FetchError, type FetchResult } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import { feedUrlKey } from "../url/normalise.js";
import { parseHttpUrl } from "../url/http-url.js";
import { describeFetchFailure, describeHttpStatus, withTriedAddresses } from "./fetch-messages.js";
import { readDiscoveryPageInWorker } from "../sync/parse-pool.js";
import type { PageLink } from "./html-links.js";
import { bestIcon } from "./page-icon.js";
import { blogrollsOfHead, blogrollsOfLinkHeader, type AnnouncedBlogroll } from "../network/announce.js";
import { fetchPage, isSuccess, readAsFeed, type FetchedPage } from "./page.js";
import { looksLikeHandle } from "../fediverse/handle.js";
import { findAccount } from "../fediverse/webfinger.js";

export type DiscoveredFeedType = "rss" | "atom" | "json" | "hfeed";

export interface DiscoveredFeed {
  url: string;
  type: DiscoveredFeedType;
  title: string | null;
  /** The title the feed itself gives, when discovery read the feed (a `<link>`'s title is not one). */
  ownTitle?: string | null;
  /** True when discovery fetched it and found a feed there; a feed a page only advertises is not checked. */
  checked?: boolean;
  /** That fetch's response (a feed found at the address itself, or checked), for the blog's first fetch to use. */
  response?: FetchResult;
}

/** A feed that could not be read, and why (for the owner: the address and what it answered). */
export interface UnreadableFeed {
  url: string;
  problem: string;
}

/**
 * `blogrolls`: the OPML blogrolls the address announces (Link header,
 * `<link rel="blogroll">`, or the feed's `<source:blogroll>`), best first.
 * `fediverse` and `fediverseUrl`: the handle the owner typed and the profile
 * page WebFinger gave for it, where discovery looked (absent for addresses).
 */
export type DiscoveryResult =
  | {
      success: true;
      feeds: DiscoveredFeed[];
      pageTitle: string | null;
      siteUrl: string;
      blogrolls: AnnouncedBlogroll[];
      fediverse?: string;
      fediverseUrl?: string;
    }
  | { success: false; error: string; feeds: [] };

/** Paths tried, in this order, when a page declares no feed. */
export const COMMON_FEED_PATHS = ["/feed", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json", "/feed.xml", "/rss"];
const PROBE_CONCURRENCY = 3;
/** Untyped `<link rel="feed">`s fetched to see what they are, at most: a page may list thousands. */
export const MAX_PROBED_LINKS = 10;

/** Link MIME types that announce a feed, with the format they stand for. */
const LINK_TYPES: Record<string, DiscoveredFeedType> = {
  "application/rss+xml": "rss",
  "application/rdf+xml": "rss",
  "application/atom+xml": "atom",
  "application/feed+json": "json",
  "application/json": "json",
  "text/xml": "rss",
  "application/xml": "rss",
};

/**
 * Addresses to try for what the owner typed: as given, or https then http
 * when no scheme was typed (`schemeAdded`: an error then names what was tried).
 */
function addressesFor(input: string): { addresses: string[]; schemeAdded: boolean } | null {
  const text = input.trim();
  if (text === "" || /\s/.test(text)) return null;
  const withScheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  const candidates = withScheme ? [text] : [`https://${text}`, `http://${text}`];
  const valid = candidates.flatMap((candidate) => {
    const url = parseHttpUrl(candidate);
    return url && url.hostname !== "" ? [withScheme ? candidate : url.href] : [];
  });
  return valid.length > 0 ? { addresses: valid, schemeAdded: !withScheme } : null;
}

const failure = (error: string): DiscoveryResult => ({ success: false, error, feeds: [] });

/** Whether a failed https attempt is worth retrying over plain http. */
function worthHttpFallback(error: unknown): boolean {
  return error instanceof FetchError && (error.code === "network" || error.code === "timeout");
}

/** A feed announced by a `<link>`, "probe" for a rel=feed whose type does not tell, or null. */
function classifyLink(link: PageLink): DiscoveredFeed | "probe" | null {
  const known = link.type ? LINK_TYPES[link.type] : undefined;
  if (link.rel.includes("alternate") && known) return { url: link.href, type: known, title: link.title };
  if (!link.rel.includes("feed")) return null;
  if (link.type === "text/html" || link.type === "application/xhtml+xml")
    return { url: link.href, type: "hfeed", title: link.title };
  if (known && link.type !== "application/json") return { url: link.href, type: known, title: link.title };
  return "probe";
}

/** Runs `work` over `inputs` with at most `limit` at once; results keep input order. */
async function mapLimited<T, R>(
  inputs: T[],
  limit: number,
  work: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(inputs.length);
  let next = 0;
  const lane = async () => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await work(inputs[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, lane));
  return results;
}

/** Fetches an address and tells whether it is a feed (XML/JSON, or an HTML h-feed when `allowHFeed`). */
async function probe(
  url: string,
  title: string | null,
  options: BlogrollOptions,
  signal: AbortSignal | undefined,
  allowHFeed: boolean,
): Promise<DiscoveredFeed | null> {
  // Once the caller has gone, the remaining addresses are not even tried.
  if (signal?.aborted) return null;
  try {
    const page = await fetchPage(url, options, signal);
    if (!isSuccess(page)) return null;
    const feed = await readAsFeed(page);
    if (feed)
      return {
        url: page.url,
        type: feed.type,
        title: title ?? feed.title,
        ownTitle: feed.title,
        checked: true,
        response: page.result,
      };
    if (allowHFeed && page.format === "html") {
      const { hfeed } = await readDiscoveryPageInWorker(page.text, page.url);
      if (hfeed)
        return { url: page.url, type: "hfeed", title: title ?? hfeed.title, checked: true, response: page.result };
    }
  } catch {
    // An address that cannot be fetched is simply not a feed.
  }
  return null;
}

/** A feed of comments (WordPress "Comments Feed", `/comments/feed`, …), not of posts. */
function isCommentsFeed(feed: DiscoveredFeed): boolean {
  if (feed.title && /\bcomments?\b/i.test(feed.title)) return true;
  try {
    return /(^|[/._-])comments?([/._-]|$)/i.test(new URL(feed.url).pathname);
  } catch {
    return false;
  }
}

/**
 * De-duplicated by feed URL key, best first: the order the site gives (its
 * main feed usually first), except that comment feeds go after post feeds.
 */
function dedupeAndRank(feeds: DiscoveredFeed[]): DiscoveredFeed[] {
  const seen = new Set<string>();
  const unique = feeds.filter((feed) => {
    const key = feedUrlKey(feed.url);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [...unique.filter((feed) => !isCommentsFeed(feed)), ...unique.filter(isCommentsFeed)];
}

/** Feeds a fetched HTML page declares (link tags, in document order) or is (h-feed); the page is read in the parse pool. */
async function feedsOfHtmlPage(page: FetchedPage, options: BlogrollOptions, signal?: AbortSignal) {
  const { head, hfeed } = await readDiscoveryPageInWorker(page.text, page.url);
  // Links whose type does not tell are fetched, a few at a time and the first MAX_PROBED_LINKS only; document order is kept.
  let probes = 0;
  const entries = head.links.map((link) => {
    const entry = classifyLink(link);
    return entry === "probe" && ++probes > MAX_PROBED_LINKS ? null : entry;
  });
  const resolved = await mapLimited(head.links, PROBE_CONCURRENCY, async (link, index) => {
    const entry = entries[index];
    return entry === "probe" ? probe(link.href, link.title, options, signal, true) : entry;
  });
  const feeds = resolved.filter((feed): feed is DiscoveredFeed => feed !== null);
  if (hfeed)
    feeds.push({
      url: page.url,
      type: "hfeed",
      title: hfeed.title ?? head.title,
      checked: true,
      response: page.result,
    });
  return { feeds, pageTitle: head.title, icon: bestIcon(head.links), blogrolls: blogrollsOfHead(head.links) };
}

/** Tries the common feed paths at the site's root, a few at a time, keeping the list's order. */
async function guessFeeds(pageUrl: string, options: BlogrollOptions, signal?: AbortSignal): Promise<DiscoveredFeed[]> {
  const origin = new URL(pageUrl).origin;
  const found = await mapLimited(COMMON_FEED_PATHS, PROBE_CONCURRENCY, (path) =>
    probe(`${origin}${path}`, null, options, signal, false),
  );
  return found.filter((feed): feed is DiscoveredFeed => feed !== null);
}

/** The site page discovery read, and the icon it declares (null: none), so the sync need not fetch it again. */
export interface DiscoveredPage {
  url: string;
  icon: string | null;
  /** The blogrolls (OPML addresses) the page and its Link header announce. */
  blogrolls: string[];
}

/**
 * Finds the feeds of a site from an address the owner typed (scheme
 * optional: https is tried first, then http). Looks at `<link rel="alternate">`
 * and `<link rel="feed">` tags, an h-feed on the page itself, the address
 * being a feed already, and, only when none of those gave anything, a few
 * common feed paths. De-duplicated, best first. Every fetch goes through the
 * options' timeout, size cap and private-network rule; a fetch failure is a
 * `success: false` result with a short message, never an exception (an
 * exception means a fault of our own).
 */
export async function discoverFeeds(
  input: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<DiscoveryResult> {
  const { result } = await discoverSite(input, options, signal);
  // The feed's own title is for the caller that stores a blog; the listing shows what the site says.
  return result.success
    ? {
        ...result,
        feeds: result.feeds.map(({ ownTitle: _own, checked: _checked, response: _response, ...feed }) => feed),
      }
    : result;
}

/**
 * discoverFeeds, also giving the HTML page read on the way, if one was. A
 * fediverse handle (`@user@host`) is looked up by WebFinger first, and its
 * profile page (Mastodon's, whose feed is the account's posts; a WordPress
 * author's or a Ghost site's, whose feed is the blog's) is read as a site.
 */
export async function discoverSite(
  input: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<{ result: DiscoveryResult; page: DiscoveredPage | null }> {
  if (!looksLikeHandle(input)) return discoverAddress(input, options, signal);
  const account = await findAccount(input, options, signal);
  if (!account.ok) return { result: failure(account.error), page: null };
  const found = await discoverAddress(account.profileUrl, options, signal);
  if (!found.result.success) return found;
  return { ...found, result: { ...found.result, fediverse: account.handle, fediverseUrl: account.profileUrl } };
}

/** Discovery at a web address. */
async function discoverAddress(
  input: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<{ result: DiscoveryResult; page: DiscoveredPage | null }> {
  const typed = addressesFor(input);
  if (!typed) return { result: failure("Not a valid web address"), page: null };

  let page: FetchedPage | null = null;
  let lastError: unknown = null;
  const tried: string[] = [];
  for (const address of typed.addresses) {
    tried.push(address);
    try {
      page = await fetchPage(address, options, signal);
      break;
    } catch (error) {
      // Only a failed fetch is the site's problem; anything else is ours (500 at the route).
      if (!(error instanceof FetchError)) throw error;
      lastError = error;
      if (!worthHttpFallback(error)) break;
    }
  }
  const named = (message: string) => (typed.schemeAdded ? withTriedAddresses(message, tried) : message);
  if (!page) return { result: failure(named(describeFetchFailure(lastError))), page: null };
  if (!isSuccess(page)) return { result: failure(named(describeHttpStatus(page.result.status))), page: null };

  const direct = await readAsFeed(page);
  if (direct) {
    const siteUrl = direct.siteUrl ?? `${new URL(page.url).origin}/`;
    const blogrolls = withoutRepeats([
      ...blogrollsOfLinkHeader(page.result.link, page.url),
      ...(direct.blogroll ? [{ url: direct.blogroll, title: null }] : []),
    ]);
    return {
      result: {
        success: true,
        feeds: [
          {
            url: page.url,
            type: direct.type,
            title: direct.title,
            ownTitle: direct.title,
            checked: true,
            response: page.result,
          },
        ],
        pageTitle: direct.title,
        siteUrl,
        blogrolls,
      },
      page: null,
    };
  }

  let feeds: DiscoveredFeed[] = [];
  let pageTitle: string | null = null;
  let read: DiscoveredPage | null = null;
  let blogrolls = blogrollsOfLinkHeader(page.result.link, page.url);
  if (page.format === "html") {
    try {
      let icon: string | null;
      let announced: AnnouncedBlogroll[];
      ({ feeds, pageTitle, icon, blogrolls: announced } = await feedsOfHtmlPage(page, options, signal));
      blogrolls = withoutRepeats([...blogrolls, ...announced]);
      read = { url: page.url, icon, blogrolls: blogrolls.map((entry) => entry.url) };
    } catch (error) {
      // The page overran the parse pool's time or memory limit: the site's problem, said so.
      if (!(error instanceof FeedParseError)) throw error;
      return { result: failure(error.message), page: null };
    }
  }
  if (feeds.length === 0) feeds = await guessFeeds(page.url, options, signal);
  return {
    result: { success: true, feeds: dedupeAndRank(feeds), pageTitle, siteUrl: page.url, blogrolls },
    page: read,
  };
}

/**
 * Reads a feed a page advertises, to know it is there before it is added:
 * the feed as read (its address after redirects, its own title), or what
 * went wrong in words ("Not found (HTTP 404)", a timeout, not a feed).
 */
export async function checkFeed(
  feed: DiscoveredFeed,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<{ feed: DiscoveredFeed } | { problem: string }> {
  let page: FetchedPage;
  try {
    page = await fetchPage(feed.url, options, signal);
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    return { problem: describeFetchFailure(error) };
  }
  if (!isSuccess(page)) return { problem: describeHttpStatus(page.result.status) };
  const read = await readAsFeed(page);
  if (read)
    return {
      feed: {
        url: page.url,
        type: read.type,
        title: feed.title ?? read.title,
        ownTitle: read.title,
        checked: true,
        response: page.result,
      },
    };
  if (feed.type === "hfeed" && page.format === "html") {
    const { hfeed } = await readDiscoveryPageInWorker(page.text, page.url);
    if (hfeed)
      return {
        feed: { url: page.url, type: "hfeed", title: feed.title ?? hfeed.title, checked: true, response: page.result },
      };
  }
  return { problem: "Not a feed" };
}

/** Blogrolls announced more than one way, kept once (the first way's title wins unless it has none). */
function withoutRepeats(blogrolls: AnnouncedBlogroll[]): AnnouncedBlogroll[] {
  const kept = new Map<string, AnnouncedBlogroll>();
  for (const entry of blogrolls) {
    const known = kept.get(entry.url);
    if (!known) kept.set(entry.url, entry);
    else if (!known.title && entry.title) known.title = entry.title;
  }
  return [...kept.values()];
}
