import { SECOND } from "../time/durations.js";

/** Reading what a server's HTTP caching headers say about how often to come back. */

/** Response headers that bear on freshness, as fetched (null when absent). */
export interface CachingHeaders {
  cacheControl: string | null;
  expires: string | null;
  /** The server's Date header: Expires is read against the server's clock, not ours. */
  date: string | null;
}

/**
 * How long the response stays fresh, in milliseconds, or null when the
 * headers do not say. `max-age` wins over Expires (RFC 9111 §5.3); `no-store`
 * and `no-cache` promise nothing; an Expires that is invalid or already past
 * means no floor.
 */
export function freshnessLifetime(
  headers: CachingHeaders,
  now: Date,
): { maxAge: number | null; expiresIn: number | null } {
  const directives = (headers.cacheControl ?? "")
    .toLowerCase()
    .split(",")
    .map((part) => part.trim());
  if (directives.some((directive) => directive === "no-store" || directive === "no-cache"))
    return { maxAge: null, expiresIn: null };
  for (const directive of directives) {
    const match = /^max-age\s*=\s*"?(\d{1,12})"?$/.exec(directive);
    if (match) return { maxAge: Number(match[1]) * SECOND, expiresIn: null };
  }
  if (!headers.expires) return { maxAge: null, expiresIn: null };
  const expires = Date.parse(headers.expires);
  if (Number.isNaN(expires)) return { maxAge: null, expiresIn: null };
  const served = headers.date ? Date.parse(headers.date) : Number.NaN;
  const wait = expires - (Number.isNaN(served) ? now.getTime() : served);
  return { maxAge: null, expiresIn: wait > 0 ? wait : null };
}
