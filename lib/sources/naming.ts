/**
 * Names for a source the owner left unnamed, until its document gives one:
 * an address without its scheme and trailing slash ("friend.example",
 * "example.org/blogroll.opml"), an uploaded file's name without its extension.
 */
export function nameOfAddress(url: string): string {
  return url
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")
    .replace(/\/+$/, "");
}

export function nameOfFile(fileName: string | null | undefined): string | null {
  const base =
    (fileName ?? "")
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.(opml|xml|txt)$/i, "")
      .trim() ?? "";
  return base === "" ? null : base;
}

/** A document's own title as a source's name: trimmed, at most `max` characters; null when it has none. */
export function nameOfTitle(title: string | null | undefined, max: number): string | null {
  const text = (title ?? "").replace(/\s+/g, " ").trim();
  return text === "" ? null : text.slice(0, max);
}
