import { Parser } from "htmlparser2";
import { decodeText } from "../encoding/decode.js";
import { FetchError, type FetchResult } from "../http/fetch.js";
import { parseHttpUrl } from "../url/normalise.js";

/** Fetches one URL for the icon finder (limits, signal and host pool already applied). */
export type PageFetcher = (url: string, accept: string) => Promise<FetchResult>;

interface IconLink {
  href: string;
  /** 2 apple-touch-icon, 1 icon: the larger touch icons look better as avatars. */
  rank: number;
  /** Largest side from `sizes`, 0 when unknown. */
  size: number;
}

/**
 * The best icon a page's `<head>` declares (`apple-touch-icon`, then `icon`
 * / `shortcut icon`, larger `sizes` first), as an absolute http(s) URL
 * resolved against `<base href>` or the page URL; null when there is none.
 */
export function pickIconFromHtml(html: string, pageUrl: string): string | null {
  let base = pageUrl;
  let inBody = false;
  const links: IconLink[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (inBody) return;
        if (name === "body") inBody = true;
        else if (name === "base" && attributes.href) base = parseHttpUrl(attributes.href, pageUrl)?.href ?? base;
        else if (name === "link" && attributes.href) {
          const rel = (attributes.rel ?? "").toLowerCase().split(/\s+/);
          const rank = rel.some((token) => token.startsWith("apple-touch-icon")) ? 2 : rel.includes("icon") ? 1 : 0;
          if (rank > 0) links.push({ href: attributes.href, rank, size: largestSize(attributes.sizes) });
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  links.sort((a, b) => b.rank - a.rank || b.size - a.size);
  for (const link of links) {
    const url = parseHttpUrl(link.href, base);
    if (url) return url.href;
  }
  return null;
}

function largestSize(sizes: string | undefined): number {
  let largest = 0;
  for (const match of (sizes ?? "").matchAll(/(\d+)x(\d+)/gi)) largest = Math.max(largest, Number(match[1]));
  return largest;
}

/**
 * Looks for a site's icon: the icon its home page declares, else
 * `/favicon.ico` when the server has one. Null when neither exists or the
 * site cannot be reached; callers remember that and do not ask again.
 */
export async function findSiteIcon(siteUrl: string, fetchPage: PageFetcher): Promise<string | null> {
  const site = parseHttpUrl(siteUrl);
  if (!site) return null;
  try {
    const page = await fetchPage(site.href, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1");
    if (page.status >= 200 && page.status < 300 && page.body.byteLength > 0) {
      const declared = pickIconFromHtml(decodeText(page.body, page.contentType), page.url);
      if (declared) return declared;
    }
    const favicon = new URL("/favicon.ico", page.url).href;
    const icon = await fetchPage(favicon, "image/*");
    // Soft 404s answer 200 with an HTML page: only an image counts.
    const isImage = icon.status === 200 && icon.body.byteLength > 0 && !/html|xml|json/i.test(icon.contentType ?? "");
    return isImage ? icon.url : null;
  } catch (error) {
    // A stopped sync is not "no icon": let the caller skip recording anything.
    if (error instanceof FetchError && error.code === "aborted") throw error;
    return null;
  }
}
