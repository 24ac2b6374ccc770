import { newId } from "../id.js";
import { freshSourceState } from "../fresh.js";
import type { Source, SourceStore } from "../types.js";
import type { SqliteContext } from "./database.js";
import { rowToSource, sourceToParams, type SourceRow } from "./rows.js";

const COLUMNS = [
  "id",
  "type",
  "name",
  "enabled",
  "settings",
  "status",
  "last_error",
  "last_sync_at",
  "last_import",
  "etag",
  "last_modified",
  "created_at",
  "updated_at",
] as const;
const INSERT = `INSERT INTO sources (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`;
const UPDATE = `UPDATE sources SET ${COLUMNS.filter((c) => c !== "id")
  .map((c) => `${c} = @${c}`)
  .join(", ")} WHERE id = @id`;

/** The sources table behind the SourceStore port. */
export function createSqliteSourceStore(ctx: SqliteContext): SourceStore {
  const byId = (id: string) => ctx.statement("SELECT * FROM sources WHERE id = ?").get(id) as SourceRow | undefined;
  return {
    list: () =>
      ctx.guard("sources.list", () =>
        (ctx.statement("SELECT * FROM sources ORDER BY created_at, id").all() as SourceRow[]).map(rowToSource),
      ),

    get: (id) =>
      ctx.guard("sources.get", () => {
        const row = byId(id);
        return row ? rowToSource(row) : null;
      }),

    create: (input) =>
      ctx.guard("sources.create", () => {
        const now = new Date();
        const source: Source = {
          id: newId(now.getTime()),
          type: input.type,
          name: input.name,
          enabled: input.enabled ?? true,
          settings: { ...(input.settings ?? {}) },
          ...freshSourceState(),
          createdAt: now,
          updatedAt: now,
        };
        ctx.statement(INSERT).run(sourceToParams(source));
        return source;
      }),

    update: (id, patch) =>
      ctx.guard("sources.update", () =>
        ctx.write(() => {
          const row = byId(id);
          if (!row) return null;
          const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
          const source: Source = { ...rowToSource(row), ...defined, updatedAt: new Date() };
          ctx.statement(UPDATE).run(sourceToParams(source));
          return source;
        }),
      ),

    delete: (id) =>
      ctx.guard("sources.delete", () => ctx.statement("DELETE FROM sources WHERE id = ?").run(id).changes > 0),

    count: () =>
      ctx.guard("sources.count", () => (ctx.statement("SELECT count(*) AS n FROM sources").get() as { n: number }).n),
  };
}
