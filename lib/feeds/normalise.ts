import { parseFeedDate } from "./dates.js";
import { firstContentImage } from "./images.js";
import type { RawEntry, RawFeed, RawText } from "./raw.js";
import { sanitizeHtml } from "./sanitize.js";
import { collapseWhitespace, htmlToText, truncateText } from "./text.js";
import type { NormalisedItem, ParsedFeed } from "./types.js";
import { assignUids } from "./uid.js";
import { absoluteHttpUrl } from "./urls.js";

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
  const drafts = raw.entries.map((entry) => normaliseEntry(entry, options.url, feedAuthor));
  const uids = assignUids(drafts);
  const items: NormalisedItem[] = [];
  drafts.forEach(({ id: _id, ...item }, index) => {
    const uid = uids[index];
    if (uid !== null) items.push({ uid, ...item });
  });

  return {
    feed: {
      type: raw.type,
      title: plainText(raw.title),
      description: plainText(raw.description),
      siteUrl: absoluteHttpUrl(raw.link, options.url),
      photo: firstUrl(raw.images, options.url),
      author: feedAuthor,
      language: raw.language?.trim() || null,
    },
    items: newestFirst(items).slice(0, maxItems),
  };
}

type Draft = Omit<NormalisedItem, "uid"> & { id: string | null };

/** An entry with no author of its own is by the feed's author. */
function normaliseEntry(entry: RawEntry, feedUrl: string, feedAuthor: string | null): Draft {
  const url = absoluteHttpUrl(entry.link, feedUrl);
  const base = url ?? feedUrl;
  const content = contentHtml(entry.content ?? entry.summary, base);
  const summarySource = plainText(entry.summary) ?? plainText(entry.content);
  return {
    id: entry.id,
    url,
    title: plainText(entry.title),
    summary: summarySource ? truncateText(summarySource) : null,
    content,
    published: firstDate(entry.dates),
    author: cleanName(entry.author) ?? feedAuthor,
    photo: firstUrl(entry.images, base) ?? firstContentImage(content),
    categories: uniqueCategories(entry.categories),
  };
}

/** Text with markup removed (for HTML) and whitespace collapsed; null if empty. */
function plainText(value: RawText | null): string | null {
  if (!value) return null;
  const result = value.kind === "html" ? htmlToText(value.value) : collapseWhitespace(value.value);
  return result || null;
}

/** Sanitised HTML; plain text is escaped into paragraphs. Null if nothing is left. */
function contentHtml(value: RawText | null, base: string): string | null {
  if (!value) return null;
  const result = value.kind === "html" ? sanitizeHtml(value.value, base) : textToHtml(value.value);
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
    const url = absoluteHttpUrl(value, base);
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
function newestFirst(items: NormalisedItem[]): NormalisedItem[] {
  return [...items].sort((a, b) => {
    if (a.published && b.published) return b.published.getTime() - a.published.getTime();
    if (a.published) return -1;
    if (b.published) return 1;
    return 0;
  });
}
