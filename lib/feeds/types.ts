import type { FeedType, NewItem } from "../storage/types.js";
import type { PushLinks } from "./raw.js";

export type { PushLinks, RawCloud } from "./raw.js";

/** One item of a feed, exactly what the item store takes. */
export type NormalisedItem = NewItem;

/** What a feed says about itself. */
export interface FeedInfo {
  type: FeedType;
  title: string | null;
  description: string | null;
  /** The site the feed belongs to (absolute http(s)). */
  siteUrl: string | null;
  /** Feed image, logo or icon (absolute http(s)). */
  photo: string | null;
  author: string | null;
  language?: string | null;
  /** The blogroll (OPML, absolute http(s)) the feed announces with `<source:blogroll>` or `<blogChannel:blogRoll>`. */
  blogroll?: string | null;
  /** WebSub hubs, self link and RSS <cloud> the document announces (absent when none). */
  push?: PushLinks;
  /** RSS `<ttl>`: minutes the feed may be cached. */
  ttlMinutes?: number | null;
  /** sy:updatePeriod / sy:updateFrequency as one interval, in milliseconds. */
  updateInterval?: number | null;
}

export interface ParsedFeed {
  feed: FeedInfo;
  /** Newest first; undated items follow in feed order. */
  items: NormalisedItem[];
  /**
   * Present when the feed is structurally broken (truncated, or an item's
   * tags do not close) but part of it was read: what went wrong, in words.
   * `items` then holds only the whole items; a caller should keep them and
   * report the feed as in error.
   */
  problem?: string;
}

export interface ParseFeedOptions {
  /** The URL the body was fetched from: base for relative links. */
  url: string;
  /** The HTTP Content-Type, used for the charset and as a format hint. */
  contentType?: string | null;
  /**
   * The HTTP Content-Location: for RSS and Atom, a base around the document
   * (as an outer xml:base) for relative links and ids, resolved against
   * `url`, http(s) only; as feed readers take it. Not for HTML, whose base
   * browsers never take from it.
   */
  contentLocation?: string | null;
  /** The HTTP Content-Language: the feed's language when the document declares none (its first tag). */
  contentLanguage?: string | null;
  /** Keep at most this many items (default 50). */
  maxItems?: number;
}
