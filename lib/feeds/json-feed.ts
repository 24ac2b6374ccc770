import { FeedParseError } from "./errors.js";
import { html, text, type RawEntry, type RawFeed } from "./raw.js";

type Json = Record<string, unknown>;

/** JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1); http: also accepted. */
const VERSION_PREFIX = /^https?:\/\/jsonfeed\.org\/version\//;

/** Reads a JSON Feed document into the format-neutral RawFeed. */
export function readJsonFeed(body: string): RawFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (error) {
    throw new FeedParseError(`Not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isObject(doc) || typeof doc.version !== "string" || !VERSION_PREFIX.test(doc.version)) {
    throw new FeedParseError('JSON document is not a JSON Feed: "version" is not https://jsonfeed.org/version/…');
  }
  const items = Array.isArray(doc.items) ? doc.items.filter(isObject) : [];
  return {
    type: "json",
    title: text(doc.title),
    description: text(doc.description),
    link: str(doc.home_page_url),
    images: strings([doc.icon, doc.favicon]),
    author: authorName(doc),
    language: str(doc.language),
    entries: items.map(toRawEntry),
  };
}

function toRawEntry(item: Json): RawEntry {
  const id = typeof item.id === "number" ? String(item.id) : str(item.id);
  return {
    id,
    link: str(item.url) ?? str(item.external_url),
    title: text(item.title),
    summary: text(item.summary),
    content: html(item.content_html) ?? text(item.content_text),
    dates: [item.date_published, item.date_modified],
    author: authorName(item),
    images: strings([item.image, item.banner_image]),
    categories: strings(Array.isArray(item.tags) ? item.tags : []),
  };
}

/** 1.1 `authors` (first with a name), else 1.0 `author`. */
function authorName(object: Json): string | null {
  const candidates = [...(Array.isArray(object.authors) ? object.authors : []), object.author];
  for (const candidate of candidates) {
    if (isObject(candidate) && str(candidate.name)) return str(candidate.name);
  }
  return null;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function strings(values: unknown[]): string[] {
  return values.filter((value): value is string => typeof value === "string" && value.trim() !== "");
}
