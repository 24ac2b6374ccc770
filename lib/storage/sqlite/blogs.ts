import { feedUrlKey } from "../../url/normalise.js";
import { newId } from "../id.js";
import { isListed, listedBlog, withListing, withoutOrigin, withoutSourceKept } from "../provenance.js";
import type { Blog, BlogListQuery, BlogSelection, BlogStatus, BlogStore, CategoryCount, Page } from "../types.js";
import { applyEdit } from "../owner-edits.js";
import { applyFetch, markDeleted } from "./blog-changes.js";
import { blogListSql, wholeNumber } from "./blog-list.js";
import { ADMIN_BLOG, PUBLIC_BLOG } from "./visibility.js";
import { countHealth } from "./blog-health.js";
import type { SqliteContext } from "./database.js";
import { refreshBlogItemStats } from "./item-stats.js";
import {
  BLOG_COLUMNS,
  blogToParams,
  PUBLIC_BLOG_COLUMNS,
  rowToBlog,
  rowToPublicBlog,
  toIso,
  type BlogRow,
  type PublicBlogRow,
} from "./rows.js";

const INSERT_BLOG = `INSERT INTO blogs (${BLOG_COLUMNS.join(", ")}) VALUES (${BLOG_COLUMNS.map((c) => `@${c}`).join(", ")})`;
const UPDATE_BLOG = `UPDATE blogs SET ${BLOG_COLUMNS.filter((c) => c !== "id")
  .map((c) => `${c} = @${c}`)
  .join(", ")} WHERE id = @id`;
/** Combinations of changed columns a fetch's partial UPDATE is prepared for (each statement is kept for the process's life). */
const PARTIAL_UPDATES_KEPT = 64;
/** The public fields' columns of alias `b`: reading every column of a row costs twice as much (bench/api-scale.ts). */
const PUBLIC_COLUMNS = PUBLIC_BLOG_COLUMNS.map((column) => `b.${column}`).join(", ");
/** Blogs an origin lists (parameter @origin), alias `b`: blog_origins mirrors the origins column. */
const LISTED_BY_ORIGIN = "b.id IN (SELECT blog_id FROM blog_origins WHERE origin_id = @origin)";

/** The fetchable blogs (listed by an origin, not deleted); repeats the partial index blogs_due word for word, which is what lets SQLite use it. */
const FETCHABLE = "skip_item_fetch = 0 AND status != 'deleted' AND origins != '[]'";

/**
 * Blogs due for a fetch (a gone blog's weekly check included), in two index
 * ranges rather than one condition with an OR (which SQLite can only check
 * row by row, walking the whole index on every run): never-scheduled ones by
 * id, then those due by (next_fetch_at, id).
 */
export const DUE_UNSCHEDULED_SQL = `SELECT * FROM blogs WHERE ${FETCHABLE} AND next_fetch_at IS NULL AND id > @afterId ORDER BY id LIMIT @limit`;
export const DUE_SCHEDULED_SQL = `SELECT * FROM blogs WHERE ${FETCHABLE} AND next_fetch_at <= @now AND (next_fetch_at, id) > (@afterAt, @afterId)
  ORDER BY next_fetch_at, id LIMIT @limit`;

/** "Sync now": every fetchable blog but those a server told to wait, and gone ones before their weekly check, in id order from a cursor. */
export const EVERY_FETCHABLE_BLOG_SQL = `SELECT * FROM blogs WHERE id > @afterId AND ${FETCHABLE} AND (wait_until IS NULL OR wait_until <= @now)
    AND (status != 'gone' OR next_fetch_at IS NULL OR next_fetch_at <= @now)
  ORDER BY id LIMIT @limit`;

/** Blogs never fetched here that have a fediverse handle, by id; repeats the partial index blogs_unfetched_handles. */
export const UNFETCHED_WITH_HANDLE_SQL = `SELECT * FROM blogs WHERE skip_item_fetch = 1 AND fediverse IS NOT NULL
    AND status != 'deleted' AND origins != '[]' AND id > @afterId
  ORDER BY id LIMIT @limit`;

/** The WHERE clause (alias `b`) of a bulk action's blogs: by id, or the admin list's filters; never a deleted blog. */
function selectionSql(selection: BlogSelection): { where: string; params: unknown[] } {
  if ("ids" in selection)
    return {
      where: `${ADMIN_BLOG} AND b.id IN (SELECT value FROM json_each(?))`,
      params: [JSON.stringify(selection.ids)],
    };
  const { where, params } = blogListSql({ ...selection.matching, visibility: "admin" });
  return { where, params };
}

/** The blogs table behind the BlogStore port. Every read-modify-write runs in one immediate transaction. */
export function createSqliteBlogStore(ctx: SqliteContext): BlogStore {
  const byId = (id: string) => ctx.statement("SELECT * FROM blogs WHERE id = ?").get(id) as BlogRow | undefined;
  /** The blog holding a feed URL key, or else the one a permanent redirect moved away from it. */
  const byKey = (key: string) =>
    (ctx.statement("SELECT * FROM blogs WHERE feed_url_key = ?").get(key) as BlogRow | undefined) ??
    (ctx.statement("SELECT b.* FROM blog_feed_aliases a JOIN blogs b ON b.id = a.blog_id WHERE a.key = ?").get(key) as
      BlogRow | undefined);
  const insert = (blog: Blog) => ctx.statement(INSERT_BLOG).run(blogToParams(blog, feedUrlKey(blog.feedUrl)));
  const save = (blog: Blog) => ctx.statement(UPDATE_BLOG).run(blogToParams(blog, feedUrlKey(blog.feedUrl)));
  /** The UPDATE statements of saveChanged, by the columns they set (a fetch's outcomes set few combinations). */
  const partialUpdates = new Map<string, string>();
  /**
   * Writes `blog` over `row`, setting only the columns whose values differ:
   * SQLite rewrites every index that covers a column an UPDATE sets, changed
   * or not, so a fetch that set every column wrote some 20 pages of the
   * blogs' eleven indexes to the write-ahead log (BENCHMARKS.md, scale).
   */
  const saveChanged = (row: BlogRow, blog: Blog) => {
    const params = blogToParams(blog, feedUrlKey(blog.feedUrl));
    const changed = BLOG_COLUMNS.filter((column) => column !== "id" && params[column] !== row[column]);
    if (changed.length === 0) return;
    const key = changed.join(",");
    let sql = partialUpdates.get(key);
    if (!sql) {
      // Bounded: past PARTIAL_UPDATES_KEPT combinations, a rare one writes every column as before.
      if (partialUpdates.size >= PARTIAL_UPDATES_KEPT) return save(blog);
      sql = `UPDATE blogs SET ${changed.map((column) => `${column} = @${column}`).join(", ")} WHERE id = @id`;
      partialUpdates.set(key, sql);
    }
    ctx.statement(sql).run(params);
  };
  const listedBy = (origin: string) =>
    (ctx.statement(`SELECT * FROM blogs b WHERE ${LISTED_BY_ORIGIN} ORDER BY b.id`).all({ origin }) as BlogRow[]).map(
      rowToBlog,
    );

  /** A page of blogs.list: the count, then the page's rows (`columns` of alias `b`) decoded by `decode`. */
  function page<Row, T>(query: BlogListQuery, columns: string, decode: (row: Row) => T): Page<T> {
    const { where, pageWhere, params, orderBy } = blogListSql(query);
    const { total } = ctx.statement(`SELECT count(*) AS total FROM blogs b WHERE ${where}`).get(...params) as {
      total: number;
    };
    const limit = wholeNumber(query.limit);
    if (limit === 0 || total === 0) return { items: [], total };
    const rows = ctx
      .statement(`SELECT ${columns} FROM blogs b WHERE ${pageWhere} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
      .all(...params, limit, wholeNumber(query.offset)) as Row[];
    return { items: rows.map(decode), total };
  }

  return {
    list: (query) => ctx.guard("blogs.list", () => page(query, "b.*", rowToBlog)),

    listPublic: (query) =>
      ctx.guard("blogs.listPublic", () => page({ ...query, visibility: "public" }, PUBLIC_COLUMNS, rowToPublicBlog)),

    get: (id) =>
      ctx.guard("blogs.get", () => {
        const row = byId(id);
        return row ? rowToBlog(row) : null;
      }),

    getByFeedUrl: (feedUrl) =>
      ctx.guard("blogs.getByFeedUrl", () => {
        const row = byKey(feedUrlKey(feedUrl));
        return row ? rowToBlog(row) : null;
      }),

    getMany: (ids) =>
      ctx.guard("blogs.getMany", () => {
        if (ids.length === 0) return [];
        const rows = ctx
          .statement("SELECT * FROM blogs WHERE id IN (SELECT value FROM json_each(?))")
          .all(JSON.stringify(ids)) as BlogRow[];
        return rows.map(rowToBlog);
      }),

    getManyPublic: (ids) =>
      ctx.guard("blogs.getManyPublic", () => {
        if (ids.length === 0) return [];
        const rows = ctx
          .statement(`SELECT ${PUBLIC_COLUMNS} FROM blogs b WHERE b.id IN (SELECT value FROM json_each(?))`)
          .all(JSON.stringify(ids)) as PublicBlogRow[];
        return rows.map(rowToPublicBlog);
      }),

    upsertFromSource: (input) =>
      ctx.guard("blogs.upsertFromSource", () =>
        ctx.write(() => {
          const now = new Date();
          const row = byKey(feedUrlKey(input.feedUrl));
          if (!row) {
            const blog = listedBlog(input, newId(now.getTime()), now);
            insert(blog);
            return { outcome: "added" as const, blog };
          }
          const { outcome, blog } = withListing(rowToBlog(row), input, now);
          if (outcome !== "unchanged" && outcome !== "skipped-deleted") save(blog);
          return { outcome, blog };
        }),
      ),

    edit: (id, edit) =>
      ctx.guard("blogs.edit", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row || row.status === "deleted") return null;
          const blog = applyEdit(rowToBlog(row), edit, new Date());
          save(blog);
          return blog;
        }),
      ),

    softDelete: (id, at) =>
      ctx.guard("blogs.softDelete", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row) return false;
          const now = new Date();
          save(markDeleted(rowToBlog(row), at ?? now, now));
          return true;
        }),
      ),

    hideMany: (selection) =>
      ctx.guard("blogs.hideMany", () => {
        const { where, params } = selectionSql(selection);
        // As applyEdit with { hidden: true }: `hidden` owner-edited (once), nothing else but the time.
        const rows = ctx
          .statement(
            `UPDATE blogs AS b SET hidden = 1, updated_at = ?,
               owner_edited = CASE WHEN EXISTS (SELECT 1 FROM json_each(b.owner_edited) WHERE value = 'hidden')
                 THEN b.owner_edited ELSE json_insert(b.owner_edited, '$[#]', 'hidden') END
             WHERE ${where} AND b.hidden = 0 RETURNING id`,
          )
          .all(toIso(new Date()), ...params) as { id: string }[];
        return rows.map((row) => row.id);
      }),

    softDeleteMany: (selection, at) =>
      ctx.guard("blogs.softDeleteMany", () => {
        const { where, params } = selectionSql(selection);
        const now = new Date();
        // As markDeleted.
        const rows = ctx
          .statement(
            `UPDATE blogs AS b SET status = 'deleted', hidden = 1, deleted_at = ?, updated_at = ? WHERE ${where} RETURNING id`,
          )
          .all(toIso(at ?? now), toIso(now), ...params) as { id: string }[];
        return rows.map((row) => row.id);
      }),

    unlist: (originId, which) =>
      ctx.guard("blogs.unlist", () =>
        ctx.write(() => {
          const now = new Date();
          const except = "except" in which ? new Set(which.except) : null;
          const only = "only" in which ? new Set(which.only) : null;
          const unlisted: string[] = [];
          for (const blog of listedBy(originId)) {
            if (except?.has(blog.id) || (only && !only.has(blog.id))) continue;
            const after = withoutOrigin(blog, originId, now);
            save(after);
            if (!isListed(after) && after.status !== "deleted") unlisted.push(after.id);
          }
          return unlisted;
        }),
      ),

    detachSource: (sourceId, keep) =>
      ctx.guard("blogs.detachSource", () =>
        ctx.write(() => {
          const now = new Date();
          const orphans: string[] = [];
          for (const blog of listedBy(sourceId)) {
            // Deleted blogs only forget it: purging them would free their URL for re-creation.
            const after =
              keep && blog.status !== "deleted"
                ? withoutSourceKept(blog, sourceId, now)
                : withoutOrigin(blog, sourceId, now);
            save(after);
            if (!isListed(after) && after.status !== "deleted") orphans.push(after.id);
          }
          return orphans;
        }),
      ),

    purge: (id) =>
      ctx.guard("blogs.purge", () => {
        // Items go with it (ON DELETE CASCADE), in the same statement's transaction.
        ctx.statement("DELETE FROM blogs WHERE id = ?").run(id);
      }),

    categories: () =>
      ctx.guard(
        "blogs.categories",
        () =>
          ctx
            .statement(
              `SELECT b.category AS name, count(*) AS count FROM blogs b
             WHERE ${PUBLIC_BLOG} AND b.category IS NOT NULL AND b.category != ''
             GROUP BY b.category ORDER BY b.category`,
            )
            .all() as CategoryCount[],
      ),

    listDue: (now, limit, options = {}) =>
      ctx.guard("blogs.listDue", () => {
        const wanted = wholeNumber(limit);
        const after = options.after;
        if (wanted === 0) return [];
        if (options.everyone) {
          return (
            ctx
              .statement(EVERY_FETCHABLE_BLOG_SQL)
              .all({ now: toIso(now), afterId: after?.id ?? "", limit: wanted }) as BlogRow[]
          ).map(rowToBlog);
        }
        const rows: BlogRow[] = [];
        if (!after || after.nextFetchAt === null) {
          rows.push(
            ...(ctx.statement(DUE_UNSCHEDULED_SQL).all({ afterId: after?.id ?? "", limit: wanted }) as BlogRow[]),
          );
        }
        if (rows.length < wanted) {
          // Past the never-scheduled ones: from the start of the scheduled range, or after the cursor within it.
          const afterAt = after?.nextFetchAt ? toIso(after.nextFetchAt) : "";
          const afterId = after?.nextFetchAt ? after.id : "";
          rows.push(
            ...(ctx
              .statement(DUE_SCHEDULED_SQL)
              .all({ now: toIso(now), afterAt, afterId, limit: wanted - rows.length }) as BlogRow[]),
          );
        }
        return rows.map(rowToBlog);
      }),

    listUnfetchedWithHandle: (afterId, limit) =>
      ctx.guard("blogs.listUnfetchedWithHandle", () => {
        const wanted = wholeNumber(limit);
        if (wanted === 0) return [];
        return (ctx.statement(UNFETCHED_WITH_HANDLE_SQL).all({ afterId, limit: wanted }) as BlogRow[]).map(rowToBlog);
      }),

    recordFetch: (id, record) =>
      ctx.guard("blogs.recordFetch", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row) return null;
          let newFeedUrl: string | null = null;
          if (record.feedUrl && record.feedUrl !== row.feed_url) {
            const holder = byKey(feedUrlKey(record.feedUrl));
            if (!holder || holder.id === id) newFeedUrl = record.feedUrl;
          }
          const blog = applyFetch(rowToBlog(row), record, newFeedUrl, new Date());
          saveChanged(row, blog);
          if (newFeedUrl) {
            // Lists that still name the old address find the moved blog, not a new twin.
            ctx
              .statement(
                "INSERT INTO blog_feed_aliases (key, blog_id) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET blog_id = excluded.blog_id",
              )
              .run(row.feed_url_key, id);
            ctx.statement("DELETE FROM blog_feed_aliases WHERE key = ?").run(feedUrlKey(newFeedUrl));
          }
          return blog;
        }),
      ),

    recordHint: (id, hint) =>
      ctx.guard("blogs.recordHint", () => {
        const budgetAt = toIso(hint.budgetAt);
        if (!hint.nextFetchAt)
          return void ctx.statement("UPDATE blogs SET hint_budget_at = ? WHERE id = ?").run(budgetAt, id);
        const at = toIso(hint.nextFetchAt);
        ctx
          .statement(
            "UPDATE blogs SET hint_budget_at = ?, next_fetch_at = CASE WHEN next_fetch_at > ? THEN ? ELSE next_fetch_at END WHERE id = ?",
          )
          .run(budgetAt, at, at, id);
      }),

    setIcon: (id, iconUrl) =>
      ctx.guard("blogs.setIcon", () => {
        const result = ctx
          .statement("UPDATE blogs SET icon_url = ?, updated_at = ? WHERE id = ? AND status != 'deleted'")
          .run(iconUrl, toIso(new Date()), id);
        return result.changes === 1;
      }),

    refreshItemStats: (id) => ctx.guard("blogs.refreshItemStats", () => refreshBlogItemStats(ctx, id)),

    count: (filter = {}) =>
      ctx.guard("blogs.count", () => {
        const conditions: string[] = [];
        const params: unknown[] = [];
        if (filter.status) {
          conditions.push("b.status = ?");
          params.push(filter.status satisfies BlogStatus);
        } else conditions.push(ADMIN_BLOG);
        if (filter.sourcePrefix !== undefined) {
          conditions.push("substr(b.source, 1, ?) = ?");
          params.push(filter.sourcePrefix.length, filter.sourcePrefix);
        }
        const row = ctx
          .statement(`SELECT count(*) AS n FROM blogs b WHERE ${conditions.join(" AND ")}`)
          .get(...params) as { n: number };
        return row.n;
      }),

    healthCounts: (query) => ctx.guard("blogs.healthCounts", () => countHealth(ctx, query)),

    publicTotals: () =>
      ctx.guard("blogs.publicTotals", () => {
        const row = ctx
          .statement(
            `SELECT count(*) AS blogs, coalesce(sum(b.item_count), 0) AS items FROM blogs b WHERE ${PUBLIC_BLOG}`,
          )
          .get() as { blogs: number; items: number };
        return { blogs: row.blogs, items: row.items };
      }),
  };
}
