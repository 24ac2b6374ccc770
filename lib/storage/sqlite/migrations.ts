import type Database from "better-sqlite3";
import { legacyFeedValues, legacyOrigins } from "../legacy-origins.js";
import { originKind } from "../provenance.js";
import { StorageError, type SourceType } from "../types.js";
import { keptStatement } from "./database.js";
import { isHostTitle } from "../../url/normalise.js";
import { originsToJson } from "./rows.js";

/** One schema step; its position in MIGRATIONS (1-based) is the `user_version` it leads to. */
export interface Migration {
  description: string;
  up(db: Database.Database): void;
}

const BLOG_STATUSES = "'pending','active','error','gone','inactive','deleted'";

/**
 * The schema history. Append new steps; never edit a step that has shipped,
 * because databases in the field already ran it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    description: "blogs, items, sources, meta and leases with their indexes",
    up(db) {
      db.exec(`
        CREATE TABLE blogs (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          title_sort TEXT NOT NULL,
          description TEXT,
          feed_url TEXT NOT NULL,
          feed_url_key TEXT NOT NULL,
          site_url TEXT,
          feed_type TEXT,
          category TEXT,
          tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
          photo TEXT,
          author TEXT,
          status TEXT NOT NULL CHECK (status IN (${BLOG_STATUSES})),
          resume_status TEXT CHECK (resume_status IN (${BLOG_STATUSES})),
          item_count INTEGER NOT NULL DEFAULT 0,
          pinned INTEGER NOT NULL DEFAULT 0,
          hidden INTEGER NOT NULL DEFAULT 0,
          notes TEXT,
          source TEXT,
          source_id TEXT,
          source_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(source_ids)),
          microsub_feed_id TEXT,
          microsub_channel_id TEXT,
          microsub_channel_name TEXT,
          skip_item_fetch INTEGER NOT NULL DEFAULT 0,
          last_fetch_at TEXT,
          last_item_at TEXT,
          last_error TEXT,
          next_fetch_at TEXT,
          failure_count INTEGER NOT NULL DEFAULT 0,
          etag TEXT,
          last_modified TEXT,
          icon_url TEXT,
          owner_edited TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(owner_edited)),
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          deleted_at TEXT
        ) STRICT;
        -- Deleted blogs keep their key, so a source can never re-create them.
        CREATE UNIQUE INDEX blogs_feed_url_key ON blogs (feed_url_key);
        CREATE INDEX blogs_by_title ON blogs (pinned DESC, title_sort, id);
        CREATE INDEX blogs_by_recent ON blogs (pinned DESC, last_item_at DESC, last_fetch_at DESC, title_sort, id);
        CREATE INDEX blogs_by_category ON blogs (category);
        CREATE INDEX blogs_by_source ON blogs (source);
        CREATE INDEX blogs_due ON blogs (next_fetch_at, id)
          WHERE skip_item_fetch = 0 AND status NOT IN ('deleted', 'gone', 'inactive');

        CREATE TABLE items (
          id TEXT PRIMARY KEY,
          blog_id TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
          uid TEXT NOT NULL,
          url TEXT,
          title TEXT,
          summary TEXT,
          content TEXT,
          published TEXT,
          author TEXT,
          photo TEXT,
          categories TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(categories)),
          fetched_at TEXT NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX items_blog_uid ON items (blog_id, uid);
        -- Newest-first pages walk these in order and stop after limit + offset rows.
        CREATE INDEX items_newest ON items (published DESC, id DESC);
        CREATE INDEX items_blog_newest ON items (blog_id, published DESC, id DESC);
        -- Retention of undated items goes by when they were fetched.
        CREATE INDEX items_undated_by_fetch ON items (fetched_at) WHERE published IS NULL;

        CREATE TABLE sources (
          id TEXT PRIMARY KEY,
          type TEXT NOT NULL,
          name TEXT NOT NULL,
          enabled INTEGER NOT NULL DEFAULT 1,
          settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
          status TEXT NOT NULL DEFAULT 'pending',
          last_error TEXT,
          last_sync_at TEXT,
          last_import TEXT CHECK (last_import IS NULL OR json_valid(last_import)),
          etag TEXT,
          last_modified TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX sources_by_creation ON sources (created_at, id);

        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL CHECK (json_valid(value))
        ) STRICT;

        CREATE TABLE leases (
          name TEXT PRIMARY KEY,
          holder TEXT NOT NULL,
          expires_at TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    description: "feed URL keys a blog was known under before a permanent redirect moved it",
    up(db) {
      db.exec(`
        CREATE TABLE blog_feed_aliases (
          key TEXT PRIMARY KEY,
          blog_id TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE
        ) STRICT;
        CREATE INDEX blog_feed_aliases_by_blog ON blog_feed_aliases (blog_id);
      `);
    },
  },
  {
    description: "push subscriptions (WebSub, rssCloud), one per blog and kind",
    up(db) {
      db.exec(`
        CREATE TABLE push_subscriptions (
          id TEXT PRIMARY KEY,
          blog_id TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('websub', 'rsscloud')),
          hub TEXT NOT NULL,
          topic TEXT NOT NULL,
          callback_token TEXT NOT NULL UNIQUE,
          secret TEXT,
          state TEXT NOT NULL CHECK (state IN ('requested', 'active', 'denied', 'failed', 'unsubscribing')),
          lease_seconds INTEGER,
          expires_at TEXT,
          last_error TEXT,
          requested_at TEXT,
          verified_at TEXT,
          last_notified_at TEXT,
          distrusted_until TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
        -- No foreign key: a deleted blog's subscription must outlive it until the hub is told.
        CREATE UNIQUE INDEX push_subscriptions_blog_kind ON push_subscriptions (blog_id, kind);
        CREATE INDEX push_subscriptions_topic ON push_subscriptions (kind, topic);
      `);
    },
  },
  {
    description: "the blogrolls of followed blogs, what they recommend, and the suggestions the owner dismissed",
    up(db) {
      db.exec(`
        CREATE TABLE blog_blogrolls (
          blog_id TEXT PRIMARY KEY REFERENCES blogs (id) ON DELETE CASCADE,
          url TEXT,
          via TEXT,
          checked_at TEXT NOT NULL,
          etag TEXT,
          last_modified TEXT,
          count INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE TABLE recommendations (
          blog_id TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          feed_key TEXT NOT NULL,
          feed_url TEXT NOT NULL,
          site_url TEXT,
          title TEXT,
          description TEXT,
          PRIMARY KEY (blog_id, feed_key)
        ) STRICT;
        CREATE INDEX recommendations_by_feed ON recommendations (feed_key);
        CREATE TABLE dismissed_suggestions (
          feed_key TEXT PRIMARY KEY,
          feed_url TEXT NOT NULL,
          dismissed_at TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    description:
      "a schedule per blog (recent post dates, chosen interval, Retry-After) and its health (failing since, moved from)",
    up(db) {
      db.exec(`
        ALTER TABLE blogs ADD COLUMN failing_since TEXT;
        ALTER TABLE blogs ADD COLUMN recent_posts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(recent_posts));
        ALTER TABLE blogs ADD COLUMN last_post_at TEXT;
        ALTER TABLE blogs ADD COLUMN fetch_interval INTEGER;
        ALTER TABLE blogs ADD COLUMN fetch_reason TEXT;
        ALTER TABLE blogs ADD COLUMN wait_until TEXT;
        ALTER TABLE blogs ADD COLUMN moved_from TEXT;
        ALTER TABLE blogs ADD COLUMN moved_at TEXT;
        -- What is known already: the newest stored post, and a failing blog's last failure as the start of its run.
        UPDATE blogs SET last_post_at = last_item_at;
        UPDATE blogs SET failing_since = last_fetch_at WHERE status = 'error';
        CREATE INDEX blogs_by_last_post ON blogs (last_post_at);
      `);
    },
  },
  {
    description:
      "what the owner says about a blog: relationship (XFN), public note, fediverse handle and its profile page",
    up(db) {
      db.exec(`
        ALTER TABLE blogs ADD COLUMN relationship TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(relationship));
        ALTER TABLE blogs ADD COLUMN note TEXT;
        ALTER TABLE blogs ADD COLUMN fediverse TEXT;
        ALTER TABLE blogs ADD COLUMN fediverse_url TEXT;
      `);
    },
  },
  {
    description:
      "gone blogs are checked weekly (the due index keeps them) and a run of redirects ending in 404/410 is dated",
    up(db) {
      db.exec(`
        ALTER TABLE blogs ADD COLUMN dead_end_since TEXT;
        DROP INDEX blogs_due;
        CREATE INDEX blogs_due ON blogs (next_fetch_at, id)
          WHERE skip_item_fetch = 0 AND status NOT IN ('deleted', 'inactive');
      `);
    },
  },
  {
    description:
      "a title stored as the owner's that is only the host name (a saved placeholder) is untyped again, and read afresh",
    up(db) {
      // Kept statements: Node 24 aborts when the GC collects one (see keptStatement).
      const typed = keptStatement(
        db,
        "SELECT id, title, feed_url, moved_from, owner_edited FROM blogs WHERE EXISTS (SELECT 1 FROM json_each(owner_edited) WHERE value = 'title')",
      ).all() as Array<{
        id: string;
        title: string;
        feed_url: string;
        moved_from: string | null;
        owner_edited: string;
      }>;
      // The validators go too: the next fetch reads the feed whole, and its own title replaces the placeholder.
      const untype = keptStatement(
        db,
        "UPDATE blogs SET owner_edited = ?, etag = NULL, last_modified = NULL WHERE id = ?",
      );
      for (const blog of typed) {
        if (!isHostTitle(blog.title, blog.feed_url, blog.moved_from)) continue;
        const fields = (JSON.parse(blog.owner_edited) as string[]).filter((field) => field !== "title");
        untype.run(JSON.stringify(fields), blog.id);
      }
    },
  },
  {
    description: "the live event log: posts stored and blogs changing, as every process sharing the file reads them",
    up(db) {
      // No foreign keys: a removed blog's event outlives the blog. The triggers that fill it are made by init (live-events.ts).
      db.exec(`
        CREATE TABLE live_events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          at TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('post', 'blog')),
          blog_id TEXT NOT NULL,
          item_id TEXT,
          change TEXT CHECK (change IN ('added', 'updated', 'removed'))
        ) STRICT;
        CREATE INDEX live_events_by_at ON live_events (at);
      `);
    },
  },
  {
    description:
      "every origin that lists a blog (its sources and the owner) and what its feed says of itself, replacing source ids and the inactive status",
    up(db) {
      db.exec(`
        ALTER TABLE blogs ADD COLUMN origins TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(origins));
        ALTER TABLE blogs ADD COLUMN feed_values TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(feed_values));
      `);
      backfillOrigins(db);
      db.exec(`
        -- A blog no longer listed is one without origins; its status is its feed's again.
        UPDATE blogs SET status = coalesce(resume_status, 'pending') WHERE status = 'inactive';
        DROP INDEX blogs_due;
        CREATE INDEX blogs_due ON blogs (next_fetch_at, id)
          WHERE skip_item_fetch = 0 AND status != 'deleted' AND origins != '[]';
        ALTER TABLE blogs DROP COLUMN resume_status;
        ALTER TABLE blogs DROP COLUMN source_id;
        ALTER TABLE blogs DROP COLUMN source_ids;
        -- Each source's list is read in full once more, to record the values it gives.
        UPDATE sources SET etag = NULL, last_modified = NULL;
      `);
    },
  },
  {
    description: "each blog's budget of push notifications (hints that bring its next fetch forward)",
    up(db) {
      db.exec("ALTER TABLE blogs ADD COLUMN hint_budget_at TEXT;");
    },
  },
  {
    description:
      "counts without reading every row: indexes the blog counts read alone, moved blogs indexed, items counted as they come and go",
    up(db) {
      db.exec(`
        CREATE INDEX blogs_by_state ON blogs (status, hidden, skip_item_fetch, fetch_reason, last_post_at, failing_since, moved_from IS NOT NULL, item_count, origins);
        CREATE INDEX blogs_moved ON blogs (moved_from) WHERE moved_from IS NOT NULL;
        -- The public totals (listed, not hidden, not deleted or gone: visibility.ts's rule word for word) read this one alone.
        CREATE INDEX blogs_public ON blogs (hidden, status, origins, item_count) WHERE hidden = 0 AND status NOT IN ('deleted', 'gone') AND origins != '[]';
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
        INSERT INTO counters (name, value) VALUES ('items', (SELECT count(*) FROM items));
        CREATE TRIGGER items_counted_in AFTER INSERT ON items BEGIN
          UPDATE counters SET value = value + 1 WHERE name = 'items';
        END;
        CREATE TRIGGER items_counted_out AFTER DELETE ON items BEGIN
          UPDATE counters SET value = value - 1 WHERE name = 'items';
        END;
      `);
    },
  },
  {
    description:
      "the blogs each origin lists, in a table of their own (an index the filter by source reads), kept by triggers from the origins column",
    up(db) {
      db.exec(`
        CREATE TABLE blog_origins (
          origin_id TEXT NOT NULL,
          blog_id TEXT NOT NULL REFERENCES blogs (id) ON DELETE CASCADE,
          PRIMARY KEY (origin_id, blog_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX blog_origins_by_blog ON blog_origins (blog_id);
        INSERT OR IGNORE INTO blog_origins (origin_id, blog_id)
          SELECT json_extract(o.value, '$.id'), b.id FROM blogs b, json_each(b.origins) o;
        CREATE TRIGGER blog_origins_added AFTER INSERT ON blogs BEGIN
          INSERT OR IGNORE INTO blog_origins (origin_id, blog_id)
            SELECT json_extract(value, '$.id'), NEW.id FROM json_each(NEW.origins);
        END;
        CREATE TRIGGER blog_origins_changed AFTER UPDATE OF origins ON blogs WHEN OLD.origins IS NOT NEW.origins BEGIN
          DELETE FROM blog_origins WHERE blog_id = NEW.id;
          INSERT OR IGNORE INTO blog_origins (origin_id, blog_id)
            SELECT json_extract(value, '$.id'), NEW.id FROM json_each(NEW.origins);
        END;
      `);
    },
  },
  {
    description:
      "blogs never fetched here that have a fediverse handle (the sync looks their handles up again), indexed by id",
    up(db) {
      db.exec(
        "CREATE INDEX blogs_unfetched_handles ON blogs (id) WHERE skip_item_fetch = 1 AND fediverse IS NOT NULL;",
      );
    },
  },
];

interface LegacyBlogRow {
  id: string;
  status: string;
  source: string | null;
  source_id: string | null;
  source_ids: string;
  owner_edited: string;
  feed_url: string;
  title: string;
  description: string | null;
  site_url: string | null;
  category: string | null;
  photo: string | null;
  author: string | null;
  created_at: string;
}

/** Origins and feed values of blogs stored with source ids (lib/storage/legacy-origins.ts). */
function backfillOrigins(db: Database.Database): void {
  // Kept statements: Node 24 aborts when the GC collects one (see keptStatement).
  const kinds = new Map(
    (keptStatement(db, "SELECT id, type FROM sources").all() as Array<{ id: string; type: SourceType }>).map((row) => [
      row.id,
      originKind(row.type),
    ]),
  );
  const update = keptStatement(db, "UPDATE blogs SET origins = ?, feed_values = ?, source = ? WHERE id = ?");
  const rows = keptStatement(
    db,
    "SELECT id, status, source, source_id, source_ids, owner_edited, feed_url, title, description, site_url, category, photo, author, created_at FROM blogs",
  ).all() as LegacyBlogRow[];
  for (const row of rows) {
    const sourceIds = [
      ...new Set([...(row.source_id ? [row.source_id] : []), ...(JSON.parse(row.source_ids) as string[])]),
    ];
    const legacy = {
      status: row.status,
      source: row.source,
      sourceIds,
      ownerEdited: JSON.parse(row.owner_edited) as string[],
      feedUrl: row.feed_url,
      title: row.title,
      description: row.description,
      siteUrl: row.site_url,
      category: row.category,
      photo: row.photo,
      author: row.author,
      createdAt: new Date(row.created_at),
    };
    const origins = legacyOrigins(legacy, (id) => kinds.get(id));
    // The public `source` is the kind of the first origin from now on.
    update.run(originsToJson(origins), JSON.stringify(legacyFeedValues(legacy)), origins[0]?.kind ?? null, row.id);
  }
}

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

const versionReaders = new WeakMap<Database.Database, Database.Statement>();

function userVersion(db: Database.Database): number {
  let reader = versionReaders.get(db);
  if (!reader) versionReaders.set(db, (reader = keptStatement(db, "PRAGMA user_version").pluck()));
  return reader.get() as number;
}

/**
 * Brings the database up to SCHEMA_VERSION, one transaction per step. The
 * version is read again inside each write transaction, so two processes
 * starting together never run a step twice.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const stepOnce = db.transaction((target: number) => {
    const current = userVersion(db);
    if (current >= target) return;
    migrations[current].up(db);
    db.exec(`PRAGMA user_version = ${current + 1}`);
  });
  let current = userVersion(db);
  if (current > migrations.length) {
    throw new StorageError(
      `The database has schema version ${current}, newer than this code knows (${migrations.length})`,
    );
  }
  while (current < migrations.length) {
    stepOnce.immediate(current + 1);
    current = userVersion(db);
  }
  return current;
}
