/**
 * OPML export: an OPML 2.0 document with one folder outline per category.
 * xmlbuilder2 escapes markup characters; this module removes what XML 1.0
 * cannot carry at all, so the output is always well-formed.
 */
import { create } from "xmlbuilder2";
import { attributeSafe, xmlSafe } from "../xml-writing/safe-text.js";

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

/** A link in the head, as an `atom:link` (OPML allows namespaced elements; readers ignore what they do not know). */
export interface OpmlHeadLink {
  rel: string;
  type: string;
  href: string;
  title?: string;
}

export interface BuildOpmlInput {
  title: string;
  dateCreated?: Date;
  dateModified?: Date;
  ownerName?: string;
  /** The owner's web page (OPML 2.0: where a reader can find how to reach them). */
  ownerId?: string;
  links?: OpmlHeadLink[];
  groups: OpmlExportGroup[];
}

const ATOM_NS = "http://www.w3.org/2005/Atom";
/** Where the format is described (OPML 2.0's `docs` element). */
const OPML_DOCS = "http://opml.org/spec2.opml";

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
  if (input.dateModified) head.ele("dateModified").txt(input.dateModified.toUTCString());
  if (input.ownerName) head.ele("ownerName").txt(xmlSafe(input.ownerName));
  if (input.ownerId) head.ele("ownerId").txt(xmlSafe(input.ownerId));
  head.ele("docs").txt(OPML_DOCS);
  for (const link of input.links ?? []) {
    const attributes: Record<string, string> = {
      rel: attributeSafe(link.rel),
      type: attributeSafe(link.type),
      href: attributeSafe(link.href),
    };
    if (link.title) attributes.title = attributeSafe(link.title);
    head.ele(ATOM_NS, "atom:link", attributes);
  }

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
