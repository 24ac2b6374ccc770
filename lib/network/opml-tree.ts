/**
 * OPML 2.0 includes: a list may pull in other lists with
 * `<outline type="include" url="…">`. The documents are read breadth first,
 * at most MAX_INCLUDE_DEPTH levels below the first, each address once (a loop
 * is cut where it closes), and the size and outline limits hold over the
 * whole tree, not per document: a stranger's list of lists costs no more than
 * one document of the largest accepted size.
 */
import type { OpmlFeed, ParsedOpml, ParseOpmlOptions } from "../opml/parse.js";
import { feedUrlKey } from "../url/normalise.js";

/** Levels of includes followed below the first document (an include of an include of an include). */
export const MAX_INCLUDE_DEPTH = 3;
/** Documents read through includes in one tree: each is a request. */
export const MAX_INCLUDED_DOCUMENTS = 20;
/** The outline limit of one document (lib/opml/parse.ts), here over the whole tree. */
export const MAX_TREE_OUTLINES = 20_000;

/** A document of the tree, as its reader gave it: the text, or why it could not be read. */
export type IncludedText = { ok: true; text: string; url: string } | { ok: false; reason: string };

export interface OpmlTreeDeps {
  /** Parses one document under the given limits (the parse pool's parseOpml). */
  parse(text: string, options: ParseOpmlOptions): Promise<ParsedOpml>;
  /** Fetches one included document, reading at most `maxBytes`. */
  fetchText(url: string, maxBytes: number): Promise<IncludedText>;
}

export interface OpmlTreeLimits {
  /** Bytes over the whole tree (the first document's included). */
  maxBytes: number;
  /** Outlines over the whole tree; MAX_TREE_OUTLINES by default. */
  maxOutlines?: number;
}

/** The feeds of a whole tree, with what was left out. `partial`: some of the tree could not be read. */
export interface OpmlTree {
  feeds: OpmlFeed[];
  skipped: Array<{ xmlUrl: string; reason: string }>;
  /** True when an include was not read (unreachable, not OPML, past a limit): its feeds are unknown, not gone. */
  partial: boolean;
  /** Documents read, the first one included. */
  documents: number;
  /** Included documents asked for over the network. */
  requests: number;
}

interface Pending {
  url: string;
  category: string | null;
  depth: number;
}

/**
 * Reads the tree under an already parsed first document (fetched from
 * `rootUrl`, or an upload when null). Included feeds without a category of
 * their own take the include outline's label. An include that cannot be read
 * is listed in `skipped` with the reason and makes the tree `partial`.
 */
export async function readOpmlTree(
  root: ParsedOpml,
  rootUrl: string | null,
  rootBytes: number,
  deps: OpmlTreeDeps,
  limits: OpmlTreeLimits,
): Promise<OpmlTree> {
  const tree: OpmlTree = {
    feeds: [...root.feeds],
    skipped: [...root.skipped],
    partial: false,
    documents: 1,
    requests: 0,
  };
  let bytesLeft = limits.maxBytes - rootBytes;
  let outlinesLeft = (limits.maxOutlines ?? MAX_TREE_OUTLINES) - root.outlineCount;
  const seen = new Set<string>(rootUrl ? [feedUrlKey(rootUrl)] : []);
  const queue: Pending[] = root.includes.map((include) => ({ ...include, depth: 1 }));
  const leaveOut = (url: string, reason: string) => {
    tree.skipped.push({ xmlUrl: url, reason });
    tree.partial = true;
  };

  for (let next = queue.shift(); next; next = queue.shift()) {
    const key = feedUrlKey(next.url);
    // A document already read (a loop, or two includes of one list) adds nothing new.
    if (seen.has(key)) continue;
    seen.add(key);
    if (next.depth > MAX_INCLUDE_DEPTH) {
      leaveOut(next.url, `include nested deeper than ${MAX_INCLUDE_DEPTH} levels`);
      continue;
    }
    if (tree.requests >= MAX_INCLUDED_DOCUMENTS) {
      leaveOut(next.url, `more than ${MAX_INCLUDED_DOCUMENTS} included documents`);
      continue;
    }
    if (bytesLeft <= 0 || outlinesLeft <= 0) {
      leaveOut(next.url, "the list and its includes are past the size limit");
      continue;
    }
    tree.requests++;
    const fetched = await deps.fetchText(next.url, bytesLeft);
    if (!fetched.ok) {
      leaveOut(next.url, `include not read: ${fetched.reason}`);
      continue;
    }
    let parsed: ParsedOpml;
    try {
      parsed = await deps.parse(fetched.text, { maxBytes: bytesLeft, maxOutlines: outlinesLeft, url: fetched.url });
    } catch (error) {
      leaveOut(next.url, `include not read: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    tree.documents++;
    bytesLeft -= Buffer.byteLength(fetched.text, "utf8");
    outlinesLeft -= parsed.outlineCount;
    for (const feed of parsed.feeds) tree.feeds.push({ ...feed, category: feed.category ?? next.category });
    tree.skipped.push(...parsed.skipped);
    for (const include of parsed.includes)
      queue.push({ url: include.url, category: include.category ?? next.category, depth: next.depth + 1 });
  }
  return tree;
}
