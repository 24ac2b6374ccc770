import { FeedParseError } from "../errors.js";
import { html, text, textOrHtml, type PushLinks, type RawEntry, type RawFeed, type RawText } from "../raw.js";
import { findRootElement } from "../sniff.js";
import { declaredEntities } from "./doctype.js";
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
  "http://source.scripting.com/": "source",
  "http://backend.userland.com/blogchannelmodule": "blogchannel",
  "http://purl.org/rss/1.0/modules/syndication/": "sy",
};

const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";
const RSS_NAMESPACE = "";

/** Characters XML 1.0 forbids: C0 controls except tab, LF and CR, and U+FFFE/U+FFFF. */
const ILLEGAL_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Date elements, published-like before updated-like; within one kind the first valid value wins. */
const DATE_KEYS = [
  "rss:pubdate", "atom:published", "atom:issued", "atom:created", "dc:date", "dcterms:issued", "dcterms:created",
  "dcterms:date", "atom:updated", "atom:modified", "dcterms:modified",
];

/**
 * "prefix:local" of an element, by namespace; unknown namespaces keep their
 * URI so they never match. Namespace URIs are matched regardless of case,
 * as feeds write them ("http://www.itunes.com/DTDs/Podcast-1.0.dtd").
 */
function keyOf(element: XmlElement): string {
  return `${NAMESPACES[element.ns] ?? NAMESPACES[element.ns.toLowerCase()] ?? element.ns}:${element.local}`;
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
export function readXmlFeed(xml: string, feedUrl: string, contentBase: string | null = null): RawFeed {
  const start = findRootElement(xml);
  if (!start) throw new FeedParseError("Not an RSS or Atom feed: no root element");
  // Hand-written feeds often leave the Atom namespace off <feed>: read them as Atom all the same.
  const bareFeed = start.name === "feed" && !/\sxmlns\s*=/.test(start.tag);
  // Reading from the root element on leaves any DOCTYPE (and its entity declarations) unread.
  const root = parseXmlTree(xml.slice(start.start).replace(ILLEGAL_XML_CHARS, ""), feedUrl, bareFeed ? ATOM_NAMESPACE : "", {
    entities: declaredEntities(xml.slice(0, start.start), xml.length),
    base: contentBase,
  });
  if (root?.local === "feed") return withoutBrokenEntries(readAtom(inVocabulary(root, "atom", ATOM_NAMESPACE), feedUrl), root);
  if (root?.local === "rss") return withoutBrokenEntries(readRss(inVocabulary(root, "rss", RSS_NAMESPACE), feedUrl), root);
  if (root?.local === "rdf") return withoutBrokenEntries(readRss(root, feedUrl), root);
  throw new FeedParseError(`Not an RSS or Atom feed: root <${start.name}>`);
}

/**
 * What is whole in a structurally broken document is kept; an entry that is
 * not (its end tag, or one of its fields', missing: fields would run
 * together) is dropped, and the feed says what went wrong. A break inside a
 * field's markup (unclosed HTML in a description) harms nothing and is not
 * reported.
 */
function withoutBrokenEntries(raw: RawFeed & { elements: XmlElement[] }, root: XmlElement): RawFeed {
  const { elements, ...feed } = raw;
  const entries = feed.entries.filter((_, index) => !isBroken(elements[index]));
  const dropped = feed.entries.length - entries.length;
  const problems: string[] = [];
  if (root.broken) problems.push("the document ends before its closing tags (cut short?)");
  else if (root.children.some((child) => typeof child !== "string" && child.broken && child.local === "channel")) {
    problems.push("the channel's end tag is missing");
  }
  if (dropped > 0) problems.push(`${dropped} broken ${dropped === 1 ? "item was" : "items were"} left out`);
  return problems.length > 0 ? { ...feed, entries, problem: `Malformed XML: ${problems.join("; ")}` } : { ...feed, entries };
}

function isBroken(entry: XmlElement): boolean {
  return entry.broken === true || entry.children.some((child) => typeof child !== "string" && child.broken === true);
}

/**
 * A root in a namespace this reader does not know (Atom's pre-1.0 drafts
 * used several, "http://purl.org/pie/", "http://example.com/newformat#", and
 * RSS has "http://backend.userland.com/rss2.1") is read as the format its
 * name says: its namespace is renamed to the known one throughout.
 */
function inVocabulary(root: XmlElement, prefix: string, namespace: string): XmlElement {
  const known = NAMESPACES[root.ns] ?? NAMESPACES[root.ns.toLowerCase()];
  if (known === prefix) return root;
  // A root in another known vocabulary is left alone; no namespace (a bare <feed>) or an unknown one is renamed.
  if (known !== undefined && root.ns !== "") return root;
  const from = root.ns;
  const pending: XmlElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    if (element.ns === from) element.ns = namespace;
    for (const child of element.children) if (typeof child !== "string") pending.push(child);
  }
  return root;
}

function readRss(root: XmlElement, feedUrl: string): RawFeed & { elements: XmlElement[] } {
  const rootChildren = childrenByKey(root);
  const channel = rootChildren.get("rss:channel")?.[0] ?? null;
  const meta = channel ? childrenByKey(channel) : new Map<string, XmlElement[]>();
  // RSS 2.0 puts items in the channel, RSS 0.90/1.0 beside it.
  const items = [...(meta.get("rss:item") ?? []), ...(rootChildren.get("rss:item") ?? [])];
  const image = rootChildren.get("rss:image")?.[0] ?? meta.get("rss:image")?.[0];
  const imageUrl = image ? first(childrenByKey(image), "rss:url") : null;
  return {
    type: "rss",
    title: guessedText(first(meta, "rss:title") ?? first(meta, "dc:title") ?? first(meta, "itunes:title")),
    description: htmlText(
      first(meta, "rss:description") ?? first(meta, "dc:description") ?? first(meta, "itunes:subtitle") ??
        first(meta, "itunes:summary") ?? first(meta, "media:description"),
    ),
    link: channel ? rssLink(meta, channel) : null,
    images: nonEmpty([
      imageUrl ? resolved(textOf(imageUrl), imageUrl) : null,
      itunesImage(meta),
      resolvedFirst(meta, "atom:logo"),
      attr(meta, "atom:icon", "href") ?? resolvedFirst(meta, "atom:icon"),
      attr(meta, "media:thumbnail", "url"),
    ]),
    author: personName(
      textOfFirst(meta, "rss:managingeditor") ?? textOfFirst(meta, "rss:author") ?? textOfFirst(meta, "dc:creator") ??
        textOfFirst(meta, "dc:author") ??
        textOfFirst(meta, "itunes:author") ?? textOfFirst(meta, "rss:webmaster"),
    ),
    language: textOfFirst(meta, "rss:language") ?? textOfFirst(meta, "dc:language") ?? root.attrs["xml:lang"] ?? null,
    blogroll: announcedBlogroll(meta),
    refresh: refreshHints(meta, rootChildren),
    entries: items.map((item) => readRssItem(item, feedUrl)),
    elements: items,
    ...pushLinks(meta, feedUrl),
  };
}

/** The OPML blogroll the feed names: `<source:blogroll>` (Source namespace), else the older `<blogChannel:blogRoll>`. */
function announcedBlogroll(meta: Map<string, XmlElement[]>): string | null {
  const element = first(meta, "source:blogroll") ?? first(meta, "blogchannel:blogroll");
  const written = element ? textOf(element).trim() : "";
  return element && written ? resolved(written, element) : null;
}

/** `<ttl>` (RSS 2.0, in the channel) and sy:updatePeriod/updateFrequency (in the channel, or beside it in RSS 1.0). */
function refreshHints(meta: Map<string, XmlElement[]>, outside?: Map<string, XmlElement[]>): RawFeed["refresh"] {
  const sy = (name: string) => textOfFirst(meta, name) ?? (outside ? textOfFirst(outside, name) : null);
  return { ttl: textOfFirst(meta, "rss:ttl"), updatePeriod: sy("sy:updateperiod"), updateFrequency: sy("sy:updatefrequency") };
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
  const descriptionElement = first(fields, "rss:description") ?? first(fields, "dc:description");
  const summaryElement = first(fields, "rss:summary");
  // A <summary> is the summary; beside a description, the description is then the content.
  const description = summaryElement ?? descriptionElement ??
    first(fields, "itunes:subtitle") ?? first(fields, "itunes:summary") ?? mediaField(fields, "media:description");
  const summary = description && keyOf(description) === "media:description" ? mediaText(description) : htmlText(description);
  return {
    // Without a guid the item is known by its link as written (not the origLink), as feedparser did.
    id: (guid && guidElement && isPermalink(guidElement) ? resolvedId(guid, guidElement) : guid) ??
      clean(item.attrs["rdf:about"]) ?? absolute(plainLink, feedUrl),
    link,
    title: guessedText(first(fields, "rss:title") ?? first(fields, "dc:title") ?? first(fields, "itunes:title")) ??
      mediaText(mediaField(fields, "media:title")),
    summary,
    content: rssContent(fields) ?? (descriptionElement && summaryElement ? htmlText(descriptionElement) : summary),
    dates: dates(fields),
    author: personName(
      textOfFirst(fields, "rss:author") ?? textOfFirst(fields, "dc:creator") ?? textOfFirst(fields, "dc:author") ??
        textOfFirst(fields, "itunes:author") ?? textOfFirst(fields, "dc:publisher"),
    ),
    images: itemImages(fields),
    categories: categories(item, fields, "rss"),
  };
}

/**
 * An RSS item's full content: content:encoded, an Atom content element, an
 * XHTML <body> (namespaced or not) holding inline markup, or <fullitem>
 * holding escaped HTML. Null when it has none (its description stands in).
 */
function rssContent(fields: Map<string, XmlElement[]>): RawText | null {
  const encoded = first(fields, "content:encoded");
  if (encoded) return htmlText(encoded);
  const atom = first(fields, "atom:content");
  if (atom) return atomText(atom);
  const body = first(fields, "xhtml:body") ?? first(fields, "rss:body");
  if (body) return withBase(html(innerXml(body)), body);
  return htmlText(first(fields, "rss:fullitem"));
}

/** A Media RSS element of the item, or of its media:group or media:content. */
function mediaField(fields: Map<string, XmlElement[]>, key: string): XmlElement | null {
  const own = first(fields, key);
  if (own) return own;
  for (const container of [...(fields.get("media:group") ?? []), ...(fields.get("media:content") ?? [])]) {
    const found = first(childrenByKey(container), key);
    if (found) return found;
  }
  return null;
}

/** Media RSS text: type="html" is HTML, anything else ("plain", the default) plain text. */
function mediaText(element: XmlElement | null): RawText | null {
  if (!element) return null;
  return (element.attrs.type ?? "").toLowerCase() === "html" ? htmlText(element) : text(textOf(element));
}

/** An RSS item's <link>, else its Atom rel=alternate link. */
function rssPlainLink(fields: Map<string, XmlElement[]>): string | null {
  const link = fields.get("rss:link")?.find((element) => textOf(element).trim());
  return link ? resolved(textOf(link), link) : atomLink(fields, "alternate");
}

/** RSS 2.0: a guid is a permalink unless isPermaLink says false. */
function isPermalink(guid: XmlElement): boolean {
  return !/false/i.test(guid.attrs.isPermaLink ?? guid.attrs.ispermalink ?? "");
}

/** A guid that is a permalink (isPermaLink not false, an http(s) URL), else an http(s) rdf:about. */
function permalinkGuid(item: XmlElement, guidElement: XmlElement | undefined, guid: string | null): string | null {
  if (guidElement && isPermalink(guidElement) && guid && /^https?:/i.test(guid)) return guid;
  return item.attrs["rdf:about"] && /^https?:/i.test(item.attrs["rdf:about"]) ? item.attrs["rdf:about"] : null;
}

function readAtom(root: XmlElement, feedUrl: string): RawFeed & { elements: XmlElement[] } {
  const meta = childrenByKey(root);
  // Hand-written feeds sometimes write their entries as RSS <item>s: read those when there is no <entry>.
  const entries = meta.get("atom:entry") ?? meta.get("atom:item") ?? [];
  const author = meta.get("atom:author")?.[0];
  return {
    type: "atom",
    title: atomText(first(meta, "atom:title")) ?? guessedText(first(meta, "dc:title")),
    description:
      atomText(first(meta, "atom:subtitle") ?? first(meta, "atom:tagline")) ??
      htmlText(first(meta, "dc:description") ?? first(meta, "itunes:subtitle") ?? first(meta, "itunes:summary")),
    link: atomLink(meta, "alternate"),
    images: nonEmpty([resolvedFirst(meta, "atom:logo"), resolvedFirst(meta, "atom:icon"), itunesImage(meta)]),
    author: (author ? atomPerson(author) : null) ??
      personName(textOfFirst(meta, "dc:creator") ?? textOfFirst(meta, "dc:author") ?? textOfFirst(meta, "itunes:author")),
    language: root.attrs["xml:lang"] ?? textOfFirst(meta, "dc:language") ?? null,
    blogroll: announcedBlogroll(meta),
    refresh: refreshHints(meta),
    entries: entries.map((entry) => readAtomEntry(entry, feedUrl)),
    elements: entries,
    ...pushLinks(meta, feedUrl),
  };
}

/**
 * WebSub hubs and self (Atom links, also inside an RSS channel) and an RSS
 * <cloud>, as `{ push }` when the feed announces any, else nothing.
 */
function pushLinks(meta: Map<string, XmlElement[]>, feedUrl: string): { push?: PushLinks } {
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
        registerProcedure: cloudElement.attrs.registerProcedure?.trim() ?? cloudElement.attrs.registerprocedure?.trim() ?? "",
        protocol: cloudElement.attrs.protocol?.trim() ?? "",
      }
    : null;
  return hubs.length > 0 || self || cloud ? { push: { hubs, self, cloud } } : {};
}

function readAtomEntry(entry: XmlElement, feedUrl: string): RawEntry {
  const fields = childrenByKey(entry);
  const summary =
    atomText(first(fields, "atom:summary")) ??
    htmlText(first(fields, "dc:description") ?? first(fields, "itunes:subtitle") ?? first(fields, "itunes:summary")) ??
    mediaText(mediaField(fields, "media:description"));
  const content = fields.get("atom:content")?.find((element) => !element.attrs.src) ?? fields.get("content:encoded")?.[0];
  const plainLink = atomLink(fields, "alternate") ?? atomLink(fields, "self");
  const link = origLink(fields) ?? plainLink;
  const author = fields.get("atom:author")?.[0];
  const idElement = first(fields, "atom:id");
  const id = idElement ? clean(textOf(idElement)) : null;
  return {
    id: (id && idElement ? resolvedId(id, idElement) : null) ?? absolute(plainLink, feedUrl),
    link,
    title: atomText(first(fields, "atom:title")) ?? guessedText(first(fields, "dc:title")) ?? mediaText(mediaField(fields, "media:title")),
    summary,
    content: content ? (keyOf(content) === "atom:content" ? atomText(content) : htmlText(content)) : summary,
    dates: dates(fields),
    author: (author ? atomPerson(author) : null) ??
      personName(textOfFirst(fields, "dc:creator") ?? textOfFirst(fields, "dc:author") ?? textOfFirst(fields, "itunes:author")),
    images: itemImages(fields),
    categories: categories(entry, fields, "atom"),
  };
}

/**
 * Atom text constructs and content, as RFC 4287 defines them: "text" (the
 * default) is plain text, so escaped markup in it stays text; "html" is
 * escaped HTML; "xhtml" inline markup. Other media types are base64 unless
 * textual (text/*, XML). Atom 0.3 spelled these as MIME types with a `mode`
 * of "xml", "escaped" or "base64".
 */
function atomText(element: XmlElement | null | undefined): RawText | null {
  if (!element) return null;
  const type = (element.attrs.type ?? "").trim().toLowerCase();
  const mode = (element.attrs.mode ?? "").trim().toLowerCase();
  if (mode === "base64" || (type.includes("/") && !/^text\/|[/+]xml$/.test(type))) {
    const decoded = decodeBase64Text(textOf(element));
    return type === "text/plain" ? text(decoded) : withBase(html(decoded), element);
  }
  if (type === "xhtml" || type === "application/xhtml+xml" || (mode === "xml" && type !== "" && type !== "text/plain")) {
    return withBase(html(innerXml(element)), element);
  }
  if (type === "html" || type === "text/html" || mode === "escaped") return withBase(html(textOf(element)), element);
  return text(textOf(element));
}

/** Base64 content as UTF-8 text; null when it is not text (an image, say). */
function decodeBase64Text(value: string): string | null {
  const bytes = Buffer.from(value.replace(/\s+/g, ""), "base64");
  const decoded = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return decoded && !/[\uFFFD\u0000]/.test(decoded) ? decoded : null;
}

function htmlText(element: XmlElement | null | undefined): RawText | null {
  return element ? withBase(html(textOf(element)), element) : null;
}

/**
 * RSS says nothing of whether a title is HTML: it is read as HTML only when
 * it looks like HTML (a closing tag or an entity, and only HTML elements),
 * so "History of the <blink> tag" keeps its words.
 */
function guessedText(element: XmlElement | null | undefined): RawText | null {
  return element ? withBase(textOrHtml(textOf(element)), element) : null;
}

/** HTML keeps the xml:base of its element so its relative URLs resolve as the feed meant. */
function withBase(value: RawText | null, element: XmlElement): RawText | null {
  if (value && element.base) value.base = element.base;
  return value;
}

/**
 * href of the first Atom link with this rel ("alternate" also matches a link
 * without rel), so an enclosure, related or self link never stands for the
 * post whatever their order. Atom feeds sometimes write RSS-style
 * <link>text</link>: such a link counts when its rel matches.
 */
function atomLink(fields: Map<string, XmlElement[]>, rel: string): string | null {
  let plain: XmlElement | null = null;
  for (const link of fields.get("atom:link") ?? []) {
    if ((link.attrs.rel ?? "alternate").trim().toLowerCase() !== rel) continue;
    const href = link.attrs.href;
    if (href && href.trim()) return resolved(href, link);
    if (!plain && href === undefined && textOf(link).trim()) plain = link;
  }
  return plain ? resolved(textOf(plain), plain) : null;
}

/** The real post behind a redirector: feedburner:origLink (or Pheedo's), or an Atom rel=canonical link. */
function origLink(fields: Map<string, XmlElement[]>): string | null {
  const original = textOfFirst(fields, "feedburner:origlink") ?? textOfFirst(fields, "pheedo:origlink") ?? atomLink(fields, "canonical");
  return original && /^https?:/i.test(original) ? original : null;
}

/** Every date value in DATE_KEYS order, repeats in document order: normalisation takes the first valid one. */
function dates(fields: Map<string, XmlElement[]>): unknown[] {
  const found: string[] = [];
  for (const key of DATE_KEYS) {
    for (const element of fields.get(key) ?? []) {
      const value = clean(textOf(element));
      if (value) found.push(value);
    }
  }
  return found;
}

/** Item images in order of preference: explicit image/thumbnail elements, then image enclosures. */
function itemImages(fields: Map<string, XmlElement[]>): string[] {
  const candidates: Array<string | null> = [itunesImage(fields), attr(fields, "media:thumbnail", "url")];
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

/** An entry's categories from every vocabulary (category, Dublin Core, Media RSS, iTunes, keyword and tag lists). */
function categories(entry: XmlElement, fields: Map<string, XmlElement[]>, format: "rss" | "atom"): string[] {
  const found: Array<[XmlElement, string | undefined]> = [];
  let kinds = 0; // elements of one kind are already in the feed's order
  const add = (elements: XmlElement[] | undefined, values: (element: XmlElement) => Array<string | undefined>) => {
    if (!elements) return;
    kinds++;
    for (const element of elements) for (const value of values(element)) found.push([element, value]);
  };
  add(fields.get(`${format}:category`), (element) => [element.attrs.term ?? (format === "rss" ? textOf(element) : undefined)]);
  if (format === "atom") add(fields.get("rss:category"), (element) => [textOf(element)]);
  for (const key of ["dc:subject", "media:category"]) add(fields.get(key), (element) => [textOf(element)]);
  add(fields.get("itunes:category"), itunesCategories);
  for (const key of ["itunes:keywords", "media:keywords", "rss:tags"]) add(fields.get(key), (element) => textOf(element).split(","));
  if (kinds > 1) {
    // In the order the feed writes them, whichever element each comes from (the sort is stable; entries have few children).
    const at = (element: XmlElement) => entry.children.indexOf(element);
    found.sort(([a], [b]) => at(a) - at(b));
  }
  return found.map(([, value]) => value?.trim()).filter((value): value is string => Boolean(value));
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

/** An iTunes image: its href, the url attribute some feeds write instead, or the old <itunes:link rel="image">. */
function itunesImage(fields: Map<string, XmlElement[]>): string | null {
  const image = attr(fields, "itunes:image", "href") ?? attr(fields, "itunes:image", "url");
  if (image) return image;
  const link = fields.get("itunes:link")?.find((element) => element.attrs.rel?.trim().toLowerCase() === "image" && element.attrs.href?.trim());
  return link ? resolved(link.attrs.href, link) : null;
}

/** An Atom person's name, else email, else URI; a bare text person (Atom 0.3 habit) by personName. */
function atomPerson(person: XmlElement): string | null {
  const fields = childrenByKey(person);
  return textOfFirst(fields, "atom:name") ?? textOfFirst(fields, "atom:email") ?? textOfFirst(fields, "atom:uri") ??
    personName(clean(textOf(person)));
}

/**
 * The name in e-mail style authors: "ada@example.org (Ada)", "Ada
 * (ada@example.org)" or "Ada <ada@example.org>"; a bare address stays.
 */
function personName(value: string | null): string | null {
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

/**
 * An id (Atom id, RSS guid) resolved against the xml:base in scope, as the
 * spec reads a relative IRI there; ids with a scheme (tag:, urn:, http:) and
 * ids outside any xml:base stay as written.
 */
function resolvedId(value: string, element: XmlElement): string {
  if (!element.base || /^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  try {
    return new URL(value, element.base).href;
  } catch {
    return value;
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
