import type { Collection, Document } from "mongodb";

/** The key the blogs list sorts titles by (case ignored), as SQLite's title_sort. */
export function titleSortKey(title: unknown): string {
  return typeof title === "string" ? title.toLowerCase() : "";
}

/** How often a process looks for blogs without sort keys (the Microsub plugin's, written straight into the collection). */
const BACKFILL_INTERVAL_MS = 60_000;

/**
 * Gives blog documents that lack them the stored sort keys (`titleSort`, a
 * boolean `pinned`) the list's indexes sort on. Documents this adapter writes
 * always have them; the Microsub plugin writes follows into the collection
 * itself, with `pinned: false` but no `titleSort`, so the list looks for
 * those at most once a minute, through the title index (pinned, then a
 * missing titleSort), before it reads a page. `all` (set-up) also finds
 * documents of older versions, whatever their `pinned`.
 */
export async function backfillSortKeys(blogs: Collection, all = false): Promise<number> {
  const missing: Document = all
    ? { $or: [{ titleSort: { $exists: false } }, { pinned: { $not: { $type: "bool" } } }] }
    : { pinned: { $in: [true, false] }, titleSort: { $exists: false } };
  const docs = await blogs.find(missing).project({ title: 1, pinned: 1 }).toArray();
  if (docs.length === 0) return 0;
  await blogs.bulkWrite(
    docs.map((doc) => ({
      updateOne: {
        filter: { _id: doc._id },
        update: { $set: { titleSort: titleSortKey(doc.title), pinned: doc.pinned === true } },
      },
    })),
    { ordered: false },
  );
  return docs.length;
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
