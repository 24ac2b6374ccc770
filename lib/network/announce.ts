/**
 * How a site says where its blogroll is: a `Link: <…>; rel="blogroll"`
 * response header, a `<link rel="blogroll">` in its page's head (opml.org's
 * convention, 2024), `<source:blogroll>` in its feed (read by the feed
 * parser), or the well-known path Micro.blog serves. Pure functions.
 */
import type { PageLink } from "../discovery/html-links.js";
import { httpUrl, parseHttpUrl } from "../url/http-url.js";

/** A blogroll a page announces. */
export interface AnnouncedBlogroll {
  url: string;
  title: string | null;
}

/** Link types that may name an OPML blogroll; none at all is accepted too. HTML never is: that is a page about the blogroll. */
const BLOGROLL_TYPES = new Set(["text/xml", "application/xml", "text/x-opml", "application/opml+xml"]);

/** The well-known address of an origin's recommendations (Micro.blog). */
export function wellKnownBlogroll(siteUrl: string): string | null {
  const url = parseHttpUrl(siteUrl);
  return url ? `${url.origin}/.well-known/recommendations.opml` : null;
}

function isBlogrollType(type: string | null): boolean {
  return type === null || BLOGROLL_TYPES.has(type);
}

/** `<link rel="blogroll">` elements of a page's head, in document order, without repeats. */
export function blogrollsOfHead(
  links: readonly Pick<PageLink, "href" | "rel" | "type" | "title">[],
): AnnouncedBlogroll[] {
  const found: AnnouncedBlogroll[] = [];
  for (const link of links) {
    if (!link.rel.includes("blogroll") || !isBlogrollType(link.type)) continue;
    const url = httpUrl(link.href);
    if (url && !found.some((entry) => entry.url === url)) found.push({ url, title: link.title });
  }
  return found;
}

/** One link of a Link header: its target as written and its parameters (names lower-cased). */
interface HeaderLink {
  target: string;
  params: Map<string, string>;
}

/**
 * Reads an RFC 8288 Link header: `<uri>; rel="a b"; type="…", <uri2>; …`.
 * Commas and semicolons inside quoted values do not split; a malformed link
 * is skipped, never guessed at. At most 64 links are read.
 */
export function parseLinkHeader(header: string): HeaderLink[] {
  const links: HeaderLink[] = [];
  let index = 0;
  const length = Math.min(header.length, 16 * 1024);
  while (index < length && links.length < 64) {
    const open = header.indexOf("<", index);
    if (open === -1 || open >= length) break;
    const close = header.indexOf(">", open);
    if (close === -1) break;
    const link: HeaderLink = { target: header.slice(open + 1, close).trim(), params: new Map() };
    index = close + 1;
    // Parameters until the next comma outside quotes.
    while (index < length) {
      while (index < length && /[\s;]/.test(header[index])) index++;
      if (index >= length || header[index] === ",") break;
      const nameMatch = /^[^\s=;,]+/.exec(header.slice(index, index + 64));
      if (!nameMatch) {
        index++;
        continue;
      }
      const name = nameMatch[0].toLowerCase();
      index += nameMatch[0].length;
      while (index < length && header[index] === " ") index++;
      let value = "";
      if (header[index] === "=") {
        index++;
        while (index < length && header[index] === " ") index++;
        if (header[index] === '"') {
          index++;
          while (index < length && header[index] !== '"') {
            if (header[index] === "\\") index++;
            value += header[index] ?? "";
            index++;
          }
          index++;
        } else {
          const bare = /^[^;,]*/.exec(header.slice(index))![0];
          value = bare.trim();
          index += bare.length;
        }
      }
      if (!link.params.has(name)) link.params.set(name, value);
    }
    links.push(link);
    if (header[index] === ",") index++;
  }
  return links;
}

/** Blogrolls a Link header announces (`rel` holding "blogroll", an OPML-ish type or none), resolved against the response's URL. */
export function blogrollsOfLinkHeader(header: string | null, baseUrl: string): AnnouncedBlogroll[] {
  if (!header) return [];
  const found: AnnouncedBlogroll[] = [];
  for (const link of parseLinkHeader(header)) {
    const rel = (link.params.get("rel") ?? "").toLowerCase().split(/\s+/);
    const type = link.params.get("type")?.split(";")[0].trim().toLowerCase() || null;
    if (!rel.includes("blogroll") || !isBlogrollType(type)) continue;
    const url = httpUrl(link.target, baseUrl);
    if (url && !found.some((entry) => entry.url === url))
      found.push({ url, title: link.params.get("title")?.trim() || null });
  }
  return found;
}
