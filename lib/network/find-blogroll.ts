import { FetchError } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import { readDiscoveryPageInWorker } from "../sync/parse-pool.js";
import { fetchPage, isSuccess, readAsFeed, type FetchedPage } from "../discovery/page.js";
import { describeFetchFailure, describeHttpStatus, withTriedAddresses } from "../discovery/fetch-messages.js";
import { FeedParseError } from "../feeds/errors.js";
import { blogrollsOfHead, blogrollsOfLinkHeader, wellKnownBlogroll } from "./announce.js";
import { parseHttpUrl } from "../url/http-url.js";

/** Where a blogroll was found, cheapest first. */
export type BlogrollVia = "link-header" | "head" | "feed" | "well-known";

export interface FoundBlogroll {
  url: string;
  via: BlogrollVia;
  title: string | null;
}

export type FindBlogrollResult = { ok: true; blogroll: FoundBlogroll } | { ok: false; error: string };

/** Feed link types whose document may carry `<source:blogroll>`. */
const FEED_TYPES = new Set([
  "application/rss+xml",
  "application/atom+xml",
  "application/rdf+xml",
  "application/xml",
  "text/xml",
]);

/** What the owner typed, as an address: https is assumed when no scheme is given (`schemeAdded`: errors then name it). */
function siteAddress(input: string): { href: string; schemeAdded: boolean } | null {
  const text = input.trim();
  if (text === "" || /\s/.test(text)) return null;
  const schemeAdded = !/^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  const url = parseHttpUrl(schemeAdded ? `https://${text}` : text);
  return url ? { href: url.href, schemeAdded } : null;
}

/** Whether an address answers with an OPML document (its first bytes name the root). */
async function isOpmlAt(url: string, options: BlogrollOptions, signal?: AbortSignal): Promise<boolean> {
  try {
    const page = await fetchPage(url, options, signal);
    return (
      isSuccess(page) && /^\uFEFF?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<opml[\s>]/i.test(page.text.slice(0, 4096))
    );
  } catch (error) {
    if (error instanceof FetchError && error.code === "aborted") throw error;
    return false;
  }
}

/**
 * Finds the blogroll of a site from its address, in the conventions' order:
 * the page's `Link` header, `<link rel="blogroll">` in its head, the
 * `<source:blogroll>` (or `<blogChannel:blogRoll>`) of the first feed the
 * page declares (or of the address itself when it is a feed), then
 * `/.well-known/recommendations.opml` at the site's origin (kept only when
 * it answers with OPML). Every request goes through the options' guard,
 * timeout and size cap; at most four are made.
 */
export async function findBlogroll(
  input: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<FindBlogrollResult> {
  const site = siteAddress(input);
  if (!site) return { ok: false, error: "Not a valid web address" };
  const address = site.href;
  const named = (message: string) => (site.schemeAdded ? withTriedAddresses(message, [address]) : message);
  let page: FetchedPage;
  try {
    page = await fetchPage(address, options, signal);
  } catch (error) {
    if (error instanceof FetchError && error.code === "aborted") throw error;
    return { ok: false, error: named(describeFetchFailure(error)) };
  }
  if (!isSuccess(page)) return { ok: false, error: named(describeHttpStatus(page.result.status)) };

  const fromHeader = blogrollsOfLinkHeader(page.result.link, page.url)[0];
  if (fromHeader) return { ok: true, blogroll: { ...fromHeader, via: "link-header" } };

  let feedUrl: string | null = null;
  const direct = await readAsFeed(page);
  if (direct?.blogroll) return { ok: true, blogroll: { url: direct.blogroll, title: null, via: "feed" } };
  if (!direct && page.format === "html") {
    try {
      const { head } = await readDiscoveryPageInWorker(page.text, page.url);
      const fromHead = blogrollsOfHead(head.links)[0];
      if (fromHead) return { ok: true, blogroll: { ...fromHead, via: "head" } };
      feedUrl =
        head.links.find((link) => link.rel.includes("alternate") && link.type !== null && FEED_TYPES.has(link.type))
          ?.href ?? null;
    } catch (error) {
      if (!(error instanceof FeedParseError)) throw error;
    }
  }
  if (feedUrl) {
    try {
      const feed = await readAsFeed(await fetchPage(feedUrl, options, signal));
      if (feed?.blogroll) return { ok: true, blogroll: { url: feed.blogroll, title: null, via: "feed" } };
    } catch (error) {
      if (error instanceof FetchError && error.code === "aborted") throw error;
    }
  }
  const wellKnown = wellKnownBlogroll(page.url);
  if (wellKnown && (await isOpmlAt(wellKnown, options, signal)))
    return { ok: true, blogroll: { url: wellKnown, title: null, via: "well-known" } };
  return { ok: false, error: "This site announces no blogroll" };
}
