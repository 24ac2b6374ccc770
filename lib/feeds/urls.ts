/**
 * `value` resolved against `base` as an absolute http(s) URL string, or null
 * for empty values, other schemes (javascript:, data:, tag:, ...) and
 * unparseable input.
 */
export function absoluteHttpUrl(value: string | null | undefined, base?: string | null): string | null {
  if (!value || !value.trim()) return null;
  try {
    const url = new URL(value.trim(), base ?? undefined);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}
