import { createHash } from "node:crypto";

/** What an item's identity is derived from. */
export interface UidSource {
  id: string | null;
  url: string | null;
  title: string | null;
  published: Date | null;
  /** The item's sanitised content; called only when the identity needs it (no id or link, or a clash). */
  content(): string | null;
}

/** Prefix of uids made from an item's content when it has no id or link. */
export const HASH_UID_PREFIX = "sha256:";

/**
 * A uid per item, in feed order: the guid/id, else the link, else a hash of
 * title, date and content (stable across fetches of the same item).
 *
 * When several different posts (other link, title or content) share a uid,
 * none keeps it bare: a feed that gives every item `<guid>1</guid>` would
 * otherwise hand the stored row of one post to the next. Each gets
 * `uid#link`, or `uid#<content hash>` when its link is not its own among
 * them, whatever their order, so a post keeps its uid as the feed's window
 * moves. An exact repeat gets null and should be dropped.
 */
export function assignUids(items: UidSource[]): Array<string | null> {
  const bases = items.map((item) => item.id?.trim() || item.url || HASH_UID_PREFIX + sha256(contentKey(item)));
  const groups = new Map<string, number[]>();
  bases.forEach((base, index) => groups.set(base, [...(groups.get(base) ?? []), index]));
  const uids: Array<string | null> = [...bases];
  const taken = new Set(groups.keys());
  for (const [base, indexes] of groups) {
    if (indexes.length === 1) continue;
    // Fingerprints hash the content, so they are made only for items whose uid clashes.
    const distinct = new Map<string, number>();
    for (const index of indexes) {
      const key = sha256(`${items[index].url ?? ""}\n${contentKey(items[index])}`);
      if (distinct.has(key)) uids[index] = null;
      else distinct.set(key, index);
    }
    if (distinct.size === 1) continue;
    taken.delete(base);
    const kept = [...distinct.values()];
    const linkCount = new Map<string, number>();
    for (const index of kept) {
      const url = items[index].url;
      if (url) linkCount.set(url, (linkCount.get(url) ?? 0) + 1);
    }
    for (const index of kept) {
      const { url } = items[index];
      const alternative =
        url && url !== base && linkCount.get(url) === 1
          ? `${base}#${url}`
          : `${base}#${sha256(contentKey(items[index])).slice(0, 16)}`;
      uids[index] = taken.has(alternative) ? null : alternative;
      taken.add(alternative);
    }
  }
  return uids;
}

function contentKey(item: UidSource): string {
  return `${item.title ?? ""}\n${item.published?.toISOString() ?? ""}\n${item.content() ?? ""}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
