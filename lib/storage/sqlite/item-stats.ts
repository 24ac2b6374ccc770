import type { SqliteContext } from "./database.js";

/**
 * Recomputes one blog's itemCount and lastItemAt (newest published date, the
 * ISO text's MAX) from its stored items. Call inside the caller's transaction.
 */
export function refreshBlogItemStats(ctx: SqliteContext, blogId: string): void {
  ctx
    .statement(
      `UPDATE blogs SET
         item_count = (SELECT count(*) FROM items WHERE blog_id = @id),
         last_item_at = (SELECT max(published) FROM items WHERE blog_id = @id)
       WHERE id = @id`,
    )
    .run({ id: blogId });
}
