import { newId } from "../id.js";
import type { Item, ItemListQuery, ItemStore, NewItem } from "../types.js";
import { wholeNumber } from "./blog-list.js";
import { PUBLIC_BLOG } from "./visibility.js";
import type { SqliteContext } from "./database.js";
import { categoryItemRows } from "./category-items.js";
import { refreshBlogItemStats } from "./item-stats.js";
import { itemColumnsRead, rowToItem, toIso, toIsoOrNull, type ItemRow } from "./rows.js";
import { futureHorizon } from "../future.js";

/** The columns an upsert compares and rewrites; `fetched_at` keeps the first sighting. */
type ItemContent = Pick<
  ItemRow,
  "url" | "title" | "summary" | "content" | "published" | "author" | "photo" | "categories"
>;
const CONTENT_COLUMNS = ["url", "title", "summary", "content", "published", "author", "photo", "categories"] as const;

function itemContent(item: NewItem): ItemContent {
  return {
    url: item.url ?? null,
    title: item.title ?? null,
    summary: item.summary ?? null,
    content: item.content ?? null,
    published: toIsoOrNull(item.published),
    author: item.author ?? null,
    photo: item.photo ?? null,
    categories: JSON.stringify(item.categories ?? []),
  };
}

const sameContent = (row: ItemContent, next: ItemContent) =>
  CONTENT_COLUMNS.every((column) => row[column] === next[column]);

// Newest first; DESC puts undated (NULL) items after dated ones.
const NEWEST_FIRST = "ORDER BY i.published DESC, i.id DESC";

/**
 * The SQL of one items.list page, as up to three index-ordered parts that
 * follow one another: posts dated up to the horizon (a day ahead), then
 * posts dated beyond it, then undated posts. Each part has its page query
 * (limit, offset) and a count, asked only when a page starts past a part.
 * CROSS JOIN keeps items as the outer loop: SQLite walks the newest-first
 * index and checks each item's blog by primary key, stopping at the limit.
 */
export function itemListSql(
  query: ItemListQuery,
  now = new Date(),
): Array<{ sql: string; count: string; params: unknown[] }> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.blogId !== undefined) {
    conditions.push("i.blog_id = ?");
    params.push(query.blogId);
  } else conditions.push(PUBLIC_BLOG);
  if (query.category !== undefined) {
    conditions.push("b.category = ?");
    params.push(query.category);
  }
  const horizon = toIso(futureHorizon(now.getTime()));
  const from = `FROM items i CROSS JOIN blogs b ON b.id = i.blog_id WHERE ${conditions.join(" AND ")}`;
  return [
    { range: "i.published <= ?", params: [...params, horizon] },
    { range: "i.published > ?", params: [...params, horizon] },
    { range: "i.published IS NULL", params },
  ].map((part) => ({
    sql: itemColumnsRead(
      `SELECT i.* ${from} AND ${part.range} ${NEWEST_FIRST} LIMIT ? OFFSET ?`,
      query.content !== false,
    ),
    count: `SELECT count(*) AS n ${from} AND ${part.range}`,
    params: part.params,
  }));
}

/** One page over parts that follow one another: a part is counted only when the page starts past it. */
function pageOverParts(
  ctx: SqliteContext,
  parts: ReturnType<typeof itemListSql>,
  limit: number,
  offset: number,
): ItemRow[] {
  const rows: ItemRow[] = [];
  let skip = offset;
  for (const part of parts) {
    const wanted = limit - rows.length;
    if (wanted <= 0) break;
    const found = ctx.statement(part.sql).all(...part.params, wanted, skip) as ItemRow[];
    rows.push(...found);
    if (found.length > 0) skip = 0;
    else if (skip > 0) skip = Math.max(0, skip - (ctx.statement(part.count).get(...part.params) as { n: number }).n);
  }
  return rows;
}

/** Newest first within one part of a blog's items: published desc (ISO text sorts as dates), then id desc. */
const newestFirst = (a: ItemRow, b: ItemRow) =>
  (b.published ?? "") > (a.published ?? "")
    ? 1
    : (b.published ?? "") < (a.published ?? "")
      ? -1
      : b.id > a.id
        ? 1
        : b.id < a.id
          ? -1
          : 0;

/**
 * The parts of latestByBlog, in list order: for each blog of a JSON array,
 * its first `?` items of the part, through items_blog_newest.
 */
const LATEST_PARTS = [
  { range: "x.published <= ?", dated: true },
  { range: "x.published > ?", dated: true },
  { range: "x.published IS NULL", dated: false },
].map(({ range, dated }) => ({
  dated,
  sql: `SELECT i.* FROM json_each(?) j CROSS JOIN items i ON i.id IN
    (SELECT x.id FROM items x WHERE x.blog_id = j.value AND ${range} ORDER BY x.published DESC, x.id DESC LIMIT ?)`,
}));

/**
 * What retention deletes: dated items before the cutoff, and undated ones
 * first fetched before it, each read through its own index (named, since
 * without statistics SQLite would rather walk a whole index in blog order).
 */
export const PRUNE_CONDITIONS = [
  "items INDEXED BY items_newest WHERE published < @cutoff",
  "items INDEXED BY items_undated_by_fetch WHERE published IS NULL AND fetched_at < @cutoff",
];

/** The items table behind the ItemStore port. */
export function createSqliteItemStore(ctx: SqliteContext): ItemStore {
  /**
   * Deletes by conditions (`items [INDEXED BY …] WHERE …`, each its own
   * index range: see PRUNE_CONDITIONS) and refreshes the stats of the blogs they touched, inside the
   * caller's transaction.
   */
  function deleteWhere(conditions: string[], params: Record<string, unknown>): { deleted: number; blogIds: string[] } {
    const touched = new Set<string>();
    let deleted = 0;
    for (const condition of conditions) {
      const rows = ctx.statement(`SELECT DISTINCT blog_id FROM ${condition}`).all(params) as { blog_id: string }[];
      if (rows.length === 0) continue;
      for (const row of rows) touched.add(row.blog_id);
      deleted += ctx.statement(`DELETE FROM ${condition}`).run(params).changes;
    }
    for (const blogId of touched) refreshBlogItemStats(ctx, blogId);
    return { deleted, blogIds: [...touched] };
  }

  /** Upserts by (blog, uid) inside the caller's transaction. */
  function upsert(blogId: string, items: NewItem[], fetchedAt: Date): { added: number; updated: number } {
    const fetched = toIso(fetchedAt);
    const find = ctx.statement(`SELECT id, ${CONTENT_COLUMNS.join(", ")} FROM items WHERE blog_id = ? AND uid = ?`);
    const insert = ctx.statement(
      `INSERT INTO items (id, blog_id, uid, fetched_at, ${CONTENT_COLUMNS.join(", ")})
         VALUES (@id, @blog_id, @uid, @fetched_at, ${CONTENT_COLUMNS.map((c) => `@${c}`).join(", ")})`,
    );
    const update = ctx.statement(
      `UPDATE items SET ${CONTENT_COLUMNS.map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id`,
    );
    let added = 0;
    let updated = 0;
    for (const item of items) {
      const content = itemContent(item);
      const existing = find.get(blogId, item.uid) as (ItemContent & { id: string }) | undefined;
      if (!existing) {
        insert.run({ id: newId(), blog_id: blogId, uid: item.uid, fetched_at: fetched, ...content });
        added++;
      } else if (!sameContent(existing, content)) {
        update.run({ id: existing.id, ...content });
        updated++;
      }
    }
    return { added, updated };
  }

  /** Deletes a blog's items past its newest `keep` (and refreshes its stats when any go), inside the caller's transaction. */
  function trim(blogId: string, keep: number): { deleted: number; blogIds: string[] } {
    const condition = `items WHERE id IN (SELECT i.id FROM items i WHERE i.blog_id = @blogId ${NEWEST_FIRST} LIMIT -1 OFFSET @keep)`;
    return deleteWhere([condition], { blogId, keep: wholeNumber(keep) });
  }

  return {
    upsertMany: (blogId, items, fetchedAt) =>
      ctx.guard("items.upsertMany", () => ctx.write(() => upsert(blogId, items, fetchedAt))),

    store: (blogId, items, fetchedAt, keep) =>
      ctx.guard("items.store", () =>
        // One transaction, one commit: the upsert, the trim and the blog's stats (three before, each its own commit).
        ctx.write(() => {
          const { added, updated } = upsert(blogId, items, fetchedAt);
          const trimmed = trim(blogId, keep);
          if (trimmed.deleted === 0) refreshBlogItemStats(ctx, blogId);
          return { added, updated, trimmed: trimmed.deleted };
        }),
      ),

    list: (query) =>
      ctx.guard("items.list", () => {
        const limit = wholeNumber(query.limit);
        if (limit === 0) return [];
        const offset = wholeNumber(query.offset);
        if (query.category !== undefined && query.blogId === undefined) {
          const horizon = toIso(futureHorizon());
          return categoryItemRows(ctx, query.category, horizon, offset + limit, query.content !== false)
            .slice(offset, offset + limit)
            .map(rowToItem);
        }
        return pageOverParts(ctx, itemListSql(query), limit, offset).map(rowToItem);
      }),

    latestByBlog: (blogIds, perBlog) =>
      ctx.guard("items.latestByBlog", () => {
        const latest = new Map<string, Item[]>();
        const wanted = wholeNumber(perBlog);
        if (wanted === 0) return latest;
        // One statement per part for all the blogs (a seek in items_blog_newest per blog, inside SQLite):
        // a statement per blog costs about nine times as much. Only blogs still short go on to the next part.
        const horizon = toIso(futureHorizon());
        const rows = new Map<string, ItemRow[]>();
        let short = [...new Set(blogIds)];
        for (const part of LATEST_PARTS) {
          if (short.length === 0) break;
          const found = ctx
            .statement(part.sql)
            .all(JSON.stringify(short), ...(part.dated ? [horizon] : []), wanted) as ItemRow[];
          const byBlog = new Map<string, ItemRow[]>();
          for (const row of found) {
            const own = byBlog.get(row.blog_id);
            if (own) own.push(row);
            else byBlog.set(row.blog_id, [row]);
          }
          for (const [blogId, own] of byBlog)
            rows.set(blogId, [...(rows.get(blogId) ?? []), ...own.sort(newestFirst)].slice(0, wanted));
          short = short.filter((blogId) => (rows.get(blogId)?.length ?? 0) < wanted);
        }
        for (const [blogId, own] of rows) latest.set(blogId, own.map(rowToItem));
        return latest;
      }),

    pruneOlderThan: (cutoff) =>
      ctx.guard("items.pruneOlderThan", () =>
        // Dated items go by their date (future ones never qualify); undated ones by when they were fetched.
        // Two conditions, not one with OR: each is a range of its own index (items_newest,
        // items_undated_by_fetch), so a run with nothing to prune reads nothing.
        ctx.write(() => deleteWhere(PRUNE_CONDITIONS, { cutoff: toIso(cutoff) })),
      ),

    deleteAll: () =>
      ctx.guard("items.deleteAll", () =>
        ctx.write(() => {
          const deleted = ctx.statement("DELETE FROM items").run().changes;
          ctx
            .statement(
              "UPDATE blogs SET item_count = 0, last_item_at = NULL WHERE item_count != 0 OR last_item_at IS NOT NULL",
            )
            .run();
          return deleted;
        }),
      ),

    // Kept by the items' insert and delete triggers (see migrations.ts): counting 500 000 rows would read them all.
    count: () =>
      ctx.guard(
        "items.count",
        () => (ctx.statement("SELECT value FROM counters WHERE name = 'items'").get() as { value: number }).value,
      ),
  };
}
