import type Database from "better-sqlite3";
import { PAGE_FIELDS } from "../live-log.js";
import type { BlogChange, Item, LiveEvent, LiveEventStore, LivePost } from "../types.js";
import { wholeNumber } from "./blog-list.js";
import { publicBlogSql } from "./visibility.js";
import type { SqliteContext } from "./database.js";
import { BLOG_COLUMNS, rowToBlog, rowToItem, toIso, type BlogRow, type ItemRow } from "./rows.js";

/*
 * The live event log on SQLite. Triggers write it, so every write to blogs
 * and items records its event in the same transaction whatever code path made
 * it, and a second process on the same file reads it. Seqs come from
 * AUTOINCREMENT: writers take the file's lock one at a time, so seqs are given
 * in commit order and a reader that saw seq n never later finds one below n.
 */

/** The current time as the adapter stores dates (24-character ISO text). */
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

const columnOf = (field: string): string => {
  const column = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  if (!(BLOG_COLUMNS as readonly string[]).includes(column)) throw new Error(`no blog column for page field ${field}`);
  return column;
};

/** The triggers by name. Made from the code's own visibility rule and page fields, so they are (re)made at every start. */
function liveTriggers(): Record<string, string> {
  const oldPublic = `(${publicBlogSql("OLD")})`;
  const newPublic = `(${publicBlogSql("NEW")})`;
  const pageChanged = [
    ...PAGE_FIELDS.map(columnOf).map((column) => `OLD.${column} IS NOT NEW.${column}`),
    // Its first posts: the page shows them now.
    "(OLD.last_post_at IS NULL AND NEW.last_post_at IS NOT NULL)",
  ].join(" OR ");
  const blogEvent = (change: string, row: string) =>
    `INSERT INTO live_events (at, kind, blog_id, change) VALUES (${NOW}, 'blog', ${row}.id, ${change});`;
  return {
    // A post newer than any its blog showed before (an undated one counts as new). A blog never read before has none.
    live_post: `AFTER INSERT ON items
      WHEN (SELECT b.last_post_at FROM blogs b WHERE b.id = NEW.blog_id) < coalesce(NEW.published, '~')
      BEGIN INSERT INTO live_events (at, kind, blog_id, item_id) VALUES (${NOW}, 'post', NEW.blog_id, NEW.id); END`,
    live_blog_added: `AFTER INSERT ON blogs WHEN ${newPublic} BEGIN ${blogEvent("'added'", "NEW")} END`,
    live_blog_changed: `AFTER UPDATE ON blogs
      WHEN ${oldPublic} IS NOT ${newPublic} OR (${newPublic} AND (${pageChanged}))
      BEGIN ${blogEvent(`CASE WHEN NOT ${oldPublic} THEN 'added' WHEN NOT ${newPublic} THEN 'removed' ELSE 'updated' END`, "NEW")} END`,
    live_blog_removed: `AFTER DELETE ON blogs WHEN ${oldPublic} BEGIN ${blogEvent("'removed'", "OLD")} END`,
  };
}

/**
 * Drops the live triggers (inside the caller's transaction). Init does so
 * before migrating: a trigger naming a column would stop a step from
 * dropping or renaming it.
 */
export function dropLiveTriggers(db: Database.Database): void {
  for (const name of Object.keys(liveTriggers())) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
}

/** Makes the live triggers anew (inside the caller's transaction): a start after an upgrade gets the new rule. */
export function createLiveTriggers(db: Database.Database): void {
  for (const [name, body] of Object.entries(liveTriggers())) {
    db.exec(`DROP TRIGGER IF EXISTS ${name}; CREATE TRIGGER ${name} ${body};`);
  }
}

const livePost = ({ content: _content, ...post }: Item): LivePost => post;

interface EventRow {
  seq: number;
  at: string;
  kind: "post" | "blog";
  blog_id: string;
  item_id: string | null;
  change: BlogChange | null;
}

/** The live event log behind the LiveEventStore port. */
export function createSqliteLiveEventStore(ctx: SqliteContext): LiveEventStore {
  const inList = "SELECT value FROM json_each(?)";
  return {
    after: (after, limit) =>
      ctx.guard("events.after", () => {
        const rows = ctx
          .statement(
            "SELECT seq, at, kind, blog_id, item_id, change FROM live_events WHERE seq > ? ORDER BY seq LIMIT ?",
          )
          .all(Math.floor(after), wholeNumber(limit)) as EventRow[];
        if (rows.length === 0) return [];
        const itemIds = rows.flatMap((row) => (row.item_id ? [row.item_id] : []));
        // Every column but the content, which may be long and which events never carry.
        const postRows = ctx
          .statement(
            `SELECT id, blog_id, uid, url, title, summary, NULL AS content, published, author, photo, categories, fetched_at FROM items WHERE id IN (${inList})`,
          )
          .all(JSON.stringify(itemIds)) as ItemRow[];
        const items = new Map(postRows.map((row) => [row.id, livePost(rowToItem(row))]));
        const blogIds = [...new Set(rows.map((row) => row.blog_id))];
        const blogs = new Map(
          (
            ctx
              .statement(`SELECT b.* FROM blogs b WHERE b.id IN (${inList}) AND ${publicBlogSql("b")}`)
              .all(JSON.stringify(blogIds)) as BlogRow[]
          ).map((row) => [row.id, rowToBlog(row)]),
        );
        return rows.map((row): LiveEvent => {
          const common = {
            seq: row.seq,
            at: new Date(row.at),
            blogId: row.blog_id,
            blog: blogs.get(row.blog_id) ?? null,
          };
          return row.kind === "post"
            ? { kind: "post", ...common, item: (row.item_id && items.get(row.item_id)) || null }
            : { kind: "blog", ...common, change: row.change as BlogChange };
        });
      }),

    bounds: () =>
      ctx.guard("events.bounds", () => {
        const row = ctx
          .statement(
            `SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'live_events') AS newest, (SELECT min(seq) FROM live_events) AS oldest`,
          )
          .get() as { newest: number | null; oldest: number | null };
        return { newest: row.newest ?? 0, oldest: row.oldest };
      }),

    trimBefore: (cutoff) =>
      ctx.guard("events.trimBefore", () =>
        ctx.write(
          () =>
            ctx
              .statement("DELETE FROM live_events WHERE seq <= (SELECT max(seq) FROM live_events WHERE at < ?)")
              .run(toIso(cutoff)).changes,
        ),
      ),
  };
}
