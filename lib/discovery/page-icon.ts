import { Parser } from "htmlparser2";
import { httpUrl, parseHttpUrl } from "../url/http-url.js";

/** A `<link>` that may name an icon, its href already absolute. */
export interface IconLink {
  href: string;
  /** Lower-cased rel tokens. */
  rel: string[];
  sizes: string | null;
}

/** A `<link>` of a page's head, as the icon lookup reads it (icons, and blogroll announcements). */
export interface HeadLink extends IconLink {
  /** Lower-cased MIME type without parameters, or null. */
  type: string | null;
  title: string | null;
}

/** Elements that may stand in a document's head: any other start tag begins the body, as in browsers. */
const HEAD_ELEMENTS = new Set([
  "html",
  "head",
  "title",
  "base",
  "link",
  "meta",
  "style",
  "script",
  "noscript",
  "template",
]);
/** Open elements beyond this mean a hostile page, not a head (html > head > noscript > … is a handful). */
const MAX_DEPTH = 16;

/**
 * The best icon among `links`: `apple-touch-icon` first (the larger touch
 * icons look better as avatars), then `icon` / `shortcut icon`, larger
 * `sizes` first, document order otherwise. Null when none is an http(s) URL.
 */
export function bestIcon(links: readonly IconLink[]): string | null {
  const ranked = links
    .map((link, order) => ({ link, order, rank: rankOf(link.rel), size: largestSize(link.sizes) }))
    .filter((entry) => entry.rank > 0 && parseHttpUrl(entry.link.href) !== null);
  ranked.sort((a, b) => b.rank - a.rank || b.size - a.size || a.order - b.order);
  return ranked[0]?.link.href ?? null;
}

function rankOf(rel: readonly string[]): number {
  if (rel.some((token) => token.startsWith("apple-touch-icon"))) return 2;
  return rel.includes("icon") ? 1 : 0;
}

function largestSize(sizes: string | null): number {
  let largest = 0;
  for (const match of (sizes ?? "").matchAll(/(\d+)x(\d+)/gi)) largest = Math.max(largest, Number(match[1]));
  return largest;
}

/**
 * The best icon a page's head declares, resolved against `<base href>` or
 * the page URL; null when there is none. Reading stops at the end of the
 * head: `</head>`, the first element that belongs in the body, or nesting
 * deeper than any real head, so the work is bounded by the head (callers
 * also cap the bytes) and no tree is ever built.
 */
export function pickIconFromHtml(html: string, pageUrl: string): string | null {
  return bestIcon(readHeadLinks(html, pageUrl));
}

/** The `<link>` elements of a page's head, read as `pickIconFromHtml` reads them (bounded by the head). */
export function readHeadLinks(html: string, pageUrl: string): HeadLink[] {
  let base: string | null = null;
  let depth = 0;
  let done = false;
  const found: Array<Record<string, string>> = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (done) return;
        if (!HEAD_ELEMENTS.has(name) || ++depth > MAX_DEPTH) return stop();
        if (name === "base" && attributes.href && base === null) base = httpUrl(attributes.href, pageUrl) ?? pageUrl;
        else if (name === "link" && attributes.href) found.push(attributes);
      },
      onclosetag(name) {
        if (done) return;
        if (name === "head") stop();
        else depth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  function stop() {
    done = true;
    parser.pause();
  }
  parser.write(html);
  if (!done) parser.end();
  // Resolved once the head is read: <base> applies to links written before it too.
  const links: HeadLink[] = [];
  for (const attributes of found) {
    const href = parseHttpUrl(attributes.href, base ?? pageUrl);
    if (!href) continue;
    links.push({
      href: href.href,
      rel: (attributes.rel ?? "").toLowerCase().split(/\s+/).filter(Boolean),
      sizes: attributes.sizes ?? null,
      type: attributes.type?.split(";")[0].trim().toLowerCase() || null,
      title: attributes.title?.replace(/\s+/g, " ").trim() || null,
    });
  }
  return links;
}
