import type { Collection, Document, ObjectId } from "mongodb";

/** The key the blogs list sorts titles by (case ignored), as SQLite's title_sort. */
export function titleSortKey(title: unknown): string {
  return typeof title === "string" ? title.toLowerCase() : "";
}

/** Whether a blog document's stored sort keys are missing or lag its title. */
export function lacksSortKeys(doc: Document): boolean {
  return doc.titleSort !== titleSortKey(doc.title) || typeof doc.pinned !== "boolean";
}

/** Gives the blog documents of `ids` their sort keys from what they hold now. */
export async function giveSortKeys(blogs: Collection, ids: ObjectId[]): Promise<void> {
  if (ids.length === 0) return;
  const docs = await blogs
    .find({ _id: { $in: ids } })
    .project({ title: 1, pinned: 1 })
    .toArray();
  await writeSortKeys(blogs, docs);
}

/** How often a process looks for blogs without sort keys (written around this adapter). */
const BACKFILL_INTERVAL_MS = 60_000;

/**
 * Gives blog documents that lack them the stored sort keys (`titleSort`, a
 * boolean `pinned`) the list's indexes sort on. Every write through this
 * adapter's collections leaves them right, the Microsub plugin's follows
 * included (the watch in live-events.ts re-keys what a write left without);
 * for documents written by other means (an older version in another
 * process, a hand edit) the list looks at most once a minute, through the
 * title index (pinned, then a missing titleSort), before it reads a page.
 * `all` (set-up) also finds documents of older versions, whatever their
 * `pinned`.
 */
export async function backfillSortKeys(blogs: Collection, all = false): Promise<number> {
  const missing: Document = all
    ? { $or: [{ titleSort: { $exists: false } }, { pinned: { $not: { $type: "bool" } } }] }
    : { pinned: { $in: [true, false] }, titleSort: { $exists: false } };
  const docs = await blogs.find(missing).project({ title: 1, pinned: 1 }).toArray();
  await writeSortKeys(blogs, docs);
  return docs.length;
}

async function writeSortKeys(blogs: Collection, docs: Document[]): Promise<void> {
  if (docs.length === 0) return;
  await blogs.bulkWrite(
    docs.map((doc) => ({
      updateOne: {
        filter: { _id: doc._id },
        update: { $set: { titleSort: titleSortKey(doc.title), pinned: doc.pinned === true } },
      },
    })),
    { ordered: false },
  );
}

/** The list's look for documents without sort keys, at most once per BACKFILL_INTERVAL_MS. */
export function sortKeyBackfill(blogs: Collection) {
  let lastAt = Number.NEGATIVE_INFINITY;
  return {
    async backfillSoon(): Promise<void> {
      if (Date.now() - lastAt < BACKFILL_INTERVAL_MS) return;
      lastAt = Date.now();
      await backfillSortKeys(blogs);
    },
  };
}
