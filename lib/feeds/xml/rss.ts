import { html, type RawEntry, type RawText } from "../raw.js";
import { atomLink, atomText } from "./atom-constructs.js";
import {
  absolute,
  attr,
  childrenByKey,
  clean,
  first,
  guessedText,
  htmlText,
  isHttpSchemed,
  nonEmpty,
  personName,
  resolved,
  resolvedFirst,
  resolvedId,
  textOfFirst,
  withBase,
  type Fields,
  type ReadFeed,
} from "./fields.js";
import { keyOf } from "./namespaces.js";
import { innerXml, textOf, type XmlElement } from "./tree.js";
import {
  announcedBlogroll,
  categories,
  dates,
  itemImages,
  itunesImage,
  mediaField,
  mediaText,
  origLink,
  pushLinks,
  refreshHints,
} from "./vocabularies.js";

/**
 * RSS in all its versions (0.90 and 1.0 as RDF, 0.91 to 2.0) read into a
 * RawFeed: the channel, its items, and what other vocabularies add to them.
 * RSS 2.0 keeps its items in the channel, RSS 0.90 and 1.0 beside it.
 */

/** An RSS document, from its root (`<rss>` or `<rdf:RDF>`). */
export function readRss(root: XmlElement, feedUrl: string): ReadFeed {
  const rootChildren = childrenByKey(root);
  const channel = rootChildren.get("rss:channel")?.[0] ?? null;
  const meta: Fields = channel ? childrenByKey(channel) : new Map();
  // RSS 2.0 puts items in the channel, RSS 0.90/1.0 beside it.
  const items = [...(meta.get("rss:item") ?? []), ...(rootChildren.get("rss:item") ?? [])];
  const image = rootChildren.get("rss:image")?.[0] ?? meta.get("rss:image")?.[0];
  const imageUrl = image ? first(childrenByKey(image), "rss:url") : null;
  return {
    type: "rss",
    title: guessedText(first(meta, "rss:title") ?? first(meta, "dc:title") ?? first(meta, "itunes:title")),
    description: htmlText(
      first(meta, "rss:description") ??
        first(meta, "dc:description") ??
        first(meta, "itunes:subtitle") ??
        first(meta, "itunes:summary") ??
        first(meta, "media:description"),
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
      textOfFirst(meta, "rss:managingeditor") ??
        textOfFirst(meta, "rss:author") ??
        textOfFirst(meta, "dc:creator") ??
        textOfFirst(meta, "dc:author") ??
        textOfFirst(meta, "itunes:author") ??
        textOfFirst(meta, "rss:webmaster"),
    ),
    language: textOfFirst(meta, "rss:language") ?? textOfFirst(meta, "dc:language") ?? root.attrs["xml:lang"] ?? null,
    blogroll: announcedBlogroll(meta),
    refresh: refreshHints(meta, rootChildren),
    entries: items.map((item) => readRssItem(item, feedUrl)),
    elements: items,
    ...pushLinks(meta, feedUrl),
  };
}

/** The channel's <link>, else its Atom rel=alternate link, else its RDF about. */
function rssLink(meta: Fields, channel: XmlElement): string | null {
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
  const description =
    summaryElement ??
    descriptionElement ??
    first(fields, "itunes:subtitle") ??
    first(fields, "itunes:summary") ??
    mediaField(fields, "media:description");
  const summary =
    description && keyOf(description) === "media:description" ? mediaText(description) : htmlText(description);
  return {
    // Without a guid the item is known by its link as written (not the origLink), as feedparser did.
    id:
      (guid && guidElement && isPermalink(guidElement) ? resolvedId(guid, guidElement) : guid) ??
      clean(item.attrs["rdf:about"]) ??
      absolute(plainLink, feedUrl),
    link,
    title:
      guessedText(first(fields, "rss:title") ?? first(fields, "dc:title") ?? first(fields, "itunes:title")) ??
      mediaText(mediaField(fields, "media:title")),
    summary,
    content: rssContent(fields) ?? (descriptionElement && summaryElement ? htmlText(descriptionElement) : summary),
    dates: dates(fields),
    author: personName(
      textOfFirst(fields, "rss:author") ??
        textOfFirst(fields, "dc:creator") ??
        textOfFirst(fields, "dc:author") ??
        textOfFirst(fields, "itunes:author") ??
        textOfFirst(fields, "dc:publisher"),
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
function rssContent(fields: Fields): RawText | null {
  const encoded = first(fields, "content:encoded");
  if (encoded) return htmlText(encoded);
  const atom = first(fields, "atom:content");
  if (atom) return atomText(atom);
  const body = first(fields, "xhtml:body") ?? first(fields, "rss:body");
  if (body) return withBase(html(innerXml(body)), body);
  return htmlText(first(fields, "rss:fullitem"));
}

/** An RSS item's <link>, else its Atom rel=alternate link. */
function rssPlainLink(fields: Fields): string | null {
  const link = fields.get("rss:link")?.find((element) => textOf(element).trim());
  return link ? resolved(textOf(link), link) : atomLink(fields, "alternate");
}

/** RSS 2.0: a guid is a permalink unless isPermaLink says false. */
function isPermalink(guid: XmlElement): boolean {
  return !/false/i.test(guid.attrs.isPermaLink ?? guid.attrs.ispermalink ?? "");
}

/** A guid that is a permalink (isPermaLink not false, an http(s) URL), else an http(s) rdf:about. */
function permalinkGuid(item: XmlElement, guidElement: XmlElement | undefined, guid: string | null): string | null {
  if (guidElement && isPermalink(guidElement) && isHttpSchemed(guid)) return guid;
  const about = item.attrs["rdf:about"];
  return isHttpSchemed(about) ? about : null;
}
