import { FeedParseError } from "../errors.js";
import { html, text, type RawEntry, type RawFeed, type RawText } from "../raw.js";
import { findRootElement } from "../sniff.js";
import { innerXml, parseXmlTree, textOf, type XmlElement } from "./tree.js";

/** Namespace URIs, shortened to the prefixes used below whatever a feed calls them. */
const NAMESPACES: Record<string, string> = {
  "": "rss",
  "http://purl.org/rss/1.0/": "rss",
  "http://my.netscape.com/rdf/simple/0.9/": "rss",
  "http://backend.userland.com/rss2": "rss",
  "http://backend.userland.com/rss": "rss",
  "http://www.w3.org/2005/Atom": "atom",
  "http://purl.org/atom/ns#": "atom",
  "http://purl.org/rss/1.0/modules/content/": "content",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://search.yahoo.com/mrss/": "media",
  "http://search.yahoo.com/mrss": "media",
  "http://www.itunes.com/dtds/podcast-1.0.dtd": "itunes",
  "http://rssnamespace.org/feedburner/ext/1.0": "feedburner",
  "http://www.pheedo.com/namespace/pheedo": "pheedo",
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
  "http://www.w3.org/1999/xhtml": "xhtml",
};

const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";

/** Characters XML 1.0 forbids: C0 controls except tab, LF and CR, and U+FFFE/U+FFFF. */
const ILLEGAL_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Date elements, published-like before updated-like. */
const DATE_KEYS = [
  "rss:pubdate", "atom:published", "atom:issued", "atom:created", "dc:date", "dcterms:issued", "dcterms:created",
  "dcterms:date", "atom:updated", "atom:modified", "dcterms:modified",
];

/** "prefix:local" of an element, by namespace; unknown namespaces keep their URI so they never match. */
function keyOf(element: XmlElement): string {
  return `${NAMESPACES[element.ns] ?? element.ns}:${element.local}`;
}

/** The element's child elements grouped by key, in document order. */
function childrenByKey(element: XmlElement): Map<string, XmlElement[]> {
  const map = new Map<string, XmlElement[]>();
  for (const child of element.children) {
    if (typeof child === "string") continue;
    const key = keyOf(child);
    const list = map.get(key);
    if (list) list.push(child);
    else map.set(key, [child]);
  }
  return map;
}

/**
 * The XML layer: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 read into the
 * format-neutral RawFeed, in one lenient pass (see parseXmlTree). Links,
 * enclosures and images are resolved against xml:base where one is in
 * scope; HTML carries its xml:base along for the sanitiser. Anything left
 * relative is resolved against the feed URL in normalisation.
 *
 * @throws FeedParseError when the root is not rss, RDF or feed.
 */
export function readXmlFeed(xml: string, feedUrl: string): RawFeed {
  const start = findRootElement(xml);
  if (!start) throw new FeedParseError("Not an RSS or Atom feed: no root element");
  // Hand-written feeds often leave the Atom namespace off <feed>: read them as Atom all the same.
  const bareFeed = start.name === "feed" && !/\sxmlns\s*=/.test(start.tag);
  // Reading from the root element on leaves any DOCTYPE (and its entity declarations) unread.
  const root = parseXmlTree(xml.slice(start.start).replace(ILLEGAL_XML_CHARS, ""), feedUrl, bareFeed ? ATOM_NAMESPACE : "");
  if (root?.local === "feed" && NAMESPACES[root.ns] === "atom") return readAtom(root, feedUrl);
  if (root && (root.local === "rss" || root.local === "rdf")) return readRss(root, feedUrl);
  throw new FeedParseError(`Not an RSS or Atom feed: root <${start.name}>`);
}

function readRss(root: XmlElement, feedUrl: string): RawFeed {
  const rootChildren = childrenByKey(root);
  const channel = rootChildren.get("rss:channel")?.[0] ?? null;
  const meta = channel ? childrenByKey(channel) : new Map<string, XmlElement[]>();
  // RSS 2.0 puts items in the channel, RSS 0.90/1.0 beside it.
  const items = [...(meta.get("rss:item") ?? []), ...(rootChildren.get("rss:item") ?? [])];
  const image = rootChildren.get("rss:image")?.[0] ?? meta.get("rss:image")?.[0];
  const imageUrl = image ? first(childrenByKey(image), "rss:url") : null;
  return {
    type: "rss",
    title: html(textOfFirst(meta, "rss:title") ?? textOfFirst(meta, "dc:title")),
    description: html(textOfFirst(meta, "rss:description") ?? textOfFirst(meta, "itunes:summary")),
    link: channel ? rssLink(meta, channel) : null,
    images: nonEmpty([
      imageUrl ? resolved(textOf(imageUrl), imageUrl) : null,
      attr(meta, "itunes:image", "href"),
      attr(meta, "atom:icon", "href") ?? textOfFirst(meta, "atom:logo"),
    ]),
    author: personName(textOfFirst(meta, "rss:managingeditor")) ??
      textOfFirst(meta, "dc:creator") ?? textOfFirst(meta, "itunes:author") ?? personName(textOfFirst(meta, "rss:webmaster")),
    language: textOfFirst(meta, "rss:language") ?? textOfFirst(meta, "dc:language") ?? root.attrs["xml:lang"] ?? null,
    entries: items.map((item) => readRssItem(item, feedUrl)),
  };
}

function rssLink(meta: Map<string, XmlElement[]>, channel: XmlElement): string | null {
  const link = meta.get("rss:link")?.find((element) => textOf(element).trim());
  if (link) return resolved(textOf(link), link);
  const alternate = atomLink(meta, "alternate");
  return alternate ?? (channel.attrs["rdf:about"] || null);
}

function readRssItem(item: XmlElement, feedUrl: string): RawEntry {
  const fields = childrenByKey(item);
  const guidElement = fields.get("rss:guid")?.[0];
  const guid = guidElement ? clean(textOf(guidElement)) : null;
  const plainLink = rssPlainLink(fields);
  const link = origLink(fields) ?? plainLink ?? permalinkGuid(item, guidElement, guid);
  const description = fields.get("rss:description")?.[0] ?? fields.get("itunes:summary")?.[0];
  const content = fields.get("content:encoded")?.[0] ?? fields.get("atom:content")?.[0];
  return {
    // Without a guid the item is known by its link as written (not the origLink), as feedparser did.
    id: guid ?? clean(item.attrs["rdf:about"]) ?? absolute(plainLink, feedUrl),
    link,
    title: htmlText(fields.get("rss:title")?.[0] ?? fields.get("dc:title")?.[0]),
    summary: htmlText(description),
    content: content ? (keyOf(content) === "atom:content" ? atomText(content) : htmlText(content)) : htmlText(description),
    dates: dates(fields),
    author: personName(textOfFirst(fields, "rss:author")) ?? textOfFirst(fields, "dc:creator") ??
      textOfFirst(fields, "itunes:author") ?? textOfFirst(fields, "dc:publisher"),
    images: itemImages(fields),
    categories: categories(fields, "rss"),
  };
}

/** An RSS item's <link>, else its Atom rel=alternate link. */
function rssPlainLink(fields: Map<string, XmlElement[]>): string | null {
  const link = fields.get("rss:link")?.find((element) => textOf(element).trim());
  return link ? resolved(textOf(link), link) : atomLink(fields, "alternate");
}

/** A guid that is a permalink (isPermaLink not false, an http(s) URL), else an http(s) rdf:about. */
function permalinkGuid(item: XmlElement, guidElement: XmlElement | undefined, guid: string | null): string | null {
  const permalink = guidElement && !/false/i.test(guidElement.attrs.isPermaLink ?? guidElement.attrs.ispermalink ?? "");
  if (permalink && guid && /^https?:/i.test(guid)) return guid;
  return item.attrs["rdf:about"] && /^https?:/i.test(item.attrs["rdf:about"]) ? item.attrs["rdf:about"] : null;
}

function readAtom(root: XmlElement, feedUrl: string): RawFeed {
  const meta = childrenByKey(root);
  const author = meta.get("atom:author")?.[0];
  return {
    type: "atom",
    title: html(textOfFirst(meta, "atom:title")),
    description: html(textOfFirst(meta, "atom:subtitle") ?? textOfFirst(meta, "atom:tagline")),
    link: atomLink(meta, "alternate"),
    images: nonEmpty([resolvedFirst(meta, "atom:logo"), resolvedFirst(meta, "atom:icon"), attr(meta, "itunes:image", "href")]),
    author: author ? atomPerson(author) : textOfFirst(meta, "dc:creator"),
    language: root.attrs["xml:lang"] ?? textOfFirst(meta, "dc:language") ?? null,
    entries: (meta.get("atom:entry") ?? []).map((entry) => readAtomEntry(entry, feedUrl)),
  };
}

function readAtomEntry(entry: XmlElement, feedUrl: string): RawEntry {
  const fields = childrenByKey(entry);
  const summary = fields.get("atom:summary")?.[0];
  const content = fields.get("atom:content")?.find((element) => !element.attrs.src) ?? fields.get("content:encoded")?.[0];
  const plainLink = atomLink(fields, "alternate") ?? atomLink(fields, "self");
  const link = origLink(fields) ?? plainLink;
  const author = fields.get("atom:author")?.[0];
  return {
    id: textOfFirst(fields, "atom:id") ?? absolute(plainLink, feedUrl),
    link,
    title: atomText(fields.get("atom:title")?.[0]),
    summary: atomText(summary),
    content: content ? (keyOf(content) === "atom:content" ? atomText(content) : htmlText(content)) : atomText(summary),
    dates: dates(fields),
    author: (author ? atomPerson(author) : null) ?? textOfFirst(fields, "dc:creator"),
    images: itemImages(fields),
    categories: categories(fields, "atom"),
  };
}

/** Atom text constructs: type="text" is plain text, "xhtml" is inline markup, anything else HTML. */
function atomText(element: XmlElement | undefined): RawText | null {
  if (!element) return null;
  const type = (element.attrs.type ?? element.attrs.mode ?? "").toLowerCase();
  if (type === "xhtml" || type === "application/xhtml+xml" || type === "xml") {
    return withBase(html(innerXml(element)), element);
  }
  if (type === "text" || type === "text/plain") return text(textOf(element));
  return withBase(html(textOf(element)), element);
}

function htmlText(element: XmlElement | undefined): RawText | null {
  return element ? withBase(html(textOf(element)), element) : null;
}

/** HTML keeps the xml:base of its element so its relative URLs resolve as the feed meant. */
function withBase(value: RawText | null, element: XmlElement): RawText | null {
  if (value && element.base) value.base = element.base;
  return value;
}

/** href of the first Atom link with this rel ("alternate" also matches a link without rel). */
function atomLink(fields: Map<string, XmlElement[]>, rel: string): string | null {
  for (const link of fields.get("atom:link") ?? []) {
    const linkRel = (link.attrs.rel ?? "alternate").trim().toLowerCase();
    const href = link.attrs.href;
    if (linkRel === rel && href && href.trim()) return resolved(href, link);
  }
  // Atom feeds sometimes write RSS-style <link>text</link>.
  if (rel === "alternate") {
    const plain = (fields.get("atom:link") ?? []).find((link) => !link.attrs.href && textOf(link).trim());
    if (plain) return resolved(textOf(plain), plain);
  }
  return null;
}

/** The real post behind a redirector: feedburner:origLink (or Pheedo's), or an Atom rel=canonical link. */
function origLink(fields: Map<string, XmlElement[]>): string | null {
  const original = textOfFirst(fields, "feedburner:origlink") ?? textOfFirst(fields, "pheedo:origlink") ?? atomLink(fields, "canonical");
  return original && /^https?:/i.test(original) ? original : null;
}

function dates(fields: Map<string, XmlElement[]>): unknown[] {
  const found: string[] = [];
  for (const key of DATE_KEYS) {
    const value = clean(textOfFirst(fields, key));
    if (value) found.push(value);
  }
  return found;
}

/** Item images in order of preference: explicit image/thumbnail elements, then image enclosures. */
function itemImages(fields: Map<string, XmlElement[]>): string[] {
  const candidates: Array<string | null> = [attr(fields, "itunes:image", "href"), attr(fields, "media:thumbnail", "url")];
  for (const group of [...(fields.get("media:content") ?? []), ...(fields.get("media:group") ?? [])]) {
    const inner = childrenByKey(group);
    candidates.push(attr(inner, "media:thumbnail", "url"));
    if (group.local === "group") for (const content of inner.get("media:content") ?? []) candidates.push(imageEnclosure(content));
  }
  for (const element of fields.get("rss:enclosure") ?? []) candidates.push(imageEnclosure(element));
  for (const element of fields.get("media:content") ?? []) candidates.push(imageEnclosure(element));
  for (const link of fields.get("atom:link") ?? []) {
    if ((link.attrs.rel ?? "").toLowerCase() === "enclosure") candidates.push(imageEnclosure(link));
  }
  return [...new Set(nonEmpty(candidates))];
}

/** The URL of an enclosure (RSS enclosure, media:content, Atom rel=enclosure) that is an image. */
function imageEnclosure(element: XmlElement): string | null {
  const url = element.attrs.url ?? element.attrs.href;
  if (!url) return null;
  const type = element.attrs.type ?? element.attrs.medium ?? "";
  const isImage = /^image\//i.test(type) || type === "image" || /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(url);
  return isImage ? resolved(url, element) : null;
}

function categories(fields: Map<string, XmlElement[]>, format: "rss" | "atom"): string[] {
  const found: string[] = [];
  for (const category of fields.get(`${format}:category`) ?? []) {
    const value = category.attrs.term ?? (format === "rss" ? textOf(category) : undefined);
    if (value) found.push(value.trim());
  }
  if (format === "atom") for (const category of fields.get("rss:category") ?? []) found.push(textOf(category).trim());
  for (const key of ["dc:subject", "media:category"]) for (const element of fields.get(key) ?? []) found.push(textOf(element).trim());
  for (const element of fields.get("itunes:category") ?? []) if (element.attrs.text) found.push(element.attrs.text.trim());
  return found.filter(Boolean);
}

/** An Atom person's name, else email, else URI. */
function atomPerson(person: XmlElement): string | null {
  const fields = childrenByKey(person);
  return textOfFirst(fields, "atom:name") ?? textOfFirst(fields, "atom:email") ?? textOfFirst(fields, "atom:uri");
}

/** The name in RSS e-mail style authors: "ada@example.org (Ada)" or "Ada <ada@example.org>". */
function personName(value: string | null): string | null {
  if (!value) return null;
  const parenthesised = /^\s*\S+@\S+\s*\((.+)\)\s*$/.exec(value);
  if (parenthesised) return parenthesised[1].trim();
  const angled = /^\s*"?([^"<]+?)"?\s*<[^>]+@[^>]+>\s*$/.exec(value);
  if (angled) return angled[1].trim();
  return value;
}

function textOfFirst(fields: Map<string, XmlElement[]>, key: string): string | null {
  const element = fields.get(key)?.[0];
  return element ? clean(textOf(element)) : null;
}

function first(fields: Map<string, XmlElement[]>, key: string): XmlElement | null {
  return fields.get(key)?.[0] ?? null;
}

function attr(fields: Map<string, XmlElement[]>, key: string, name: string): string | null {
  const element = fields.get(key)?.find((candidate) => candidate.attrs[name]?.trim());
  return element ? resolved(element.attrs[name], element) : null;
}

function resolvedFirst(fields: Map<string, XmlElement[]>, key: string): string | null {
  const element = fields.get(key)?.[0];
  const value = element ? clean(textOf(element)) : null;
  return value && element ? resolved(value, element) : null;
}

/** A URL resolved against the element's xml:base; as written when no base is in scope or it does not parse. */
function resolved(value: string, element: XmlElement): string {
  const trimmed = value.trim();
  if (!element.base) return trimmed;
  try {
    return new URL(trimmed, element.base).href;
  } catch {
    return trimmed;
  }
}

/** A URL made absolute against the feed URL; null when it cannot be. */
function absolute(value: string | null, feedUrl: string): string | null {
  if (!value) return null;
  try {
    return new URL(value, feedUrl).href;
  } catch {
    return null;
  }
}

function clean(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function nonEmpty(values: Array<string | null | undefined>): string[] {
  return values.filter((value): value is string => typeof value === "string" && value.trim() !== "");
}
