import { feedUrlKey } from "../../url/normalise.js";
import { keptEntries } from "../recommended.js";
import { type BlogBlogroll, type BlogrollVia, type Recommendation, type RecommendationStore } from "../types.js";
import type { SqliteContext } from "./database.js";
import { toIso } from "./rows.js";

interface BlogrollRow {
  blog_id: string;
  url: string | null;
  via: string | null;
  checked_at: string;
  etag: string | null;
  last_modified: string | null;
  count: number;
}

interface EntryRow {
  feed_url: string;
  site_url: string | null;
  title: string | null;
  description: string | null;
}

const toEntry = (row: EntryRow): Recommendation => ({
  feedUrl: row.feed_url,
  siteUrl: row.site_url,
  title: row.title,
  description: row.description,
});

/**
 * The blogrolls of followed blogs (blog_blogrolls), what each lists
 * (recommendations, one row per blog and feed key) and the dismissed
 * suggestions, behind the RecommendationStore port. A purged blog's rows go
 * with it (foreign keys).
 */
export function createSqliteRecommendationStore(ctx: SqliteContext): RecommendationStore {
  return {
    getBlogroll: (blogId) =>
      ctx.guard("recommendations.getBlogroll", () => {
        const row = ctx.statement("SELECT * FROM blog_blogrolls WHERE blog_id = ?").get(blogId) as
          BlogrollRow | undefined;
        if (!row) return null;
        return {
          blogId: row.blog_id,
          url: row.url,
          via: row.via as BlogrollVia | null,
          checkedAt: new Date(row.checked_at),
          etag: row.etag,
          lastModified: row.last_modified,
          count: row.count,
        } satisfies BlogBlogroll;
      }),

    saveBlogroll: (record, entries) =>
      ctx.guard("recommendations.saveBlogroll", () =>
        ctx.write(() => {
          // A blog gone meanwhile (purged) has nothing to record.
          if (!ctx.statement("SELECT 1 FROM blogs WHERE id = ?").get(record.blogId)) return;
          ctx
            .statement(
              `INSERT INTO blog_blogrolls (blog_id, url, via, checked_at, etag, last_modified, count)
               VALUES (@blog_id, @url, @via, @checked_at, @etag, @last_modified, @count)
               ON CONFLICT (blog_id) DO UPDATE SET url = excluded.url, via = excluded.via, checked_at = excluded.checked_at,
                 etag = excluded.etag, last_modified = excluded.last_modified, count = excluded.count`,
            )
            .run({
              blog_id: record.blogId,
              url: record.url,
              via: record.via,
              checked_at: toIso(record.checkedAt),
              etag: record.etag,
              last_modified: record.lastModified,
              count: record.count,
            });
          if (!entries) return;
          ctx.statement("DELETE FROM recommendations WHERE blog_id = ?").run(record.blogId);
          const insert = ctx.statement(
            `INSERT INTO recommendations (blog_id, position, feed_key, feed_url, site_url, title, description)
             VALUES (@blog_id, @position, @feed_key, @feed_url, @site_url, @title, @description)`,
          );
          keptEntries(entries).forEach((entry, position) =>
            insert.run({
              blog_id: record.blogId,
              position,
              feed_key: entry.key,
              feed_url: entry.feedUrl,
              site_url: entry.siteUrl,
              title: entry.title,
              description: entry.description,
            }),
          );
        }),
      ),

    entries: (blogId) =>
      ctx.guard("recommendations.entries", () =>
        (
          ctx
            .statement(
              "SELECT feed_url, site_url, title, description FROM recommendations WHERE blog_id = ? ORDER BY position",
            )
            .all(blogId) as EntryRow[]
        ).map(toEntry),
      ),

    candidates: ({ minRecommenders, limit }) =>
      ctx.guard("recommendations.candidates", () => {
        const rows = ctx
          .statement(
            `SELECT r.feed_key, COUNT(*) AS n,
                    json_group_array(json_object('blogId', r.blog_id, 'feed_url', r.feed_url, 'site_url', r.site_url,
                                                 'title', r.title, 'description', r.description)) AS outlines
             FROM recommendations r
             WHERE NOT EXISTS (SELECT 1 FROM blogs b WHERE b.feed_url_key = r.feed_key)
               AND NOT EXISTS (SELECT 1 FROM blog_feed_aliases a WHERE a.key = r.feed_key)
               AND NOT EXISTS (SELECT 1 FROM dismissed_suggestions d WHERE d.feed_key = r.feed_key)
             GROUP BY r.feed_key
             HAVING n >= @min
             ORDER BY n DESC, r.feed_key
             LIMIT @limit`,
          )
          .all({ min: Math.max(1, Math.floor(minRecommenders)), limit: Math.max(0, Math.floor(limit)) }) as Array<{
          outlines: string;
        }>;
        return rows.map((row) => ({
          outlines: (JSON.parse(row.outlines) as Array<EntryRow & { blogId: string }>)
            .map((outline) => ({ ...toEntry(outline), blogId: outline.blogId }))
            .sort((a, b) => (a.blogId < b.blogId ? -1 : a.blogId > b.blogId ? 1 : 0)),
        }));
      }),

    dismiss: (feedUrl, at = new Date()) =>
      ctx.guard("recommendations.dismiss", () => {
        ctx
          .statement(
            "INSERT INTO dismissed_suggestions (feed_key, feed_url, dismissed_at) VALUES (?, ?, ?) ON CONFLICT (feed_key) DO NOTHING",
          )
          .run(feedUrlKey(feedUrl), feedUrl, toIso(at));
      }),
  };
}
