import type { FeedType, NewItem } from "../storage/types.js";

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
}

export interface ParsedFeed {
  feed: FeedInfo;
  /** Newest first; undated items follow in feed order. */
  items: NormalisedItem[];
}

export interface ParseFeedOptions {
  /** The URL the body was fetched from: base for relative links. */
  url: string;
  /** The HTTP Content-Type, used for the charset and as a format hint. */
  contentType?: string | null;
  /** Keep at most this many items (default 50). */
  maxItems?: number;
}
