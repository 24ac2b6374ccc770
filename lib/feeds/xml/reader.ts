import { FeedParseError } from "../errors.js";
import type { RawFeed } from "../raw.js";
import { findRootElement } from "../sniff.js";
import { readAtom } from "./atom.js";
import { declaredEntities } from "./doctype.js";
import type { ReadFeed } from "./fields.js";
import { ATOM_NAMESPACE, inVocabulary, RSS_NAMESPACE } from "./namespaces.js";
import { readRss } from "./rss.js";
import { parseXmlTree, type XmlElement } from "./tree.js";

/** Characters XML 1.0 forbids: C0 controls except tab, LF and CR, and U+FFFE/U+FFFF. */
const ILLEGAL_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

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
  const root = parseXmlTree(
    xml.slice(start.start).replace(ILLEGAL_XML_CHARS, ""),
    feedUrl,
    bareFeed ? ATOM_NAMESPACE : "",
    {
      entities: declaredEntities(xml.slice(0, start.start), xml.length),
      base: contentBase,
    },
  );
  if (root?.local === "feed")
    return withoutBrokenEntries(readAtom(inVocabulary(root, "atom", ATOM_NAMESPACE), feedUrl), root);
  if (root?.local === "rss")
    return withoutBrokenEntries(readRss(inVocabulary(root, "rss", RSS_NAMESPACE), feedUrl), root);
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
function withoutBrokenEntries(raw: ReadFeed, root: XmlElement): RawFeed {
  const { elements, ...feed } = raw;
  const entries = feed.entries.filter((_, index) => !isBroken(elements[index]));
  const dropped = feed.entries.length - entries.length;
  const problems: string[] = [];
  if (root.broken) problems.push("the document ends before its closing tags (cut short?)");
  else if (root.children.some((child) => typeof child !== "string" && child.broken && child.local === "channel")) {
    problems.push("the channel's end tag is missing");
  }
  if (dropped > 0) problems.push(`${dropped} broken ${dropped === 1 ? "item was" : "items were"} left out`);
  return problems.length > 0
    ? { ...feed, entries, problem: `Malformed XML: ${problems.join("; ")}` }
    : { ...feed, entries };
}

function isBroken(entry: XmlElement): boolean {
  return entry.broken === true || entry.children.some((child) => typeof child !== "string" && child.broken === true);
}
