/** The river as Atom 1.0 (RFC 4287). */
import { create } from "xmlbuilder2";
import { attributeSafe, xmlSafe } from "../xml-writing/safe-text.js";
import type { River, RiverEntry } from "./river.js";

export const ATOM_NS = "http://www.w3.org/2005/Atom";

type XMLBuilder = ReturnType<typeof create>;

const text = (parent: XMLBuilder, name: string, value: string, attributes: Record<string, string> = {}) =>
  parent.ele(name, attributes).txt(xmlSafe(value));

const link = (parent: XMLBuilder, rel: string, href: string, type?: string) =>
  parent.ele("link", { rel, href: attributeSafe(href), ...(type ? { type } : {}) });

/**
 * Every entry names its blog twice: as `author` (the post's author, else the
 * blog) so readers show who wrote it, and as `source` (RFC 4287, 4.2.11) with
 * the blog's feed id, title, feed and site links, so the entry keeps its
 * origin as an aggregated copy should.
 */
export function buildAtom(river: River): string {
  const feed = create({ version: "1.0", encoding: "utf-8" }).ele(ATOM_NS, "feed");
  text(feed, "id", river.atomUrl);
  text(feed, "title", river.title, { type: "text" });
  text(feed, "subtitle", river.description, { type: "text" });
  text(feed, "updated", river.updated.toISOString());
  link(feed, "self", river.atomUrl, "application/atom+xml");
  link(feed, "alternate", river.homePageUrl, "text/html");
  link(feed, "alternate", river.jsonUrl, "application/feed+json");
  link(feed, "alternate", river.rssUrl, "application/rss+xml");
  text(feed, "generator", river.generator.name, { version: river.generator.version });
  for (const entry of river.entries) addEntry(feed, entry);
  return feed.end({ prettyPrint: true });
}

function addEntry(feed: XMLBuilder, entry: RiverEntry): void {
  const element = feed.ele("entry");
  text(element, "id", entry.id);
  text(element, "title", entry.title ?? "", { type: "text" });
  if (entry.url) link(element, "alternate", entry.url, "text/html");
  if (entry.published) text(element, "published", entry.published.toISOString());
  text(element, "updated", entry.updated.toISOString());
  const author = element.ele("author");
  text(author, "name", entry.author ?? entry.blog.title);
  if (!entry.author && entry.blog.siteUrl) text(author, "uri", entry.blog.siteUrl);
  for (const term of entry.categories) element.ele("category", { term: attributeSafe(term) });
  if (entry.summary) text(element, "summary", entry.summary, { type: "text" });
  if (entry.content) text(element, "content", entry.content, { type: "html" });

  const { blog } = entry;
  const source = element.ele("source");
  text(source, "id", blog.feedUrl);
  text(source, "title", blog.title, { type: "text" });
  link(source, "self", blog.feedUrl);
  if (blog.siteUrl) link(source, "alternate", blog.siteUrl, "text/html");
  if (blog.photo) text(source, "icon", blog.photo);
  if (blog.author) text(source.ele("author"), "name", blog.author);
}
