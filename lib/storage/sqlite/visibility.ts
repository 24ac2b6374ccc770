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
/** What the admin sees: everything but deleted blogs. */
export const ADMIN_BLOG = "b.status != 'deleted'";
