import { parseFeedDate } from "./dates.js";
import { firstContentImage } from "./images.js";
import type { RawEntry, RawFeed, RawText } from "./raw.js";
import { syndicationInterval, ttlMinutes } from "./refresh-hints.js";
import { sanitizeHtml } from "./sanitize.js";
import { collapseWhitespace, htmlToText, SUMMARY_MAX_LENGTH, truncateText } from "./text.js";
import type { NormalisedItem, ParsedFeed } from "./types.js";
import { assignUids } from "./uid.js";
import { httpUrl } from "../url/http-url.js";

/** Items kept when the caller does not say. */
export const DEFAULT_MAX_ITEMS = 50;

export interface NormaliseOptions {
  /** The feed's own URL: base for relative links. */
  url: string;
  maxItems?: number;
}

/**
 * Turns any reader's RawFeed into clean, storable data: plain-text titles
 * and summaries, sanitised content, absolute http(s) URLs, strict dates,
 * uids, newest-first order and the item limit.
 */
export function normaliseFeed(raw: RawFeed, options: NormaliseOptions): ParsedFeed {
  const limit = options.maxItems ?? DEFAULT_MAX_ITEMS;
  const maxItems = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : DEFAULT_MAX_ITEMS;
  const feedAuthor = cleanName(raw.author);
  // Identity, date and order first; the costly part (sanitising, text extraction) only for the items kept.
  const heads = raw.entries.map((entry) => entryHead(entry, options.url));
  const uids = assignUids(heads);
  const kept: Array<{ head: EntryHead; uid: string }> = [];
  heads.forEach((head, index) => {
    const uid = uids[index];
    if (uid !== null) kept.push({ head, uid });
  });

  return {
    feed: {
      type: raw.type,
      title: plainText(raw.title),
      description: plainText(raw.description),
      siteUrl: httpUrl(raw.link, options.url),
      photo: firstUrl(raw.images, options.url),
      author: feedAuthor,
      // Language tags use "-" (BCP 47); feeds often write the POSIX "en_US".
      language: raw.language?.trim().replace(/_/g, "-") || null,
      ...(raw.blogroll ? { blogroll: httpUrl(raw.blogroll, options.url) } : {}),
      ...(raw.push ? { push: raw.push } : {}),
      ...refreshHints(raw),
    },
    items: newestFirst(kept)
      .slice(0, maxItems)
      .map(({ head, uid }) => completeItem(head, uid, feedAuthor)),
    ...(raw.problem ? { problem: raw.problem } : {}),
  };
}

/** The feed's own refresh hints, only those it gives (most feeds give none). */
function refreshHints(raw: RawFeed): { ttlMinutes?: number; updateInterval?: number } {
  const ttl = ttlMinutes(raw.refresh?.ttl);
  const interval = syndicationInterval(raw.refresh?.updatePeriod, raw.refresh?.updateFrequency);
  return { ...(ttl === null ? {} : { ttlMinutes: ttl }), ...(interval === null ? {} : { updateInterval: interval }) };
}

/** What identifies and orders an entry; its content is sanitised once, on demand. */
interface EntryHead {
  entry: RawEntry;
  id: string | null;
  url: string | null;
  /** Base for the entry's relative URLs: its link, else the feed URL. */
  base: string;
  title: string | null;
  published: Date | null;
  content(): string | null;
}

function entryHead(entry: RawEntry, feedUrl: string): EntryHead {
  const url = httpUrl(entry.link, feedUrl);
  const base = url ?? feedUrl;
  let content: string | null | undefined;
  return {
    entry,
    id: entry.id,
    url,
    base,
    title: plainText(entry.title),
    published: firstDate(entry.dates),
    content: () => (content === undefined ? (content = contentHtml(entry.content ?? entry.summary, base)) : content),
  };
}

/** An entry with no author of its own is by the feed's author. */
function completeItem(head: EntryHead, uid: string, feedAuthor: string | null): NormalisedItem {
  const { entry, base } = head;
  const content = head.content();
  const summarySource = plainText(entry.summary, SUMMARY_MAX_LENGTH) ?? plainText(entry.content, SUMMARY_MAX_LENGTH);
  return {
    uid,
    url: head.url,
    title: head.title,
    summary: summarySource ? truncateText(summarySource) : null,
    content,
    published: head.published,
    author: cleanName(entry.author) ?? feedAuthor,
    photo: firstUrl(entry.images, base) ?? firstContentImage(content),
    categories: uniqueCategories(entry.categories),
  };
}

/** Text with markup removed (for HTML) and whitespace collapsed; null if empty. Reading may stop past `atLeast` characters. */
function plainText(value: RawText | null, atLeast?: number): string | null {
  if (!value) return null;
  const result = value.kind === "html" ? htmlToText(value.value, atLeast) : collapseWhitespace(value.value);
  return result || null;
}

/** Sanitised HTML; plain text is escaped into paragraphs. Null if nothing is left. */
function contentHtml(value: RawText | null, base: string): string | null {
  if (!value) return null;
  const result = value.kind === "html" ? sanitizeHtml(value.value, value.base ?? base) : textToHtml(value.value);
  return result || null;
}

function textToHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function firstDate(values: unknown[]): Date | null {
  for (const value of values) {
    const date = parseFeedDate(value);
    if (date) return date;
  }
  return null;
}

function firstUrl(values: string[], base: string): string | null {
  for (const value of values) {
    const url = httpUrl(value, base);
    if (url) return url;
  }
  return null;
}

function cleanName(value: string | null): string | null {
  return value ? collapseWhitespace(value) || null : null;
}

/** Trimmed, non-empty, first spelling kept among case-insensitive repeats. */
function uniqueCategories(values: string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const value of values) {
    const category = collapseWhitespace(value);
    const key = category.toLowerCase();
    if (!category || seen.has(key)) continue;
    seen.add(key);
    result.push(category);
  }
  return result;
}

/** Dated items newest first, then undated ones in feed order (sort is stable). */
function newestFirst<T extends { head: { published: Date | null } }>(items: T[]): T[] {
  return [...items].sort(({ head: a }, { head: b }) => {
    if (a.published && b.published) return b.published.getTime() - a.published.getTime();
    if (a.published) return -1;
    if (b.published) return 1;
    return 0;
  });
}
