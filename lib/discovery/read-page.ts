import { boundHtmlNesting } from "../feeds/nesting.js";
import { findPageHFeed } from "./h-feed.js";
import { readPageHead, type PageHead } from "./html-links.js";

/** What discovery reads from an HTML page: its head (title, links) and whether it is an h-feed. */
export interface PageReading {
  head: PageHead;
  hfeed: { title: string | null } | null;
}

/**
 * Reads a fetched HTML page for discovery. Nesting is bounded first: the
 * page is a stranger's, and both readers' tree builders slow down with the
 * square of the depth. CPU-bound: run it in the parse pool.
 */
export function readDiscoveryPage(html: string, pageUrl: string): PageReading {
  const page = boundHtmlNesting(html);
  return { head: readPageHead(page, pageUrl), hfeed: findPageHFeed(page, pageUrl) };
}
