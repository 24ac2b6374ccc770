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
 * When several items share a uid, the first keeps it. A later one that is a
 * different post (other link, title or content) gets `uid#link`, or
 * `uid#<content hash>` when the link is the same, so distinct posts never
 * collapse into one; an exact repeat gets null and should be dropped.
 */
export function assignUids(items: UidSource[]): Array<string | null> {
  const seen = new Map<string, UidSource>(); // uid -> the item holding it
  // Fingerprints hash the content, so they are made only for items whose uid clashes.
  const fingerprints = new Map<UidSource, string>();
  const fingerprint = (item: UidSource) => {
    let value = fingerprints.get(item);
    if (value === undefined) fingerprints.set(item, (value = sha256(`${item.url ?? ""}\n${contentKey(item)}`)));
    return value;
  };
  return items.map((item) => {
    const base = item.id?.trim() || item.url || HASH_UID_PREFIX + sha256(contentKey(item));
    const previous = seen.get(base);
    if (previous === undefined) {
      seen.set(base, item);
      return base;
    }
    if (fingerprint(previous) === fingerprint(item)) return null;
    const alternative =
      item.url && item.url !== base && !seen.has(`${base}#${item.url}`)
        ? `${base}#${item.url}`
        : `${base}#${sha256(contentKey(item)).slice(0, 16)}`;
    if (seen.has(alternative)) return null;
    seen.set(alternative, item);
    return alternative;
  });
}

function contentKey(item: UidSource): string {
  return `${item.title ?? ""}\n${item.published?.toISOString() ?? ""}\n${item.content() ?? ""}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
