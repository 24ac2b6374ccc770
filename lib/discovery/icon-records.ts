import type { MetaStore } from "../storage/types.js";
import { DAY } from "../time/durations.js";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";

/** How long a finding is trusted: a found icon a month, a miss a week, a site that did not answer a day. */
export const ICON_RECORD_TTL = { found: 30 * DAY, none: 7 * DAY, unreachable: DAY } as const;

/**
 * What is known of one icon source, kept in the meta store with an expiry:
 * - `page`: the icon a site's page declares (one per site URL, shared by
 *   every feed of that site);
 * - `favicon`: whether an origin's `/favicon.ico` is an image (one per
 *   origin, shared by every site on it).
 */
export type IconSource = "page" | "favicon";

export interface IconFinding {
  /** The icon's URL, or null when this source has none. */
  icon: string | null;
  /** False when the server could not be reached or failed (5xx): asked again sooner. */
  reachable: boolean;
  /** For pages: the URL the page was finally read from (after redirects), whose origin holds its favicon. */
  url?: string;
  /** For pages: the blogrolls (OPML addresses) its Link header and head announce; absent on records older than this field (unknown). */
  blogrolls?: string[];
}

interface StoredFinding extends IconFinding {
  expiresAt: string;
}

/** The meta key of a source's record; null for an address that is not http(s). */
export function iconRecordKey(source: IconSource, url: string): string | null {
  const parsed = parseHttpUrl(url);
  if (!parsed) return null;
  return source === "page" ? `siteIcon:page:${feedUrlKey(parsed.href)}` : `siteIcon:favicon:${parsed.origin}`;
}

/** The finding recorded for a source, or null when there is none or it has expired. */
export async function readIconRecord(
  meta: MetaStore,
  source: IconSource,
  url: string,
  now: Date,
): Promise<IconFinding | null> {
  const key = iconRecordKey(source, url);
  const stored = key ? await meta.get<StoredFinding>(key) : null;
  if (!stored || !(Date.parse(stored.expiresAt) > now.getTime())) return null;
  return {
    icon: stored.icon ?? null,
    reachable: stored.reachable !== false,
    ...(stored.url ? { url: stored.url } : {}),
    ...(Array.isArray(stored.blogrolls) ? { blogrolls: stored.blogrolls } : {}),
  };
}

export async function writeIconRecord(
  meta: MetaStore,
  source: IconSource,
  url: string,
  finding: IconFinding,
  now: Date,
): Promise<void> {
  const key = iconRecordKey(source, url);
  if (!key) return;
  const ttl = finding.icon
    ? ICON_RECORD_TTL.found
    : finding.reachable
      ? ICON_RECORD_TTL.none
      : ICON_RECORD_TTL.unreachable;
  await meta.set(key, { ...finding, expiresAt: new Date(now.getTime() + ttl).toISOString() } satisfies StoredFinding);
}
