import { Parser } from "htmlparser2";

/** Hosts that serve share buttons and tracking images, never a post's picture. */
const NON_CONTENT_IMAGE = /^https?:\/\/(feeds\.feedburner\.com|feedproxy\.google\.com)\//i;

/**
 * The `src` of the first real image in (already sanitised) HTML: tracking
 * pixels declared 0 or 1 pixel wide or high, and FeedBurner's flare and
 * tracking images, are skipped. Null if none.
 */
export function firstContentImage(html: string | null): string | null {
  if (!html || !html.includes("<img")) return null;
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (found || name !== "img" || !attribs.src) return;
      if (isPixel(attribs.width) || isPixel(attribs.height) || NON_CONTENT_IMAGE.test(attribs.src)) return;
      found = attribs.src;
      parser.pause();
    },
  });
  parser.end(html);
  return found;
}

function isPixel(size: string | undefined): boolean {
  return size !== undefined && /^\s*[01](px)?\s*$/i.test(size);
}
