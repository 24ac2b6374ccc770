import type { Storage } from "../types.js";
import { createSqliteBlogStore } from "./blogs.js";
import { openSqlite } from "./database.js";
import { createSqliteItemStore } from "./items.js";
import { createSqliteMetaStore } from "./meta.js";
import { createSqlitePushStore } from "./push.js";
import { migrate } from "./migrations.js";
import { createSqliteSourceStore } from "./sources.js";
import { createSqliteRecommendationStore } from "./recommendations.js";
import { createLiveTriggers, createSqliteLiveEventStore, dropLiveTriggers } from "./live-events.js";

export { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

/**
 * The embedded storage: one SQLite file (or ":memory:") through better-sqlite3.
 * Opens the file at once (creating its folder); `init()` runs the migrations.
 * Statements are prepared on first use and reused.
 */
export function createSqliteStorage(path: string): Storage {
  const ctx = openSqlite(path);
  return {
    kind: "sqlite",
    blogs: createSqliteBlogStore(ctx),
    items: createSqliteItemStore(ctx),
    sources: createSqliteSourceStore(ctx),
    meta: createSqliteMetaStore(ctx),
    push: createSqlitePushStore(ctx),
    recommendations: createSqliteRecommendationStore(ctx),
    events: createSqliteLiveEventStore(ctx),
    init: () =>
      ctx.guard("init", () => {
        // The live triggers are made from this code's rules, after its migrations (which they could stand in the way
        // of), in one transaction: another process on the file never writes while they are missing.
        ctx.write(() => {
          dropLiveTriggers(ctx.db);
          migrate(ctx.db);
          createLiveTriggers(ctx.db);
        });
      }),
    // Resolved once the checkpoint worker's connection is closed too: nothing touches the files after.
    close: async () => {
      await ctx.guard("close", () => ctx.close());
    },
  };
}
