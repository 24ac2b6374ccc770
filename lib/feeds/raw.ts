import type { FeedType } from "../storage/types.js";
import { looksLikeHtml } from "./text.js";

/**
 * The format-neutral shape every reader (XML, JSON Feed, h-feed) produces
 * and `normaliseFeed` consumes. Readers only extract; all cleaning (URL
 * resolution, sanitising, date parsing, uids, ordering) happens in
 * normalisation, so a reader can be swapped without touching it.
 */

/** A piece of text and whether it is HTML or plain text. */
export interface RawText {
  kind: "html" | "text";
  value: string;
  /** Base for relative URLs inside HTML when the document set one (xml:base); else the item URL is used. */
  base?: string;
}

export interface RawEntry {
  /** guid / id / uid as given. */
  id: string | null;
  /** Permalink as given; may be relative. */
  link: string | null;
  title: RawText | null;
  summary: RawText | null;
  content: RawText | null;
  /** Date values in order of preference (published before updated). */
  dates: unknown[];
  author: string | null;
  /** Explicit image URLs in order of preference; may be relative. */
  images: string[];
  categories: string[];
}

export interface RawFeed {
  type: FeedType;
  title: RawText | null;
  description: RawText | null;
  link: string | null;
  images: string[];
  author: string | null;
  language: string | null;
  /** The blogroll (OPML) the feed announces, as written (resolved against xml:base where one is in scope). */
  blogroll?: string | null;
  /** How often the feed says to read it, as written (RSS `<ttl>`, `sy:` elements); absent in formats without them. */
  refresh?: { ttl: string | null; updatePeriod: string | null; updateFrequency: string | null };
  entries: RawEntry[];
  /** Where the feed says it pushes updates (WebSub hubs and self, an RSS <cloud>); absent when it says nothing. */
  push?: PushLinks;
  /** Set when only part of the document could be read (see ParsedFeed.problem). */
  problem?: string;
}

/** An RSS 2.0 <cloud> element's attributes, as given. */
export interface RawCloud {
  domain: string;
  port: string;
  path: string;
  registerProcedure: string;
  protocol: string;
}

/** Push announcements inside a document: hub and self links (WebSub), an RSS <cloud> (rssCloud). */
export interface PushLinks {
  /** Absolute hub URLs in document order. */
  hubs: string[];
  /** The document's rel=self URL, absolute, or null. */
  self: string | null;
  cloud: RawCloud | null;
}

/** Shorthand constructors that turn empty values into null. */
export function html(value: unknown): RawText | null {
  return typeof value === "string" && value.trim() ? { kind: "html", value } : null;
}

export function text(value: unknown): RawText | null {
  return typeof value === "string" && value.trim() ? { kind: "text", value } : null;
}

/** HTML when the value looks like HTML (see looksLikeHtml), else plain text: for fields whose format does not say. */
export function textOrHtml(value: unknown): RawText | null {
  return typeof value === "string" && looksLikeHtml(value) ? html(value) : text(value);
}
