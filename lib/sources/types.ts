import type { MicrosubStore } from "../microsub/types.js";
import type { BlogrollOptions } from "../options.js";
import type { ImportCounts, Source, SourceType, Storage } from "../storage/types.js";

/** One feed a source lists, as the OPML parser gives it. */
export interface ListedFeed {
  xmlUrl: string;
  title: string | null;
  htmlUrl: string | null;
  description: string | null;
  type: string | null;
  category: string | null;
}

/** A feed a source could not take, with the reason shown to the owner. */
export interface SkippedFeed {
  xmlUrl: string;
  reason: string;
}

/** What one import did: the counts kept on the source, plus why feeds were skipped. */
export interface ImportReport extends ImportCounts {
  skippedFeeds: SkippedFeed[];
}

/** The feeds a source's list names, as read, and the list's own title (an OPML document's `<title>`). */
export interface SourceList {
  feeds: ListedFeed[];
  skipped?: SkippedFeed[];
  /** Part of the list could not be read (an include). */
  partial?: boolean;
  title: string | null;
}

/** A source's list as read, with the validators it came with; `notModified` when the server answered 304 to ours. */
export type ListRead =
  { notModified: true } | { notModified: false; list: SourceList; etag?: string | null; lastModified?: string | null };

/** Everything a source needs to refresh itself. */
export interface SourceContext {
  storage: Storage;
  options: BlogrollOptions;
  /** The Microsub plugin's data, or null when it is not installed. */
  microsub: MicrosubStore | null;
  signal?: AbortSignal;
  /** Reading for a preview: nothing is stored (someone's blogroll is looked up afresh, where it was found not kept). */
  readOnly?: boolean;
}

/**
 * The outcome of refreshing one source. `report` is null when the source had
 * nothing new (HTTP 304). Validators are stored only after a successful import,
 * so a failed import is retried in full next time.
 */
export interface SourceRefresh {
  report: ImportReport | null;
  /** The list's own title (an OPML document's `<title>`), when it was read and has one. */
  title?: string | null;
  etag?: string | null;
  lastModified?: string | null;
}

/** One kind of source: how to bring its blog list up to date. */
export interface SourceKind {
  type: SourceType;
  /**
   * Kinds that read a list (an OPML address or file, FeedLand, someone's
   * blogroll): reads it without importing it, for refresh and for the admin's
   * preview alike. Throws SourceError when the list cannot be read.
   */
  read?(source: Source, context: SourceContext): Promise<ListRead>;
  /** Updates the blogs this source lists; throws SourceError when the source cannot be read. */
  refresh(source: Source, context: SourceContext): Promise<SourceRefresh>;
}

/** A source could not be read; the message is shown to the owner as the source's `lastError`. */
export class SourceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SourceError";
  }
}
