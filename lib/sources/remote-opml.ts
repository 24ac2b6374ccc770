import { decodeText } from "../encoding/decode.js";
import { fetchOpmlDocument, includeFetcher, type OpmlFetchDeps } from "../network/fetch-opml.js";
import { readOpmlTree } from "../network/opml-tree.js";
import { describeOpmlProblem, opmlProblemOf } from "../opml/problem.js";
import { parseOpmlInWorker } from "../sync/parse-pool.js";
import { describeFetchFailure, describeHttpStatus, isAbort } from "../discovery/fetch-messages.js";
import type { Source } from "../storage/types.js";
import { SourceError, type ListRead, type SourceContext, type SourceList } from "./types.js";

/**
 * Parses OPML text in the parse pool and reads the documents it includes
 * (see lib/network/opml-tree.ts); a malformed, oversized or too slow first
 * document becomes a SourceError, an include that cannot be read is skipped
 * and makes the list `partial`.
 */
export async function readOpmlText(
  text: string,
  context: SourceContext,
  baseUrl: string | null = null,
  deps?: OpmlFetchDeps,
): Promise<SourceList> {
  const maxBytes = context.options.maxBodySize;
  let root;
  try {
    root = await parseOpmlInWorker(text, { maxBytes, ...(baseUrl ? { url: baseUrl } : {}) });
  } catch (error) {
    throw new SourceError(
      describeOpmlProblem(opmlProblemOf(text, error instanceof Error ? error.message : String(error))),
      { cause: error },
    );
  }
  const fetchDeps = deps ?? { options: context.options, signal: context.signal };
  const tree = await readOpmlTree(
    root,
    baseUrl,
    Buffer.byteLength(text, "utf8"),
    { parse: parseOpmlInWorker, fetchText: includeFetcher(fetchDeps) },
    { maxBytes },
  );
  return { feeds: tree.feeds, skipped: tree.skipped, partial: tree.partial, title: root.title };
}

/**
 * Fetches and parses a remote OPML document with the source's stored
 * validators (conditional request), under the options' timeout, size cap and
 * private-network rule, then the documents it includes.
 */
export async function fetchRemoteOpml(url: string, source: Source, context: SourceContext): Promise<ListRead> {
  let result;
  try {
    result = await fetchOpmlDocument(
      url,
      { options: context.options, signal: context.signal },
      { etag: source.etag, lastModified: source.lastModified },
    );
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new SourceError(describeFetchFailure(error), { cause: error });
  }
  if (result.notModified) return { notModified: true };
  if (result.status < 200 || result.status >= 300) throw new SourceError(describeHttpStatus(result.status));
  const list = await readOpmlText(decodeText(result.body, result.contentType), context, result.url);
  return { notModified: false, list, etag: result.etag, lastModified: result.lastModified };
}
