/**
 * The one test of "an absolute http(s) URL": every address read from a
 * feed, a page, an OPML file, a form, an option or a stored record passes
 * through here before it is fetched, linked or kept.
 *
 * `value` (surrounding white space ignored) resolved against `base` when
 * one is given; null for anything else: not text, blank, another scheme
 * (javascript:, data:, mailto:, tag:, feed:), or nothing a URL parser reads.
 */
export function parseHttpUrl(value: unknown, base?: string | null): URL | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "") return null;
  const url = URL.parse(text, base ?? undefined);
  return url && (url.protocol === "http:" || url.protocol === "https:") ? url : null;
}

/** The same address written out (its `href`), or null. */
export function httpUrl(value: unknown, base?: string | null): string | null {
  return parseHttpUrl(value, base)?.href ?? null;
}
