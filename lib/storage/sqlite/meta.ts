import type { MetaStore } from "../types.js";
import type { SqliteContext } from "./database.js";
import { toIso } from "./rows.js";

/** Small JSON documents by key, and named leases, behind the MetaStore port. */
export function createSqliteMetaStore(ctx: SqliteContext): MetaStore {
  return {
    get: <T>(key: string) =>
      ctx.guard("meta.get", () => {
        const row = ctx.statement("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
        return row ? (JSON.parse(row.value) as T) : null;
      }),

    set: (key, value) =>
      ctx.guard("meta.set", () => {
        ctx
          .statement(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          )
          .run(key, JSON.stringify(value ?? null));
      }),

    acquireLease: (name, holder, ttlMs, now = new Date()) =>
      ctx.guard("meta.acquireLease", () =>
        // One conditional upsert under BEGIN IMMEDIATE: of two processes racing, the
        // second waits for the first's commit and then sees its unexpired lease.
        ctx.write(() => {
          const result = ctx
            .statement(
              `INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt)
               ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
               WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`,
            )
            .run({ name, holder, expiresAt: toIso(new Date(now.getTime() + ttlMs)), now: toIso(now) });
          return result.changes === 1;
        }),
      ),

    releaseLease: (name, holder) =>
      ctx.guard("meta.releaseLease", () => {
        ctx.statement("DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holder);
      }),
  };
}
