import { decodeText } from "../encoding/decode.js";
import { fetchUrl } from "../http/fetch.js";
import { parseOpmlInWorker } from "../sync/parse-pool.js";
import { describeFetchFailure, describeHttpStatus, isAbort } from "../discovery/fetch-messages.js";
import type { Source } from "../storage/types.js";
import type { FeedList } from "./import.js";
import { SourceError, type SourceContext } from "./types.js";

const OPML_ACCEPT = "text/x-opml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1";

/** A fetched OPML list, or `notModified` when the server answered 304 to our validators. */
export type RemoteOpml =
  | { notModified: true }
  | { notModified: false; list: FeedList; etag: string | null; lastModified: string | null };

/** Parses OPML text into a feed list in the parse pool; a malformed, oversized or too slow document becomes a SourceError. */
export async function readOpmlText(text: string, context: SourceContext): Promise<FeedList> {
  try {
    const { feeds, skipped } = await parseOpmlInWorker(text, { maxBytes: context.options.maxBodySize });
    return { feeds, skipped };
  } catch (error) {
    throw new SourceError(`Not a valid OPML document: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * Fetches and parses a remote OPML document with the source's stored
 * validators (conditional request), under the options' timeout, size cap and
 * private-network rule.
 */
export async function fetchRemoteOpml(url: string, source: Source, context: SourceContext): Promise<RemoteOpml> {
  const { options, signal } = context;
  let result;
  try {
    result = await fetchUrl(url, {
      timeout: options.fetchTimeout,
      maxBodySize: options.maxBodySize,
      allowPrivateNetworks: options.allowPrivateNetworks,
      etag: source.etag ?? undefined,
      lastModified: source.lastModified ?? undefined,
      accept: OPML_ACCEPT,
      signal,
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new SourceError(describeFetchFailure(error), { cause: error });
  }
  if (result.notModified) return { notModified: true };
  if (result.status < 200 || result.status >= 300) throw new SourceError(describeHttpStatus(result.status));
  const list = await readOpmlText(decodeText(result.body, result.contentType), context);
  return { notModified: false, list, etag: result.etag, lastModified: result.lastModified };
}
