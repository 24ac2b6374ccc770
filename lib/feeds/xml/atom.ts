import type { RawEntry } from "../raw.js";
import { atomLink, atomPerson, atomText } from "./atom-constructs.js";
import {
  absolute,
  childrenByKey,
  clean,
  first,
  guessedText,
  htmlText,
  nonEmpty,
  personName,
  resolvedFirst,
  resolvedId,
  textOfFirst,
  type ReadFeed,
} from "./fields.js";
import { keyOf } from "./namespaces.js";
import { textOf, type XmlElement } from "./tree.js";
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
 * Atom 1.0 (RFC 4287) and its 0.3 draft read into a RawFeed: the feed, its
 * entries, and what other vocabularies add to them.
 */

/** An Atom document, from its `<feed>` root. */
export function readAtom(root: XmlElement, feedUrl: string): ReadFeed {
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
    author:
      (author ? atomPerson(author) : null) ??
      personName(
        textOfFirst(meta, "dc:creator") ?? textOfFirst(meta, "dc:author") ?? textOfFirst(meta, "itunes:author"),
      ),
    language: root.attrs["xml:lang"] ?? textOfFirst(meta, "dc:language") ?? null,
    blogroll: announcedBlogroll(meta),
    refresh: refreshHints(meta),
    entries: entries.map((entry) => readAtomEntry(entry, feedUrl)),
    elements: entries,
    ...pushLinks(meta, feedUrl),
  };
}

function readAtomEntry(entry: XmlElement, feedUrl: string): RawEntry {
  const fields = childrenByKey(entry);
  const summary =
    atomText(first(fields, "atom:summary")) ??
    htmlText(first(fields, "dc:description") ?? first(fields, "itunes:subtitle") ?? first(fields, "itunes:summary")) ??
    mediaText(mediaField(fields, "media:description"));
  const content =
    fields.get("atom:content")?.find((element) => !element.attrs.src) ?? fields.get("content:encoded")?.[0];
  const plainLink = atomLink(fields, "alternate") ?? atomLink(fields, "self");
  const link = origLink(fields) ?? plainLink;
  const author = fields.get("atom:author")?.[0];
  const idElement = first(fields, "atom:id");
  const id = idElement ? clean(textOf(idElement)) : null;
  return {
    id: (id && idElement ? resolvedId(id, idElement) : null) ?? absolute(plainLink, feedUrl),
    link,
    title:
      atomText(first(fields, "atom:title")) ??
      guessedText(first(fields, "dc:title")) ??
      mediaText(mediaField(fields, "media:title")),
    summary,
    content: content ? (keyOf(content) === "atom:content" ? atomText(content) : htmlText(content)) : summary,
    dates: dates(fields),
    author:
      (author ? atomPerson(author) : null) ??
      personName(
        textOfFirst(fields, "dc:creator") ?? textOfFirst(fields, "dc:author") ?? textOfFirst(fields, "itunes:author"),
      ),
    images: itemImages(fields),
    categories: categories(entry, fields, "atom"),
  };
}
