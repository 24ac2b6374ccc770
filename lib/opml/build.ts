/**
 * OPML export: an OPML 2.0 document with one folder outline per category.
 * xmlbuilder2 escapes markup characters; this module removes what XML 1.0
 * cannot carry at all, so the output is always well-formed.
 */
import { create } from "xmlbuilder2";

type XMLBuilder = ReturnType<typeof create>;

/** One feed to export. */
export interface OpmlExportFeed {
  title: string;
  xmlUrl: string;
  htmlUrl?: string | null;
  description?: string | null;
  type?: string | null;
}

/** Feeds sharing a category; `null` (or blank) puts them at the top level. */
export interface OpmlExportGroup {
  category: string | null;
  feeds: OpmlExportFeed[];
}

export interface BuildOpmlInput {
  title: string;
  dateCreated?: Date;
  ownerName?: string;
  groups: OpmlExportGroup[];
}

/**
 * Build a pretty-printed OPML 2.0 document. Each feed outline carries `type`
 * (default "rss"), `text` and `title` (both the feed title), `xmlUrl`, and
 * `htmlUrl`/`description` when known. Groups with a category become a folder
 * outline `<outline text="cat" title="cat">` around their feeds.
 */
export function buildOpml(input: BuildOpmlInput): string {
  const opml = create({ version: "1.0", encoding: "UTF-8" }).ele("opml", { version: "2.0" });
  const head = opml.ele("head");
  head.ele("title").txt(xmlSafe(input.title));
  // OPML 2.0 asks for RFC 822 dates; toUTCString() gives the RFC 1123 form of it.
  if (input.dateCreated) head.ele("dateCreated").txt(input.dateCreated.toUTCString());
  if (input.ownerName) head.ele("ownerName").txt(xmlSafe(input.ownerName));

  const body = opml.ele("body");
  for (const group of input.groups) {
    const category = group.category === null ? "" : attributeSafe(group.category).trim();
    const parent = category === "" ? body : body.ele("outline", { text: category, title: category });
    for (const feed of group.feeds) addFeedOutline(parent, feed);
  }
  return opml.end({ prettyPrint: true });
}

function addFeedOutline(parent: XMLBuilder, feed: OpmlExportFeed): void {
  const xmlUrl = attributeSafe(feed.xmlUrl).trim();
  // `text` is required by OPML 2.0: fall back to the URL rather than write an empty label.
  const title = attributeSafe(feed.title).trim() || xmlUrl;
  const attributes: Record<string, string> = {
    type: attributeSafe(feed.type ?? "").trim() || "rss",
    text: title,
    title,
    xmlUrl,
  };
  const htmlUrl = attributeSafe(feed.htmlUrl ?? "").trim();
  if (htmlUrl) attributes.htmlUrl = htmlUrl;
  const description = attributeSafe(feed.description ?? "").trim();
  if (description) attributes.description = description;
  parent.ele("outline", attributes);
}

/**
 * Text ready for xmlbuilder2: characters outside the XML 1.0 `Char` production
 * (C0 controls, lone surrogates, U+FFFE/U+FFFF) removed, and every `&`
 * pre-escaped. Why the latter: xmlbuilder2 leaves anything shaped like an
 * entity reference (`&nbsp;`, `&#0;`) unescaped, which would turn a title such
 * as "Tom &nbsp; Jerry" into an undefined entity (malformed XML), and
 * "&amp;" into "&". It does not re-escape our `&amp;`, so each `&` survives.
 */
function xmlSafe(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "").replace(/&/g, "&amp;");
}

/**
 * For attribute values: also turn tabs and line breaks into spaces, since a
 * parser would do so anyway (attribute-value normalisation) and xmlbuilder2
 * writes them literally.
 */
function attributeSafe(value: string): string {
  return xmlSafe(value).replace(/[\t\n\r]/g, " ");
}
