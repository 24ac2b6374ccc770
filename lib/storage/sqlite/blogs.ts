import { feedUrlKey } from "../../url/normalise.js";
import type { BlogStatus, BlogStore, CategoryCount } from "../types.js";
import { applyEdit, applyFetch, blogFromSource, markDeleted, markInactive, mergeFromSource, withoutSource } from "./blog-changes.js";
import { ADMIN_BLOG, PUBLIC_BLOG, blogListSql, wholeNumber } from "./blog-list.js";
import { countHealth } from "./blog-health.js";
import type { SqliteContext } from "./database.js";
import { refreshBlogItemStats } from "./item-stats.js";
import { BLOG_COLUMNS, blogToParams, rowToBlog, rowToStoredBlog, toIso, type BlogRow, type StoredBlog } from "./rows.js";

const INSERT_BLOG = `INSERT INTO blogs (${BLOG_COLUMNS.join(", ")}) VALUES (${BLOG_COLUMNS.map((c) => `@${c}`).join(", ")})`;
const UPDATE_BLOG = `UPDATE blogs SET ${BLOG_COLUMNS.filter((c) => c !== "id").map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id`;
const BLOGS_OF_SOURCE = "EXISTS (SELECT 1 FROM json_each(b.source_ids) WHERE value = @sourceId)";

/**
 * Blogs due for a fetch (parameters: now, limit); NULL next_fetch_at sorts
 * first. The first two conditions repeat the partial index blogs_due word for
 * word, which is what lets SQLite use it.
 */
export const DUE_BLOGS_SQL = `SELECT * FROM blogs
  WHERE skip_item_fetch = 0 AND status NOT IN ('deleted', 'inactive')
    AND (next_fetch_at IS NULL OR next_fetch_at <= @now)
  ORDER BY next_fetch_at, id LIMIT @limit`;

/** "Sync now": every fetchable blog but those a server told to wait, and gone ones before their weekly check (parameters: now, limit). */
const EVERY_FETCHABLE_BLOG_SQL = `SELECT * FROM blogs
  WHERE skip_item_fetch = 0 AND status NOT IN ('deleted', 'inactive')
    AND (wait_until IS NULL OR wait_until <= @now)
    AND (status != 'gone' OR next_fetch_at IS NULL OR next_fetch_at <= @now)
  ORDER BY next_fetch_at, id LIMIT @limit`;

/** The blogs table behind the BlogStore port. Every read-modify-write runs in one immediate transaction. */
export function createSqliteBlogStore(ctx: SqliteContext): BlogStore {
  const byId = (id: string) => ctx.statement("SELECT * FROM blogs WHERE id = ?").get(id) as BlogRow | undefined;
  /** The blog holding a feed URL key, or else the one a permanent redirect moved away from it. */
  const byKey = (key: string) =>
    (ctx.statement("SELECT * FROM blogs WHERE feed_url_key = ?").get(key) as BlogRow | undefined) ??
    (ctx.statement("SELECT b.* FROM blog_feed_aliases a JOIN blogs b ON b.id = a.blog_id WHERE a.key = ?").get(key) as BlogRow | undefined);
  const insert = (stored: StoredBlog) => ctx.statement(INSERT_BLOG).run(blogToParams(stored, feedUrlKey(stored.blog.feedUrl)));
  const save = (stored: StoredBlog) => ctx.statement(UPDATE_BLOG).run(blogToParams(stored, feedUrlKey(stored.blog.feedUrl)));
  const ofSource = (sourceId: string) =>
    (ctx.statement(`SELECT * FROM blogs b WHERE ${BLOGS_OF_SOURCE} ORDER BY b.id`).all({ sourceId }) as BlogRow[]).map(rowToStoredBlog);

  return {
    list: (query) =>
      ctx.guard("blogs.list", () => {
        const { where, params, orderBy } = blogListSql(query);
        const { total } = ctx.statement(`SELECT count(*) AS total FROM blogs b WHERE ${where}`).get(...params) as { total: number };
        const limit = wholeNumber(query.limit);
        if (limit === 0 || total === 0) return { items: [], total };
        const rows = ctx
          .statement(`SELECT b.* FROM blogs b WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
          .all(...params, limit, wholeNumber(query.offset)) as BlogRow[];
        return { items: rows.map(rowToBlog), total };
      }),

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
        const rows = ctx.statement("SELECT * FROM blogs WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as BlogRow[];
        return rows.map(rowToBlog);
      }),

    upsertFromSource: (input) =>
      ctx.guard("blogs.upsertFromSource", () =>
        ctx.write(() => {
          const now = new Date();
          const row = byKey(feedUrlKey(input.feedUrl));
          if (!row) {
            const stored = blogFromSource(input, now);
            insert(stored);
            return { outcome: "added" as const, blog: stored.blog };
          }
          const { outcome, stored } = mergeFromSource(rowToStoredBlog(row), input, now);
          if (outcome !== "unchanged" && outcome !== "skipped-deleted") save(stored);
          return { outcome, blog: stored.blog };
        }),
      ),

    edit: (id, edit) =>
      ctx.guard("blogs.edit", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row || row.status === "deleted") return null;
          const stored = applyEdit(rowToStoredBlog(row), edit, new Date());
          save(stored);
          return stored.blog;
        }),
      ),

    softDelete: (id, at) =>
      ctx.guard("blogs.softDelete", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row) return false;
          const now = new Date();
          save(markDeleted(rowToStoredBlog(row), at ?? now, now));
          return true;
        }),
      ),

    markMissingInactive: (sourceId, keepIds) =>
      ctx.guard("blogs.markMissingInactive", () =>
        ctx.write(() => {
          const now = new Date();
          const rows = ctx
            .statement(
              `SELECT * FROM blogs b WHERE b.status != 'deleted' AND ${BLOGS_OF_SOURCE}
                 AND b.id NOT IN (SELECT value FROM json_each(@keep))`,
            )
            .all({ sourceId, keep: JSON.stringify(keepIds) }) as BlogRow[];
          let marked = 0;
          for (const stored of rows.map(rowToStoredBlog)) {
            if (stored.blog.sourceIds.length > 1) {
              // Another source still lists it: it stays, this source just stops claiming it.
              save(withoutSource(stored, sourceId, now));
            } else if (stored.blog.status !== "inactive") {
              save(markInactive(stored, now));
              marked++;
            }
          }
          return marked;
        }),
      ),

    detachSource: (sourceId) =>
      ctx.guard("blogs.detachSource", () =>
        ctx.write(() => {
          const now = new Date();
          const orphans: string[] = [];
          for (const stored of ofSource(sourceId)) {
            const detached = withoutSource(stored, sourceId, now);
            save(detached);
            // Deleted blogs are left out: purging them would free their URL for re-creation.
            if (detached.blog.sourceIds.length === 0 && detached.blog.status !== "deleted") orphans.push(detached.blog.id);
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
      ctx.guard("blogs.categories", () =>
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
        const sql = options.everyone ? EVERY_FETCHABLE_BLOG_SQL : DUE_BLOGS_SQL;
        const rows = ctx.statement(sql).all({ now: toIso(now), limit: wholeNumber(limit) }) as BlogRow[];
        return rows.map(rowToBlog);
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
          const stored = applyFetch(rowToStoredBlog(row), record, newFeedUrl, new Date());
          save(stored);
          if (newFeedUrl) {
            // Lists that still name the old address find the moved blog, not a new twin.
            ctx.statement(
              "INSERT INTO blog_feed_aliases (key, blog_id) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET blog_id = excluded.blog_id",
            ).run(row.feed_url_key, id);
            ctx.statement("DELETE FROM blog_feed_aliases WHERE key = ?").run(feedUrlKey(newFeedUrl));
          }
          return stored.blog;
        }),
      ),

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
        const row = ctx.statement(`SELECT count(*) AS n FROM blogs b WHERE ${conditions.join(" AND ")}`).get(...params) as { n: number };
        return row.n;
      }),

    healthCounts: (query) => ctx.guard("blogs.healthCounts", () => countHealth(ctx, query)),

    publicTotals: () =>
      ctx.guard("blogs.publicTotals", () => {
        const row = ctx.statement(`SELECT count(*) AS blogs, coalesce(sum(b.item_count), 0) AS items FROM blogs b WHERE ${PUBLIC_BLOG}`).get() as { blogs: number; items: number };
        return { blogs: row.blogs, items: row.items };
      }),
  };
}

