import type { BlogListQuery, BlogStatus } from "../types.js";
import { healthSql } from "./blog-health.js";
import { ADMIN_BLOG, LISTED_BLOG, PUBLIC_BLOG, PUBLIC_BLOG_PER_ROW } from "./visibility.js";

const ORDER_BY_TITLE = "b.pinned DESC, b.title_sort, b.id";
// DESC puts NULLs last in SQLite: dated blogs first, then by last fetch, never-fetched last.
const ORDER_BY_RECENT = "b.pinned DESC, b.last_item_at DESC, b.last_fetch_at DESC, b.title_sort, b.id";

export interface BlogListSql {
  /** For counting the blogs (public ones through blogs_public alone). */
  where: string;
  /** For reading a page of them in `orderBy` (the same conditions: see PUBLIC_BLOG_PER_ROW). */
  pageWhere: string;
  params: unknown[];
  orderBy: string;
}

/** The WHERE clause (table alias `b`), its parameters and the ORDER BY for a blogs.list query. */
export function blogListSql(query: BlogListQuery): BlogListSql {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.category !== undefined) {
    conditions.push("b.category = ?");
    params.push(query.category);
  }
  if (query.source !== undefined) {
    conditions.push("b.source = ?");
    params.push(query.source);
  }
  if (query.origin !== undefined) {
    // blog_origins mirrors the origins column (triggers): an index range, not a read of every blog's origins.
    conditions.push("b.id IN (SELECT blog_id FROM blog_origins WHERE origin_id = ?)");
    params.push(query.origin.id);
    if (query.origin.shared !== undefined)
      conditions.push(`json_array_length(b.origins) ${query.origin.shared ? ">" : "="} 1`);
  }
  if (query.search) {
    // instr, not LIKE: the search text is literal, "%" and "_" included.
    const needle = query.search.toLowerCase();
    conditions.push(
      "(instr(b.title_sort, ?) > 0 OR instr(lower(b.feed_url), ?) > 0 OR instr(lower(coalesce(b.site_url, '')), ?) > 0)",
    );
    params.push(needle, needle, needle);
  }
  if (query.status === "hidden") conditions.push("b.hidden = 1");
  else if (query.status === "unlisted") conditions.push(`NOT (${LISTED_BLOG})`);
  else if (query.status !== undefined) {
    conditions.push("b.status = ?");
    params.push(query.status satisfies BlogStatus);
  }
  if (query.health) {
    const health = healthSql(query.health.condition, query.health);
    conditions.push(health.sql);
    params.push(...health.params);
  }
  const visible = query.visibility === "public" ? [PUBLIC_BLOG, PUBLIC_BLOG_PER_ROW] : [ADMIN_BLOG, ADMIN_BLOG];
  return {
    where: [visible[0], ...conditions].join(" AND "),
    pageWhere: [visible[1], ...conditions].join(" AND "),
    params,
    orderBy: query.sort === "recent" ? ORDER_BY_RECENT : ORDER_BY_TITLE,
  };
}

/** A non-negative whole number for LIMIT/OFFSET (SQLite reads a negative LIMIT as "no limit"). */
export const wholeNumber = (value: number): number => (Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
