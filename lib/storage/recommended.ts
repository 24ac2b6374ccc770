import { feedUrlKey } from "../url/normalise.js";
import { MAX_RECOMMENDATIONS_PER_BLOG, type Recommendation } from "./types.js";

/** Entries to store: repeats by feed key dropped (the first wins), at most MAX_RECOMMENDATIONS_PER_BLOG. */
export function keptEntries(entries: Recommendation[]): Array<Recommendation & { key: string }> {
  const seen = new Set<string>();
  const kept: Array<Recommendation & { key: string }> = [];
  for (const entry of entries) {
    const key = feedUrlKey(entry.feedUrl);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ ...entry, key });
    if (kept.length === MAX_RECOMMENDATIONS_PER_BLOG) break;
  }
  return kept;
}
