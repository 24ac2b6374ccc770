import { text, type PushLinks, type RawFeed, type RawText } from "../raw.js";
import { atomLink } from "./atom-constructs.js";
import {
  absolute,
  attr,
  childrenByKey,
  clean,
  first,
  htmlText,
  isHttpSchemed,
  nonEmpty,
  resolved,
  textOfFirst,
  type Fields,
} from "./fields.js";
import { textOf, type XmlElement } from "./tree.js";

/**
 * The extension vocabularies RSS and Atom feeds both carry (Dublin Core,
 * Media RSS, iTunes, FeedBurner, Source, Syndication, WebSub, rssCloud),
 * read the same whichever format holds them. Elements are matched by the
 * prefixes of namespaces.ts.
 */

// Dates: the formats' own and Dublin Core's, tried in one order by normalisation.

/** Date elements, published-like before updated-like; within one kind the first valid value wins. */
const DATE_KEYS = [
  "rss:pubdate",
  "atom:published",
  "atom:issued",
  "atom:created",
  "dc:date",
  "dcterms:issued",
  "dcterms:created",
  "dcterms:date",
  "atom:updated",
  "atom:modified",
  "dcterms:modified",
];

/** Every date value in DATE_KEYS order, repeats in document order: normalisation takes the first valid one. */
export function dates(fields: Fields): unknown[] {
  const found: string[] = [];
  for (const key of DATE_KEYS) {
    for (const element of fields.get(key) ?? []) {
      const value = clean(textOf(element));
      if (value) found.push(value);
    }
  }
  return found;
}

// Media RSS (Yahoo's `media:`): text, thumbnails and content.

/** A Media RSS element of the item, or of its media:group or media:content. */
export function mediaField(fields: Fields, key: string): XmlElement | null {
  const own = first(fields, key);
  if (own) return own;
  for (const container of [...(fields.get("media:group") ?? []), ...(fields.get("media:content") ?? [])]) {
    const found = first(childrenByKey(container), key);
    if (found) return found;
  }
  return null;
}

/** Media RSS text: type="html" is HTML, anything else ("plain", the default) plain text. */
export function mediaText(element: XmlElement | null): RawText | null {
  if (!element) return null;
  return (element.attrs.type ?? "").toLowerCase() === "html" ? htmlText(element) : text(textOf(element));
}

// iTunes (podcasts): images and nested categories.

/** An iTunes image: its href, the url attribute some feeds write instead, or the old <itunes:link rel="image">. */
export function itunesImage(fields: Fields): string | null {
  const image = attr(fields, "itunes:image", "href") ?? attr(fields, "itunes:image", "url");
  if (image) return image;
  const link = fields
    .get("itunes:link")
    ?.find((element) => element.attrs.rel?.trim().toLowerCase() === "image" && element.attrs.href?.trim());
  return link ? resolved(link.attrs.href, link) : null;
}

/** iTunes categories nest (<itunes:category text="Technology"><itunes:category text="Gadgets"/>): each level is one. */
function itunesCategories(top: XmlElement): string[] {
  const names: string[] = [];
  const pending = [top];
  for (let element = pending.shift(); element; element = pending.shift()) {
    if (element.attrs.text) names.push(element.attrs.text);
    pending.unshift(...(childrenByKey(element).get("itunes:category") ?? []));
  }
  return names;
}

// What several vocabularies give together: an item's images and categories.

/** Item images in order of preference: explicit image/thumbnail elements, then image enclosures. */
export function itemImages(fields: Fields): string[] {
  const candidates: Array<string | null> = [itunesImage(fields), attr(fields, "media:thumbnail", "url")];
  for (const group of [...(fields.get("media:content") ?? []), ...(fields.get("media:group") ?? [])]) {
    const inner = childrenByKey(group);
    candidates.push(attr(inner, "media:thumbnail", "url"));
    if (group.local === "group")
      for (const content of inner.get("media:content") ?? []) candidates.push(imageEnclosure(content));
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

/** An entry's categories from every vocabulary (category, Dublin Core, Media RSS, iTunes, keyword and tag lists). */
export function categories(entry: XmlElement, fields: Fields, format: "rss" | "atom"): string[] {
  const found: Array<[XmlElement, string | undefined]> = [];
  let kinds = 0; // elements of one kind are already in the feed's order
  const add = (elements: XmlElement[] | undefined, values: (element: XmlElement) => Array<string | undefined>) => {
    if (!elements) return;
    kinds++;
    for (const element of elements) for (const value of values(element)) found.push([element, value]);
  };
  add(fields.get(`${format}:category`), (element) => [
    element.attrs.term ?? (format === "rss" ? textOf(element) : undefined),
  ]);
  if (format === "atom") add(fields.get("rss:category"), (element) => [textOf(element)]);
  for (const key of ["dc:subject", "media:category"]) add(fields.get(key), (element) => [textOf(element)]);
  add(fields.get("itunes:category"), itunesCategories);
  for (const key of ["itunes:keywords", "media:keywords", "rss:tags"])
    add(fields.get(key), (element) => textOf(element).split(","));
  if (kinds > 1) {
    // In the order the feed writes them, whichever element each comes from (the sort is stable; entries have few children).
    const at = (element: XmlElement) => entry.children.indexOf(element);
    found.sort(([a], [b]) => at(a) - at(b));
  }
  return found.map(([, value]) => value?.trim()).filter((value): value is string => Boolean(value));
}

// FeedBurner and Pheedo: the post behind their redirecting links.

/** The real post behind a redirector: feedburner:origLink (or Pheedo's), or an Atom rel=canonical link. */
export function origLink(fields: Fields): string | null {
  const original =
    textOfFirst(fields, "feedburner:origlink") ??
    textOfFirst(fields, "pheedo:origlink") ??
    atomLink(fields, "canonical");
  return isHttpSchemed(original) ? original : null;
}

// Source (and the older blogChannel): the blogroll a feed announces.

/** The OPML blogroll the feed names: `<source:blogroll>` (Source namespace), else the older `<blogChannel:blogRoll>`. */
export function announcedBlogroll(meta: Fields): string | null {
  const element = first(meta, "source:blogroll") ?? first(meta, "blogchannel:blogroll");
  const written = element ? textOf(element).trim() : "";
  return element && written ? resolved(written, element) : null;
}

// RSS `<ttl>` and the Syndication module (`sy:`): how often to read the feed.

/** `<ttl>` (RSS 2.0, in the channel) and sy:updatePeriod/updateFrequency (in the channel, or beside it in RSS 1.0). */
export function refreshHints(meta: Fields, outside?: Fields): RawFeed["refresh"] {
  const sy = (name: string) => textOfFirst(meta, name) ?? (outside ? textOfFirst(outside, name) : null);
  return {
    ttl: textOfFirst(meta, "rss:ttl"),
    updatePeriod: sy("sy:updateperiod"),
    updateFrequency: sy("sy:updatefrequency"),
  };
}

// WebSub (hub and self links) and rssCloud: where the feed pushes.

/**
 * WebSub hubs and self (Atom links, also inside an RSS channel) and an RSS
 * <cloud>, as `{ push }` when the feed announces any, else nothing.
 */
export function pushLinks(meta: Fields, feedUrl: string): { push?: PushLinks } {
  const hubs: string[] = [];
  let self: string | null = null;
  for (const link of meta.get("atom:link") ?? []) {
    const rels = (link.attrs.rel ?? "").toLowerCase().split(/\s+/);
    const href = link.attrs.href?.trim() ? absolute(resolved(link.attrs.href, link), feedUrl) : null;
    if (!href) continue;
    if (rels.includes("hub") && !hubs.includes(href)) hubs.push(href);
    if (rels.includes("self")) self ??= href;
  }
  const cloudElement = first(meta, "rss:cloud");
  const cloud = cloudElement
    ? {
        domain: cloudElement.attrs.domain?.trim() ?? "",
        port: cloudElement.attrs.port?.trim() ?? "",
        path: cloudElement.attrs.path?.trim() ?? "",
        registerProcedure:
          cloudElement.attrs.registerProcedure?.trim() ?? cloudElement.attrs.registerprocedure?.trim() ?? "",
        protocol: cloudElement.attrs.protocol?.trim() ?? "",
      }
    : null;
  return hubs.length > 0 || self || cloud ? { push: { hubs, self, cloud } } : {};
}
