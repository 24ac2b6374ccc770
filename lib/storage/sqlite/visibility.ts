/*
 * Which blogs each reader sees, as WHERE conditions on the blogs table, for
 * the row named `row` (a table alias, or OLD/NEW in a trigger), and for the
 * alias `b` the queries use.
 */

/** Listed: some origin lists it (the origins column is exactly '[]' when none does). */
export const listedBlogSql = (row: string): string => `${row}.origins != '[]'`;

/** Publicly visible: listed, not hidden, not deleted, not gone (error and pending still show). */
export const publicBlogSql = (row: string): string =>
  `${row}.hidden = 0 AND ${row}.status NOT IN ('deleted', 'gone') AND ${listedBlogSql(row)}`;

/** Listed, for the alias `b`. */
export const LISTED_BLOG = listedBlogSql("b");
/** Publicly visible, for the alias `b`. */
export const PUBLIC_BLOG = publicBlogSql("b");
/**
 * Publicly visible, for the alias `b`, checked row by row (the unary plus
 * keeps SQLite off an index range on `hidden`): for queries that read blogs'
 * rows in an order or of one category, since blogs_public holds nearly every
 * blog and a query read through it would read and sort the whole blogroll at
 * each request; this way SQLite walks the list order's index to the page's
 * LIMIT, or a narrower filter's index (a category's).
 */
export const PUBLIC_BLOG_PER_ROW = `+${PUBLIC_BLOG}`;
/** What the admin sees: everything but deleted blogs. */
export const ADMIN_BLOG = "b.status != 'deleted'";
