import type { SqliteContext } from "./database.js";
import { futureHorizon } from "../future.js";

/**
 * Recomputes one blog's itemCount and lastItemAt (newest published date, the
 * ISO text's MAX, a day ahead at most) from its stored items. Call inside the caller's transaction.
 */
export function refreshBlogItemStats(ctx: SqliteContext, blogId: string): void {
  ctx
    .statement(
      `UPDATE blogs SET
         item_count = (SELECT count(*) FROM items WHERE blog_id = @id),
         last_item_at = (SELECT max(published) FROM items WHERE blog_id = @id AND published <= @horizon)
       WHERE id = @id`,
    )
    // A post dated more than a day ahead does not make the blog "recent" for months.
    .run({ id: blogId, horizon: futureHorizon().toISOString() });
}
