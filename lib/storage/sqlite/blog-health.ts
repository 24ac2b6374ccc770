import type { BlogHealthCounts, BlogHealthQuery } from "../types.js";
import { LISTED_BLOG } from "./visibility.js";
import type { SqliteContext } from "./database.js";
import { toIso } from "./rows.js";

/** Blogs whose health conditions mean something: listed and not deleted. */
const WATCHED = `b.status != 'deleted' AND ${LISTED_BLOG}`;

/** The WHERE condition (table alias `b`) of a health condition, shared by the list filter and the counts. */
export function healthSql(
  condition: "dormant" | "failing" | "moved",
  query: BlogHealthQuery,
): { sql: string; params: unknown[] } {
  switch (condition) {
    case "dormant":
      return {
        sql: `(${WATCHED} AND b.last_post_at IS NOT NULL AND b.last_post_at < ?)`,
        params: [toIso(query.dormantBefore)],
      };
    case "failing":
      return {
        sql: `(${WATCHED} AND b.status = 'error' AND b.failing_since <= ?)`,
        params: [toIso(query.failingSince)],
      };
    case "moved":
      return { sql: `(${WATCHED} AND b.moved_from IS NOT NULL)`, params: [] };
  }
}

/** Every count of BlogHealthCounts in one pass over the blogs. */
export function countHealth(ctx: SqliteContext, query: BlogHealthQuery): BlogHealthCounts {
  const dormant = healthSql("dormant", query);
  const failing = healthSql("failing", query);
  const moved = healthSql("moved", query);
  const fetched = `${WATCHED} AND b.skip_item_fetch = 0 AND b.status != 'gone'`;
  const row = ctx
    .statement(
      `SELECT
         coalesce(sum(b.skip_item_fetch = 0 AND (b.status = 'gone' OR NOT (${LISTED_BLOG}))), 0) AS off,
         coalesce(sum(${WATCHED} AND b.skip_item_fetch = 1), 0) AS external,
         coalesce(sum(${fetched} AND b.status = 'pending'), 0) AS pending,
         coalesce(sum(${fetched} AND b.status = 'error'), 0) AS backoff,
         coalesce(sum(${fetched} AND b.status = 'active' AND b.fetch_reason = 'push'), 0) AS push,
         coalesce(sum(${fetched} AND b.status = 'active' AND b.fetch_reason = 'server'), 0) AS server,
         coalesce(sum(${fetched} AND b.status = 'active' AND coalesce(b.fetch_reason, '') NOT IN ('push', 'server')), 0) AS schedule,
         coalesce(sum(${dormant.sql}), 0) AS dormant,
         coalesce(sum(${failing.sql}), 0) AS failing,
         coalesce(sum(${WATCHED} AND b.status = 'error'), 0) AS erroring,
         coalesce(sum(b.status = 'gone'), 0) AS gone,
         coalesce(sum(${moved.sql}), 0) AS moved,
         coalesce(sum(${WATCHED} AND b.status = 'active' AND NOT coalesce(${dormant.sql}, 0)), 0) AS healthy
       FROM blogs b WHERE b.status != 'deleted'`,
    )
    .get(...dormant.params, ...failing.params, ...moved.params, ...dormant.params) as Record<string, number>;
  return {
    freshness: {
      schedule: row.schedule,
      server: row.server,
      push: row.push,
      backoff: row.backoff,
      pending: row.pending,
      external: row.external,
      off: row.off,
    },
    health: {
      healthy: row.healthy,
      dormant: row.dormant,
      failing: row.failing,
      erroring: row.erroring,
      gone: row.gone,
      moved: row.moved,
    },
  };
}
