import { httpUrl } from "../url/http-url.js";

/**
 * Reading one `<outline>` element's attributes: case-insensitive names,
 * whitespace-normalised text, the FeedLand/OPML 2.0 `category` attribute and
 * the feed URL check. Pure helpers used by the OPML parser.
 */

/** Attribute names lower-cased, so `xmlUrl`, `xmlurl` and `XMLURL` all read as `xmlurl`. */
export function lowerCaseAttributes(attributes: Record<string, string>): Map<string, string> {
  const lowered = new Map<string, string>();
  for (const [name, value] of Object.entries(attributes)) {
    const key = name.toLowerCase();
    // First spelling wins, as for a duplicate attribute in a lenient reader.
    if (!lowered.has(key)) lowered.set(key, value);
  }
  return lowered;
}

/** Trimmed with inner whitespace runs folded to one space; empty → null. */
export function cleanText(value: string | undefined): string | null {
  if (value === undefined) return null;
  const cleaned = value.replace(/\s+/g, " ").trim();
  return cleaned === "" ? null : cleaned;
}

/**
 * The category named by a `category` attribute, or null.
 *
 * OPML 2.0 defines it as a comma-separated list of slash-delimited paths
 * (`/Boston/Weather`); FeedLand writes plain comma-separated names (`a,b`).
 * A blog has one category here, so we take the first non-empty entry, and of
 * a path its last segment (the most specific folder).
 */
export function categoryFromAttribute(value: string | undefined): string | null {
  if (value === undefined) return null;
  for (const entry of value.split(",")) {
    const segments = entry
      .split("/")
      .map((segment) => cleanText(segment))
      .filter((s): s is string => s !== null);
    const last = segments.at(-1);
    if (last !== undefined) return last;
  }
  return null;
}

export type FeedUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Accept absolute http(s) feed URLs only. `feed://host/x` and `feed:https://host/x`
 * (the unofficial "feed" scheme some sites and old readers emit) are rewritten
 * to the http(s) URL they stand for, since the intent is unambiguous. The
 * result is the WHATWG-serialised URL (`new URL().href`), ready to fetch.
 */
export function checkFeedUrl(raw: string): FeedUrlCheck {
  let candidate = raw.trim();
  const feedScheme = /^feed:(\/\/)?/i.exec(candidate);
  if (feedScheme) {
    const rest = candidate.slice(feedScheme[0].length);
    candidate = /^https?:/i.test(rest) && !feedScheme[1] ? rest : `http://${rest}`;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `unsupported scheme ${url.protocol}` };
  }
  if (url.hostname === "") return { ok: false, reason: "no host" };
  return { ok: true, url: url.href };
}

/**
 * A site link kept only when it is an absolute http(s) URL: the blogroll shows
 * it as a link, so `javascript:` and friends must not survive an import.
 */
export function cleanSiteUrl(raw: string | undefined): string | null {
  return httpUrl(cleanText(raw));
}
