import FeedParser from "feedparser";
import { FeedParseError } from "../errors.js";
import { html, text, type RawEntry, type RawFeed, type RawText } from "../raw.js";

/**
 * The XML layer: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 through `feedparser`,
 * mapped to the format-neutral RawFeed. feedparser resolves links and HTML
 * attributes against xml:base and the feed URL. Only extraction happens
 * here, so another XML parser could replace this file alone.
 */
export function readXmlFeed(xml: string, feedUrl: string): Promise<RawFeed> {
  return new Promise((resolve, reject) => {
    const parser = new FeedParser({ feedurl: feedUrl, addmeta: false });
    const items: FeedParser.Item[] = [];
    parser.on("readable", () => {
      let item: FeedParser.Item | null;
      while ((item = parser.read()) !== null) items.push(item);
    });
    parser.on("error", (error: Error) => {
      reject(new FeedParseError(`Not an RSS or Atom feed: ${error.message}`, { cause: error }));
    });
    parser.on("end", () => resolve(toRawFeed(parser.meta, items)));
    parser.end(xml);
  });
}

/** Raw date elements, published-like before updated-like. */
const DATE_KEYS = [
  "rss:pubdate", "atom:published", "atom:issued", "atom:created", "dc:date", "dcterms:issued", "dcterms:created",
  "rss:date", "atom:updated", "atom:modified", "dcterms:modified",
];

function toRawFeed(meta: FeedParser.Meta, items: FeedParser.Item[]): RawFeed {
  const image = meta.image as { url?: string } | undefined;
  return {
    type: meta["#type"] === "atom" ? "atom" : "rss",
    title: html(meta.title),
    description: html(meta.description),
    link: stringOrNull(meta.link),
    images: strings([image?.url, meta.favicon]),
    author: stringOrNull(meta.author),
    language: stringOrNull(meta.language),
    entries: items.map(toRawEntry),
  };
}

function toRawEntry(item: FeedParser.Item): RawEntry {
  const origlink = stringOrNull(item.origlink);
  return {
    id: stringOrNull(item.guid),
    // feedburner:origLink / rel=canonical point at the real post, not a redirector.
    link: origlink && /^https?:/i.test(origlink) ? origlink : stringOrNull(item.link),
    title: typed(item.title, item["atom:title"]),
    summary: typed(item.summary, item["atom:summary"]),
    content: typed(item.description, item["atom:content"] ?? item["atom:summary"]),
    dates: DATE_KEYS.map((key) => elementText(item[key])).filter((value) => value !== null),
    author: stringOrNull(item.author),
    images: strings([item.image?.url, ...imageEnclosures(item.enclosures)]),
    categories: strings(item.categories),
  };
}

/** Atom marks plain text with type="text"; everything else is read as HTML. */
function typed(value: unknown, atomElement: unknown): RawText | null {
  const first = Array.isArray(atomElement) ? atomElement[0] : atomElement;
  const type = first && typeof first === "object" ? (first as { "@"?: { type?: string } })["@"]?.type : undefined;
  return type === "text" ? text(value) : html(value);
}

/** Enclosures (RSS enclosure, media:content, Atom rel=enclosure) that are images. */
function imageEnclosures(enclosures: FeedParser.Enclosure[] | undefined): string[] {
  return (enclosures ?? [])
    .filter((e) => /^image\//i.test(e.type ?? "") || e.type === "image" || /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(e.url ?? ""))
    .map((e) => e.url);
}

/** The text of a raw feedparser element: a string, `{ "#": text }`, or the first of an array. */
function elementText(element: unknown): string | null {
  const first = Array.isArray(element) ? element[0] : element;
  if (typeof first === "string") return first.trim() || null;
  if (first && typeof first === "object" && "#" in first) return stringOrNull((first as { "#": unknown })["#"]);
  return null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function strings(values: unknown[] | undefined): string[] {
  return (values ?? []).filter((value): value is string => typeof value === "string" && value.trim() !== "");
}
