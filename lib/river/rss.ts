/** The river as RSS 2.0 (https://www.rssboard.org/rss-specification), naming the blogroll with `source:blogroll`. */
import { create } from "xmlbuilder2";
import { attributeSafe, xmlSafe } from "../xml-writing/safe-text.js";
import { ATOM_NS } from "./atom.js";
import type { River, RiverEntry } from "./river.js";

/** Dave Winer's Source namespace: `source:blogroll` is the address of the feed author's blogroll (OPML). */
export const SOURCE_NS = "http://source.scripting.com/";
export const DC_NS = "http://purl.org/dc/elements/1.1/";
const RSS_DOCS = "https://www.rssboard.org/rss-specification";

type XMLBuilder = ReturnType<typeof create>;

const text = (parent: XMLBuilder, name: string, value: string, attributes: Record<string, string> = {}) =>
  parent.ele(name, attributes).txt(xmlSafe(value));

/** Plain text as HTML (RSS descriptions are read as HTML). */
const escapeHtml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The channel names its own address (`atom:link rel="self"`) and the OPML of
 * the same blogs (`source:blogroll`). Each item names the blog it comes from
 * in RSS's own `<source url>`, its author (the post's, else the blog) in
 * `dc:creator` (RSS `author` must be an e-mail address), and carries a
 * `guid` that is never a permalink claim (the rivers' entry id, a name-based UUID).
 */
export function buildRss(river: River): string {
  const rss = create({ version: "1.0", encoding: "utf-8" }).ele("rss", {
    version: "2.0",
    "xmlns:atom": ATOM_NS,
    "xmlns:dc": DC_NS,
    "xmlns:source": SOURCE_NS,
  });
  const channel = rss.ele("channel");
  text(channel, "title", river.title);
  text(channel, "link", river.homePageUrl);
  text(channel, "description", river.description);
  channel.ele(ATOM_NS, "atom:link", { rel: "self", type: "application/rss+xml", href: attributeSafe(river.rssUrl) });
  text(channel, "source:blogroll", river.blogrollUrl);
  // An empty river has no date to give (its `updated` is the epoch, a placeholder).
  if (river.entries.length > 0) text(channel, "lastBuildDate", river.updated.toUTCString());
  text(channel, "generator", `${river.generator.name} ${river.generator.version}`);
  text(channel, "docs", RSS_DOCS);
  for (const entry of river.entries) addItem(channel, entry);
  return rss.end({ prettyPrint: true });
}

function addItem(channel: XMLBuilder, entry: RiverEntry): void {
  const item = channel.ele("item");
  if (entry.title) text(item, "title", entry.title);
  if (entry.url) text(item, "link", entry.url);
  const description = entry.content ?? (entry.summary ? escapeHtml(entry.summary) : null);
  // RSS wants a title or a description: a post with neither gets an empty description.
  if (description || !entry.title) text(item, "description", description ?? "");
  text(item, "dc:creator", entry.author ?? entry.blog.title);
  for (const term of entry.categories) text(item, "category", term);
  text(item, "guid", entry.id, { isPermaLink: "false" });
  if (entry.published) text(item, "pubDate", entry.published.toUTCString());
  text(item, "source", entry.blog.title, { url: attributeSafe(entry.blog.feedUrl) });
}
