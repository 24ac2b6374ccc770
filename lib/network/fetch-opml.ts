import type { Dispatcher } from "undici";
import { decodeText } from "../encoding/decode.js";
import { fetchUrl, type FetchResult } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import { describeFetchFailure, describeHttpStatus, isAbort } from "../discovery/fetch-messages.js";
import type { IncludedText } from "./opml-tree.js";

export const OPML_ACCEPT = "text/x-opml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1";

/** How an OPML document (and its includes) is fetched: the options' rules, plus a run's politeness when there is one. */
export interface OpmlFetchDeps {
  options: Pick<BlogrollOptions, "fetchTimeout" | "maxBodySize" | "allowPrivateNetworks">;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  hostGate?: <T>(host: string, task: () => Promise<T>) => Promise<T>;
}

/** One OPML request under the options' timeout, size cap (or a smaller one) and private-network rule. */
export function fetchOpmlDocument(
  url: string,
  deps: OpmlFetchDeps,
  extra: { etag?: string | null; lastModified?: string | null; maxBytes?: number } = {},
): Promise<FetchResult> {
  return fetchUrl(url, {
    timeout: deps.options.fetchTimeout,
    maxBodySize: Math.min(extra.maxBytes ?? deps.options.maxBodySize, deps.options.maxBodySize),
    allowPrivateNetworks: deps.options.allowPrivateNetworks,
    etag: extra.etag ?? undefined,
    lastModified: extra.lastModified ?? undefined,
    accept: OPML_ACCEPT,
    signal: deps.signal,
    dispatcher: deps.dispatcher,
    hostGate: deps.hostGate,
  });
}

/** Reads an included document for the tree reader: its text, or why not (a stop of the run is rethrown). */
export function includeFetcher(deps: OpmlFetchDeps): (url: string, maxBytes: number) => Promise<IncludedText> {
  return async (url, maxBytes) => {
    try {
      const result = await fetchOpmlDocument(url, deps, { maxBytes });
      if (result.status < 200 || result.status >= 300) return { ok: false, reason: describeHttpStatus(result.status) };
      return { ok: true, text: decodeText(result.body, result.contentType), url: result.url };
    } catch (error) {
      if (isAbort(error)) throw error;
      return { ok: false, reason: describeFetchFailure(error) };
    }
  };
}
