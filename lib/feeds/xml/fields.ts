import { html, textOrHtml, type RawFeed, type RawText } from "../raw.js";
import { keyOf } from "./namespaces.js";
import { textOf, type XmlElement } from "./tree.js";

/**
 * Reading the fields of a feed, a channel, an item or an entry: its child
 * elements by "prefix:local" key, and the text, attributes and URLs in them,
 * as every format reader takes them.
 */

/** Child elements by "prefix:local" key, each list in document order. */
export type Fields = Map<string, XmlElement[]>;

/** What a format reader (rss.ts, atom.ts) gives the reader front: the feed, and the element each entry was read from. */
export type ReadFeed = RawFeed & { elements: XmlElement[] };

/** The element's child elements grouped by key, in document order. */
export function childrenByKey(element: XmlElement): Fields {
  const map: Fields = new Map();
  for (const child of element.children) {
    if (typeof child === "string") continue;
    const key = keyOf(child);
    const list = map.get(key);
    if (list) list.push(child);
    else map.set(key, [child]);
  }
  return map;
}

/** The first element of a key, or null. */
export function first(fields: Fields, key: string): XmlElement | null {
  return fields.get(key)?.[0] ?? null;
}

/** The trimmed text of the first element of a key; null when absent or blank. */
export function textOfFirst(fields: Fields, key: string): string | null {
  const element = fields.get(key)?.[0];
  return element ? clean(textOf(element)) : null;
}

/** An attribute of the first element of a key that has it (not blank), resolved as a URL. */
export function attr(fields: Fields, key: string, name: string): string | null {
  const element = fields.get(key)?.find((candidate) => candidate.attrs[name]?.trim());
  return element ? resolved(element.attrs[name], element) : null;
}

/** The text of the first element of a key, resolved as a URL; null when absent or blank. */
export function resolvedFirst(fields: Fields, key: string): string | null {
  const element = fields.get(key)?.[0];
  const value = element ? clean(textOf(element)) : null;
  return value && element ? resolved(value, element) : null;
}

/** A URL resolved against the element's xml:base; as written when no base is in scope or it does not parse. */
export function resolved(value: string, element: XmlElement): string {
  const trimmed = value.trim();
  return element.base ? (URL.parse(trimmed, element.base)?.href ?? trimmed) : trimmed;
}

/**
 * An id (Atom id, RSS guid) resolved against the xml:base in scope, as the
 * spec reads a relative IRI there; ids with a scheme (tag:, urn:, http:) and
 * ids outside any xml:base stay as written.
 */
export function resolvedId(value: string, element: XmlElement): string {
  if (!element.base || /^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  return URL.parse(value, element.base)?.href ?? value;
}

/** A URL made absolute against the feed URL; null when it cannot be. */
export function absolute(value: string | null, feedUrl: string): string | null {
  return value ? (URL.parse(value, feedUrl)?.href ?? null) : null;
}

/**
 * Whether a value starts with an http(s) scheme, as a link written in a field
 * should; the whole address is checked (and made absolute) in normalisation.
 */
export function isHttpSchemed(value: string | null | undefined): value is string {
  return typeof value === "string" && /^https?:/i.test(value);
}

/** Trimmed text, or null when there is none. */
export function clean(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** The values that are not blank. */
export function nonEmpty(values: Array<string | null | undefined>): string[] {
  return values.filter((value): value is string => typeof value === "string" && value.trim() !== "");
}

/** An element whose text is (escaped) HTML, as RSS descriptions and content:encoded are. */
export function htmlText(element: XmlElement | null | undefined): RawText | null {
  return element ? withBase(html(textOf(element)), element) : null;
}

/**
 * RSS says nothing of whether a title is HTML: it is read as HTML only when
 * it looks like HTML (a closing tag or an entity, and only HTML elements),
 * so "History of the <blink> tag" keeps its words.
 */
export function guessedText(element: XmlElement | null | undefined): RawText | null {
  return element ? withBase(textOrHtml(textOf(element)), element) : null;
}

/** HTML keeps the xml:base of its element so its relative URLs resolve as the feed meant. */
export function withBase(value: RawText | null, element: XmlElement): RawText | null {
  if (value && element.base) value.base = element.base;
  return value;
}

/**
 * The name in e-mail style authors: "ada@example.org (Ada)", "Ada
 * (ada@example.org)" or "Ada <ada@example.org>"; a bare address stays.
 */
export function personName(value: string | null): string | null {
  if (!value) return null;
  const parenthesised = /^\s*(.+?)\s*\((.+)\)\s*$/.exec(value);
  if (parenthesised) {
    const [, outside, inside] = parenthesised;
    if (isEmail(outside)) return inside.trim();
    if (isEmail(inside)) return outside.trim();
  }
  const angled = /^\s*"?([^"<]+?)"?\s*<[^>]+@[^>]+>\s*$/.exec(value);
  if (angled) return angled[1].trim();
  return value;
}

function isEmail(value: string): boolean {
  return /^(?:mailto:)?[^\s@()<>]+@[^\s@()<>]+$/i.test(value.trim());
}
