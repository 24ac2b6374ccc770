import { PUBLIC_BLOG_PER_ROW } from "./visibility.js";
import type { SqliteContext } from "./database.js";
import { itemColumnsRead, type ItemRow } from "./rows.js";

/**
 * The category's visible blogs, each with its newest post dated up to the
 * horizon (one seek in items_blog_newest per blog), newest first.
 */
export const CATEGORY_BLOGS_SQL = `SELECT b.id AS id,
    (SELECT i.published FROM items i WHERE i.blog_id = b.id AND i.published <= @horizon
      ORDER BY i.published DESC, i.id DESC LIMIT 1) AS newest
  FROM blogs b WHERE b.category = @category AND ${PUBLIC_BLOG_PER_ROW}
  ORDER BY newest DESC`;

/** One blog's newest posts dated up to the horizon and from `floor` on, a range of items_blog_newest. */
export const BLOG_NEWEST_SQL = `SELECT i.* FROM items i WHERE i.blog_id = @blogId AND i.published <= @horizon
  AND i.published >= @floor ORDER BY i.published DESC, i.id DESC LIMIT @wanted`;

/** Posts of the category dated beyond the horizon (few), through each blog's index. */
export const CATEGORY_AHEAD_SQL = `SELECT i.* FROM blogs b CROSS JOIN items i ON i.blog_id = b.id
  WHERE b.category = @category AND ${PUBLIC_BLOG_PER_ROW} AND i.published > @horizon
  ORDER BY i.published DESC, i.id DESC LIMIT @wanted`;

/** Undated posts of the category (few), through each blog's index. */
export const CATEGORY_UNDATED_SQL = `SELECT i.* FROM blogs b CROSS JOIN items i ON i.blog_id = b.id
  WHERE b.category = @category AND ${PUBLIC_BLOG_PER_ROW} AND i.published IS NULL
  ORDER BY i.id DESC LIMIT @wanted`;

/** Newest first, as the items_newest index orders: published desc (ISO text), then id desc. */
const newerFirst = (a: ItemRow, b: ItemRow) =>
  a.published === b.published
    ? a.id < b.id
      ? 1
      : a.id > b.id
        ? -1
        : 0
    : (a.published ?? "") < (b.published ?? "")
      ? 1
      : -1;

/**
 * The first `wanted` posts of a category in list order, driven from the
 * category's blogs rather than by walking every item newest first (which
 * reads the whole table for a small category whose posts are old). Blogs
 * are taken in the order of their newest post; each gives its newest
 * `wanted` posts from its own index (once `wanted` are kept, only those no
 * older than the last of them: a large category's blogs each give a few, not
 * `wanted`), and the walk stops once the posts kept are all newer than the
 * next blog's newest. Posts dated beyond the
 * horizon and undated ones follow, as in the other lists.
 */
export function categoryItemRows(
  ctx: SqliteContext,
  category: string,
  horizon: string,
  wanted: number,
  content = true,
): ItemRow[] {
  const read = (sql: string) => ctx.statement(itemColumnsRead(sql, content));
  let kept: ItemRow[] = [];
  const blogs = ctx.statement(CATEGORY_BLOGS_SQL).all({ category, horizon }) as { id: string; newest: string | null }[];
  for (const blog of blogs) {
    if (blog.newest === null) break; // the rest have no post dated up to the horizon
    const last = kept[wanted - 1];
    if (last && (last.published ?? "") > blog.newest) break;
    // ISO dates sort as text, and every date sorts after "".
    const floor = last?.published ?? "";
    const rows = read(BLOG_NEWEST_SQL).all({ blogId: blog.id, horizon, floor, wanted }) as ItemRow[];
    kept = [...kept, ...rows].sort(newerFirst).slice(0, wanted);
  }
  for (const sql of [CATEGORY_AHEAD_SQL, CATEGORY_UNDATED_SQL]) {
    if (kept.length >= wanted) break;
    kept.push(...(read(sql).all({ category, horizon, wanted: wanted - kept.length }) as ItemRow[]));
  }
  return kept;
}
