import { decodeText } from "../encoding/decode.js";
import { fetchUrl, type FetchResult } from "../http/fetch.js";
import { sniffFormat } from "../feeds/sniff.js";
import type { FeedType } from "../storage/types.js";
import type { BlogrollOptions } from "../options.js";
import { parseFeedInWorker } from "../sync/parse-pool.js";

const PAGE_ACCEPT =
  "text/html, application/xhtml+xml, application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, application/json;q=0.8, */*;q=0.5";

/** A fetched document, decoded. */
export interface FetchedPage {
  result: FetchResult;
  /** Final URL after redirects. */
  url: string;
  text: string;
  format: ReturnType<typeof sniffFormat>;
}

/** Fetches one address under the options' timeout, size cap and private-network rule. */
export async function fetchPage(url: string, options: BlogrollOptions, signal?: AbortSignal): Promise<FetchedPage> {
  const result = await fetchUrl(url, {
    timeout: options.fetchTimeout,
    maxBodySize: options.maxBodySize,
    allowPrivateNetworks: options.allowPrivateNetworks,
    accept: PAGE_ACCEPT,
    signal,
  });
  const text = decodeText(result.body, result.contentType);
  return { result, url: result.url, text, format: sniffFormat(text) };
}

export function isSuccess(page: FetchedPage): boolean {
  return page.result.status >= 200 && page.result.status < 300;
}

/** The feed a fetched XML or JSON body is (read in the parse pool), or null when it is not one. */
export async function readAsFeed(
  page: FetchedPage,
): Promise<{ type: FeedType; title: string | null; siteUrl: string | null; blogroll: string | null } | null> {
  if (page.format !== "xml-feed" && page.format !== "json") return null;
  try {
    const { feed } = await parseFeedInWorker(page.text, {
      url: page.url,
      contentType: page.result.contentType,
      maxItems: 1,
    });
    return { type: feed.type, title: feed.title, siteUrl: feed.siteUrl, blogroll: feed.blogroll ?? null };
  } catch {
    return null;
  }
}
