import { parseHttpUrl } from "./http-url.js";

/**
 * Feed URL normalisation for comparison and de-duplication. The result is a
 * key, never a URL to fetch: it folds scheme (http/https twins), host case,
 * default ports, fragments and a trailing slash.
 */
export function feedUrlKey(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return input.trim().toLowerCase();
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const port = url.port && url.port !== "80" && url.port !== "443" ? `:${url.port}` : "";
  let path = url.pathname || "/";
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return `${host}${port}${path}${url.search}`;
}

/** The title a feed gets when its listing names none: its host, without "www.". */
export function hostTitle(feedUrl: string): string {
  return parseHttpUrl(feedUrl)?.hostname.replace(/^www\./, "") ?? feedUrl;
}

/**
 * True when `title` is only the placeholder a blog carries until its feed
 * names itself: the host of its feed address, or of an address it had before
 * a permanent redirect moved it. Never stored as the owner's own title.
 */
export function isHostTitle(title: string, feedUrl: string, movedFrom: string | null = null): boolean {
  return title === hostTitle(feedUrl) || (movedFrom !== null && title === hostTitle(movedFrom));
}

/** The mount path under a configured public URL (its own path kept, trailing slashes dropped). */
export function publicMountUrl(publicUrl: string, mountPath: string): string {
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}${mountPath}`;
}
