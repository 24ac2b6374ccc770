import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type Database from "better-sqlite3";
import { openSqliteFile } from "../support/sqlite-file.js";
import { createSqliteStorage, MIGRATIONS, SCHEMA_VERSION } from "../../lib/storage/sqlite/index.js";
import { migrate } from "../../lib/storage/sqlite/migrations.js";
import { openSqlite, SQLITE_CACHE_KIB } from "../../lib/storage/sqlite/database.js";
import { startCheckpointer } from "../../lib/storage/sqlite/checkpointer.js";
import { StorageError, type Blog } from "../../lib/storage/types.js";
import { DUE_SCHEDULED_SQL, DUE_UNSCHEDULED_SQL, EVERY_FETCHABLE_BLOG_SQL } from "../../lib/storage/sqlite/blogs.js";
import { itemListSql, PRUNE_CONDITIONS } from "../../lib/storage/sqlite/items.js";
import {
  BLOG_NEWEST_SQL,
  CATEGORY_BLOGS_SQL,
  CATEGORY_AHEAD_SQL,
  CATEGORY_UNDATED_SQL,
  categoryItemRows,
} from "../../lib/storage/sqlite/category-items.js";
import { runStorageContract } from "./contract.js";
import { runLiveEventContract } from "./live-events-contract.js";
import { checkMigrated, LEGACY_CASES, legacyFeedUrl, type LegacySourceName } from "./legacy-blogs.js";
import { feedUrlKey } from "../../lib/url/normalise.js";

const folder = mkdtempSync(path.join(tmpdir(), "blogroll-sqlite-"));
after(() => rmSync(folder, { recursive: true, force: true }));
let fileNumber = 0;
const freshFile = () => path.join(folder, `db-${++fileNumber}`, "blogroll.db");

console.log("storage backend: sqlite (better-sqlite3 file)");
runStorageContract("storage backend: sqlite (better-sqlite3 file)", async () => createSqliteStorage(freshFile()));
runLiveEventContract("storage backend: sqlite (better-sqlite3 file)", async () => createSqliteStorage(freshFile()));

describe("sqlite specifics", () => {
  it("creates the parent folder, turns WAL on and records the schema version", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    assert.ok(existsSync(file));
    await storage.close();
    const db = openSqliteFile(file, { readonly: true });
    try {
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it("bounds the connection's page cache to SQLITE_CACHE_KIB (SQLite's 2 MB, not better-sqlite3's 16 MB)", () => {
    const { statement } = openSqlite(freshFile());
    assert.equal(SQLITE_CACHE_KIB, 2000);
    assert.equal(statement("PRAGMA cache_size").pluck().get(), -SQLITE_CACHE_KIB);
  });

  it("takes checkpoints off the committing connection: a commit past 1 000 pages of log leaves the database file alone, the checkpoint worker copies it", async () => {
    const file = freshFile();
    const ctx = openSqlite(file);
    try {
      ctx.db.exec("CREATE TABLE t (x TEXT)");
      const insert = ctx.statement("INSERT INTO t (x) VALUES (?)");
      await ctx.guard("setup", () => ctx.checkpoint());
      const before = statSync(file).size;
      // About 2 000 pages of log in one commit: SQLite's default would checkpoint inside this commit, on this thread.
      await ctx.guard("write", () =>
        ctx.write(() => {
          for (let row = 0; row < 2000; row++) insert.run("x".repeat(3000));
        }),
      );
      assert.equal(statSync(file).size, before, "the commit copied the log into the database itself");
      const result = await ctx.checkpoint();
      assert.ok(result && result.log >= 2000 && result.checkpointed === result.log, JSON.stringify(result));
      assert.ok(statSync(file).size > before + 2000 * 3000);
    } finally {
      ctx.close();
    }
  });

  it("gives checkpoints back to the connection when the checkpoint worker cannot start", async () => {
    let lost = 0;
    const checkpointer = startCheckpointer(path.join(folder, "no-such-folder", "blogroll.db"), 100, () => lost++);
    await assert.rejects(checkpointer.checkpoint(), /directory does not exist/);
    assert.equal(lost, 1);
    await assert.rejects(checkpointer.checkpoint(), /no checkpoint worker/, "not started again");
    assert.equal(lost, 1);
  });

  it("keeps data across reopening and runs migrations only once", async () => {
    const file = freshFile();
    const first = createSqliteStorage(file);
    await first.init();
    await first.init();
    const { blog } = await first.blogs.upsertFromSource({
      feedUrl: "https://keep.example/feed",
      title: "Kept",
      source: "manual",
    });
    await first.items.upsertMany(
      blog.id,
      [
        {
          uid: "a",
          url: null,
          title: "A",
          summary: null,
          content: null,
          published: new Date("2024-01-02T03:04:05.678Z"),
          author: null,
          photo: null,
          categories: ["x"],
        },
      ],
      new Date(),
    );
    await first.meta.set("status", { ok: true });
    const posts = [new Date("2024-01-02T03:04:05.678Z"), new Date("2024-01-01T00:00:00.000Z")];
    const waitUntil = new Date("2024-01-03T00:00:00.000Z");
    await first.blogs.recordFetch(blog.id, {
      at: new Date("2024-01-02T12:00:00.000Z"),
      status: "error",
      nextFetchAt: waitUntil,
      failureCount: 1,
      schedule: { recentPosts: posts, fetchInterval: 3_600_000, fetchReason: "retry-after", waitUntil },
    });
    await first.close();

    const second = createSqliteStorage(file);
    await second.init();
    assert.equal((await second.blogs.get(blog.id))?.title, "Kept");
    const [item] = await second.items.list({ blogId: blog.id, limit: 5, offset: 0 });
    assert.equal(item.published?.toISOString(), "2024-01-02T03:04:05.678Z");
    assert.deepEqual(item.categories, ["x"]);
    assert.deepEqual(await second.meta.get("status"), { ok: true });
    const kept = (await second.blogs.get(blog.id))!;
    assert.deepEqual(
      [kept.recentPosts, kept.lastPostAt, kept.fetchInterval, kept.fetchReason, kept.waitUntil],
      [posts, posts[0], 3_600_000, "retry-after", waitUntil],
    );
    assert.deepEqual(kept.failingSince, new Date("2024-01-02T12:00:00.000Z"), "the schedule survives a restart");
    await second.close();
  });

  it("the migration step that untypes a title stored as the owner's that is only the host name drops its validators too", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    const { blog: saved } = await storage.blogs.upsertFromSource({
      feedUrl: "https://www.saved.example/feed",
      title: "saved.example",
      source: "manual",
    });
    const { blog: named } = await storage.blogs.upsertFromSource({
      feedUrl: "https://named.example/feed",
      title: "x",
      source: "manual",
    });
    await storage.blogs.edit(named.id, { title: "My Friend" });
    await storage.close();
    // As an older version stored it: the placeholder marked as typed, with validators.
    const db = openSqliteFile(file);
    try {
      db.prepare(
        `UPDATE blogs SET owner_edited = '["title","tags"]', etag = '"v1"', last_modified = 'x' WHERE id = ?`,
      ).run(saved.id);
      db.prepare(`UPDATE blogs SET etag = '"v2"' WHERE id = ?`).run(named.id);
      const step = MIGRATIONS.find((migration) =>
        migration.description.startsWith("a title stored as the owner's that is only the host name"),
      );
      assert.ok(step);
      step.up(db);
      const row = (id: string) =>
        db.prepare("SELECT owner_edited, etag, last_modified FROM blogs WHERE id = ?").get(id);
      assert.deepEqual(row(saved.id), { owner_edited: '["tags"]', etag: null, last_modified: null });
      assert.deepEqual(
        row(named.id),
        { owner_edited: '["title"]', etag: '"v2"', last_modified: null },
        "a title the owner really typed stays",
      );
    } finally {
      db.close();
    }
  });

  it("applies a later migration step once, and rolls a failing step back whole", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    await storage.close();
    const db = openSqliteFile(file);
    try {
      const addColumn = {
        description: "test: a column",
        up: (d: Database.Database) => d.exec("ALTER TABLE meta ADD COLUMN note TEXT"),
      };
      assert.equal(migrate(db, [...MIGRATIONS, addColumn]), SCHEMA_VERSION + 1);
      assert.equal(migrate(db, [...MIGRATIONS, addColumn]), SCHEMA_VERSION + 1, "a second run changes nothing");
      const broken = {
        description: "test: fails half-way",
        up: (d: Database.Database) => {
          d.exec("CREATE TABLE half (x TEXT)");
          throw new Error("step failed");
        },
      };
      assert.throws(() => migrate(db, [...MIGRATIONS, addColumn, broken]), /step failed/);
      assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION + 1);
      assert.equal(
        (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get() as { n: number }).n,
        0,
      );
    } finally {
      db.close();
    }
  });

  it("brings a database from before the owner's fields up: its blogs have no relationship, note or handle yet", async () => {
    const file = freshFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const db = openSqliteFile(file);
    try {
      // The schema before the step, as a database in the field would be.
      const step = MIGRATIONS.findIndex((migration) =>
        migration.description.startsWith("what the owner says about a blog"),
      );
      migrate(db, MIGRATIONS.slice(0, step));
      const created = "2025-01-01T00:00:00.000Z";
      db.prepare(
        `INSERT INTO blogs (id, title, title_sort, feed_url, feed_url_key, status, source, created_at, updated_at)
        VALUES ('5e0000000000000000000001', 'Before', 'before', 'https://before.example/feed', ?, 'active', 'manual', ?, ?)`,
      ).run(feedUrlKey("https://before.example/feed"), created, created);
    } finally {
      db.close();
    }
    const upgraded = createSqliteStorage(file);
    await upgraded.init();
    const read = (await upgraded.blogs.get("5e0000000000000000000001"))!;
    assert.deepEqual(
      [read.title, read.relationship, read.note, read.fediverse, read.fediverseUrl],
      ["Before", [], null, null, null],
    );
    await upgraded.close();
  });

  it("gives blogs stored with source ids their origins, and an inactive status back its feed's", async () => {
    const file = freshFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const db = openSqliteFile(file);
    const ORIGINS_STEP = MIGRATIONS.findIndex((step) => step.description.startsWith("every origin that lists a blog"));
    migrate(db, MIGRATIONS.slice(0, ORIGINS_STEP));
    const created = "2025-01-01T00:00:00.000Z";
    const sourceIds: Record<LegacySourceName, string> = {
      opml: "5f0000000000000000000001",
      feedland: "5f0000000000000000000002",
      gone: "5f0000000000000000000003",
    };
    const addSource = db.prepare(
      "INSERT INTO sources (id, type, name, etag, last_modified, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    addSource.run(sourceIds.opml, "opml_url", "A list", '"v1"', "Wed, 01 Jan 2025 00:00:00 GMT", created, created);
    addSource.run(sourceIds.feedland, "feedland", "FeedLand", '"v2"', null, created, created);
    const addBlog =
      db.prepare(`INSERT INTO blogs (id, title, title_sort, feed_url, feed_url_key, category, status, resume_status, hidden, source, source_id, source_ids, owner_edited, last_fetch_at, created_at, updated_at)
      VALUES (@id, @title, @title_sort, @feed_url, @feed_url_key, @category, @status, @resume_status, @hidden, @source, @source_id, @source_ids, @owner_edited, @created, @created, @created)`);
    for (const [index, legacy] of LEGACY_CASES.entries()) {
      const ids = legacy.sourceIds.map((name) => sourceIds[name]);
      addBlog.run({
        id: `5e00000000000000000000${String(index).padStart(2, "0")}`,
        title: legacy.title,
        title_sort: legacy.title.toLowerCase(),
        feed_url: legacyFeedUrl(index),
        feed_url_key: feedUrlKey(legacyFeedUrl(index)),
        category: legacy.category,
        status: legacy.status,
        resume_status: legacy.status === "inactive" ? "active" : null,
        hidden: legacy.ownerEdited.includes("hidden") ? 1 : 0,
        source: legacy.source,
        source_id: ids[0] ?? null,
        source_ids: JSON.stringify(ids),
        owner_edited: JSON.stringify(legacy.ownerEdited),
        created,
      });
    }
    db.close();
    const storage = createSqliteStorage(file);
    try {
      await storage.init();
      await checkMigrated(storage, sourceIds);
      assert.equal(
        (await storage.blogs.listDue(new Date(), 100)).length,
        LEGACY_CASES.filter((legacy) => legacy.origins.length > 0).length,
        "unlisted blogs are not fetched",
      );
    } finally {
      await storage.close();
    }
  });

  it("brings a database from before the push hint budget up: its blogs have taken no hint yet", async () => {
    const file = freshFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const db = openSqliteFile(file);
    try {
      const step = MIGRATIONS.findIndex((migration) =>
        migration.description.startsWith("each blog's budget of push notifications"),
      );
      migrate(db, MIGRATIONS.slice(0, step));
      const created = "2025-01-01T00:00:00.000Z";
      db.prepare(
        `INSERT INTO blogs (id, title, title_sort, feed_url, feed_url_key, status, source, created_at, updated_at)
        VALUES ('5e0000000000000000000001', 'Before', 'before', 'https://before.example/feed', ?, 'active', 'manual', ?, ?)`,
      ).run(feedUrlKey("https://before.example/feed"), created, created);
    } finally {
      db.close();
    }
    const upgraded = createSqliteStorage(file);
    try {
      await upgraded.init();
      const id = "5e0000000000000000000001";
      const read = (await upgraded.blogs.get(id))!;
      assert.deepEqual([read.title, read.hintBudgetAt], ["Before", null]);
      await upgraded.blogs.recordHint(id, { budgetAt: new Date(0) });
      assert.equal((await upgraded.blogs.get(id))?.hintBudgetAt?.getTime(), 0);
    } finally {
      await upgraded.close();
    }
  });

  it("counts the items already stored when it starts counting them, and keeps counting", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    const { blog } = await storage.blogs.upsertFromSource({
      feedUrl: "https://counted.example/feed",
      title: "Counted",
      source: "manual",
    });
    const item = (uid: string) => ({
      uid,
      url: null,
      title: uid,
      summary: null,
      content: null,
      published: new Date("2024-01-02T00:00:00Z"),
      author: null,
      photo: null,
      categories: [],
    });
    await storage.items.upsertMany(blog.id, [item("a"), item("b"), item("c")], new Date());
    await storage.close();
    // The database as the step before the counting one left it.
    const before = MIGRATIONS.findIndex((step) => step.description.startsWith("counts without reading every row"));
    const db = openSqliteFile(file);
    db.exec(
      `DROP TRIGGER items_counted_in; DROP TRIGGER items_counted_out; DROP TABLE counters; DROP INDEX blogs_by_state; DROP INDEX blogs_moved; DROP INDEX blogs_public; DROP TRIGGER blog_origins_added; DROP TRIGGER blog_origins_changed; DROP TABLE blog_origins; DROP INDEX blogs_unfetched_handles; PRAGMA user_version = ${before}`,
    );
    db.close();
    const reopened = createSqliteStorage(file);
    await reopened.init();
    assert.equal(await reopened.items.count(), 3);
    await reopened.items.upsertMany(blog.id, [item("d")], new Date());
    assert.equal((await reopened.items.store(blog.id, [], new Date(), 2)).trimmed, 2);
    assert.equal(await reopened.items.count(), 2);
    await reopened.close();
  });

  it("mirrors each blog's origins in blog_origins from an older database on, and keeps them as blogs are added, change and go", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    const sourceA = "5e00000000000000000000aa";
    const sourceB = "5e00000000000000000000bb";
    const listed = (feedUrl: string, sourceId: string) =>
      storage.blogs.upsertFromSource({ feedUrl, title: feedUrl, source: "opml", sourceId });
    const { blog: first } = await listed("https://first.example/feed", sourceA);
    await listed("https://first.example/feed", sourceB);
    await storage.close();
    // The database as the step before the table left it.
    const step = MIGRATIONS.findIndex((migration) => migration.description.startsWith("the blogs each origin lists"));
    const db = openSqliteFile(file);
    db.exec(
      `DROP TRIGGER blog_origins_added; DROP TRIGGER blog_origins_changed; DROP TABLE blog_origins; DROP INDEX blogs_unfetched_handles; PRAGMA user_version = ${step}`,
    );
    db.close();
    const reopened = createSqliteStorage(file);
    await reopened.init();
    const rows = () => {
      const reader = openSqliteFile(file, { readonly: true });
      try {
        return reader.prepare("SELECT origin_id, blog_id FROM blog_origins ORDER BY origin_id, blog_id").all();
      } finally {
        reader.close();
      }
    };
    const bySource = async (id: string) =>
      (await reopened.blogs.list({ visibility: "admin", origin: { id }, limit: 10, offset: 0 })).items.map(
        (blog) => blog.title,
      );
    assert.deepEqual(rows(), [
      { origin_id: sourceA, blog_id: first.id },
      { origin_id: sourceB, blog_id: first.id },
    ]);
    const { blog: second } = await reopened.blogs.upsertFromSource({
      feedUrl: "https://second.example/feed",
      title: "https://second.example/feed",
      source: "opml",
      sourceId: sourceB,
    });
    assert.deepEqual(await bySource(sourceB), ["https://first.example/feed", "https://second.example/feed"]);
    await reopened.blogs.unlist(sourceA, { only: [first.id] });
    assert.deepEqual(await bySource(sourceA), []);
    await reopened.blogs.purge(second.id);
    assert.deepEqual(rows(), [{ origin_id: sourceB, blog_id: first.id }]);
    await reopened.close();
  });

  it("refuses a database written by a newer schema", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    await storage.close();
    const db = openSqliteFile(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const newer = createSqliteStorage(file);
    await assert.rejects(
      newer.init(),
      (error: unknown) => error instanceof StorageError && /newer/.test(error.message),
    );
    await newer.close();
  });

  it("wraps driver errors in StorageError without SQL text", async () => {
    const storage = createSqliteStorage(freshFile());
    await storage.init();
    const { blog } = await storage.blogs.upsertFromSource({
      feedUrl: "https://x.example/feed",
      title: "X",
      source: "manual",
    });
    await assert.rejects(
      storage.items.upsertMany(
        "0123456789abcdef01234567",
        [
          {
            uid: "a",
            url: null,
            title: null,
            summary: null,
            content: null,
            published: null,
            author: null,
            photo: null,
            categories: [],
          },
        ],
        new Date(),
      ),
      (error: unknown) =>
        error instanceof StorageError && /FOREIGN KEY/.test(error.message) && !/INSERT|SELECT/.test(error.message),
    );
    await assert.rejects(
      storage.blogs.recordFetch(blog.id, {
        at: new Date(Number.NaN),
        status: "active",
        nextFetchAt: null,
        failureCount: 0,
      }),
      StorageError,
    );
    await storage.close();
    await assert.rejects(
      storage.blogs.get(blog.id),
      (error: unknown) => error instanceof StorageError && /blogs\.get/.test(error.message),
    );
  });

  it("shares leases and writes between two connections to one file", async () => {
    const file = freshFile();
    const first = createSqliteStorage(file);
    const second = createSqliteStorage(file);
    await Promise.all([first.init(), second.init()]);
    const now = new Date();
    assert.equal(await first.meta.acquireLease("sync", "process-1", 60_000, now), true);
    assert.equal(await second.meta.acquireLease("sync", "process-2", 60_000, now), false);
    await first.blogs.upsertFromSource({ feedUrl: "https://shared.example/feed", title: "Shared", source: "manual" });
    const again = await second.blogs.upsertFromSource({
      feedUrl: "http://shared.example/feed/",
      title: "Shared",
      source: "manual",
    });
    assert.equal(again.outcome, "unchanged");
    await first.meta.releaseLease("sync", "process-1");
    assert.equal(await second.meta.acquireLease("sync", "process-2", 60_000, now), true);
    await Promise.all([first.close(), second.close()]);
  });

  it("a fetch's record sets only the columns it changes: the blogs' indexes over the others are not written again", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    const { blog } = await storage.blogs.upsertFromSource({
      feedUrl: "https://columns.example/feed",
      title: "Columns",
      source: "manual",
    });
    // Fires for each listed column an UPDATE sets (SET lists it), whether or not its value changes.
    const watcher = openSqliteFile(file);
    const watched = ["title", "title_sort", "feed_url_key", "category", "source", "origins", "hidden", "pinned"];
    watcher.exec("CREATE TABLE set_columns (name TEXT NOT NULL)");
    for (const column of watched)
      watcher.exec(
        `CREATE TRIGGER watch_${column} AFTER UPDATE OF ${column} ON blogs BEGIN INSERT INTO set_columns VALUES ('${column}'); END`,
      );
    const setColumns = () =>
      (watcher.prepare("SELECT name FROM set_columns ORDER BY rowid").all() as { name: string }[]).map(
        (row) => row.name,
      );
    const at = new Date("2026-11-27T10:00:00.000Z");
    const next = new Date("2026-11-27T11:00:00.000Z");
    const fetched = await storage.blogs.recordFetch(blog.id, {
      at,
      status: "active",
      nextFetchAt: next,
      failureCount: 0,
    });
    assert.deepEqual(setColumns(), [], "a fetch that changed none of them set none");
    assert.equal(fetched?.lastFetchAt?.toISOString(), at.toISOString());
    const read = (await storage.blogs.get(blog.id)) as Blog;
    assert.equal(read.nextFetchAt?.toISOString(), next.toISOString());
    assert.equal(read.title, "Columns");

    watcher.exec(
      "CREATE TRIGGER watch_status AFTER UPDATE OF status ON blogs BEGIN INSERT INTO set_columns VALUES ('status'); END",
    );
    await storage.blogs.recordFetch(blog.id, { at, status: "error", nextFetchAt: next, failureCount: 1 });
    assert.deepEqual(setColumns(), ["status"], "a failed fetch: its status set, none of the others");
    assert.equal(((await storage.blogs.get(blog.id)) as Blog).status, "error");
    await storage.close();
  });

  it("works in memory", async () => {
    const storage = createSqliteStorage(":memory:");
    await storage.init();
    await storage.sources.create({ type: "manual", name: "m" });
    assert.equal(await storage.sources.count(), 1);
    await storage.close();
  });

  it("a category's newest posts read a few posts of each of its blogs, not a page's worth of each", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    // 40 blogs whose posts interleave: the newest 20 are one of each of the first 20 blogs.
    const now = Date.now();
    const MINUTE = 60_000;
    for (let b = 0; b < 40; b++) {
      const { blog } = await storage.blogs.upsertFromSource({
        feedUrl: `https://b${b}.example/feed`,
        title: `B${b}`,
        source: "manual",
        category: "Tech",
      });
      await storage.items.upsertMany(
        blog.id,
        Array.from({ length: 30 }, (_, k) => ({
          uid: `p${k}`,
          url: null,
          title: `B${b} post ${k}`,
          summary: null,
          content: null,
          published: new Date(now - (k * 40 + b + 1) * MINUTE),
          author: null,
          photo: null,
          categories: [],
        })),
        new Date(),
      );
    }
    const expected = (await storage.items.list({ limit: 20, offset: 0 })).map((item) => item.title);
    const ctx = openSqlite(file);
    let rowsRead = 0;
    const counting = {
      ...ctx,
      statement: (sql: string) => {
        const statement = ctx.statement(sql);
        return {
          all: (...params: unknown[]) => {
            const rows = statement.all(...params);
            if (sql === BLOG_NEWEST_SQL) rowsRead += rows.length;
            return rows;
          },
        } as unknown as Database.Statement;
      },
    };
    try {
      const rows = categoryItemRows(counting, "Tech", new Date(now + 86_400_000).toISOString(), 20);
      assert.deepEqual(
        rows.map((row) => row.title),
        expected,
      );
      assert.deepEqual(expected.slice(0, 3), ["B0 post 0", "B1 post 0", "B2 post 0"]);
      // 20 blogs are visited; each gave 20 posts before (400), now the first 20 and few of the others'.
      assert.ok(rowsRead <= 100, `posts read: ${rowsRead}`);
    } finally {
      ctx.db.close();
      await storage.close();
    }
  });

  it("the adapter's item pages and due list run on indexes, without a sort step", async () => {
    const file = freshFile();
    const storage = createSqliteStorage(file);
    await storage.init();
    await storage.close();
    const db = openSqliteFile(file, { readonly: true });
    const plan = (sql: string, params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((row) => row.detail)
        .join(" | ");
    try {
      const planOf = (parts: ReturnType<typeof itemListSql>) =>
        parts.map((part) => plan(part.sql, [...part.params, 20, 40]));
      const publicPlans = planOf(itemListSql({ limit: 20, offset: 40 }));
      assert.equal(publicPlans.length, 3, "dated up to a day ahead, dated further ahead, undated");
      for (const publicPlan of publicPlans) {
        assert.match(publicPlan, /SEARCH i USING INDEX items_newest \(published[<>=]\?\)/);
        assert.match(publicPlan, /SEARCH b USING INDEX sqlite_autoindex_blogs_1 \(id=\?\)/);
        assert.doesNotMatch(publicPlan, /TEMP B-TREE/);
      }
      const blogPlans = planOf(itemListSql({ blogId: "0123456789abcdef01234567", limit: 20, offset: 0 }));
      for (const blogPlan of blogPlans) {
        assert.match(blogPlan, /SEARCH i USING INDEX items_blog_newest \(blog_id=\?/);
        assert.doesNotMatch(blogPlan, /TEMP B-TREE/);
      }
      // A category is read through its blogs' index: never a walk over every item.
      for (const sql of [CATEGORY_BLOGS_SQL, BLOG_NEWEST_SQL, CATEGORY_AHEAD_SQL, CATEGORY_UNDATED_SQL]) {
        const categoryPlan = plan(sql, [
          {
            category: "Tech",
            horizon: "2024-01-01T00:00:00.000Z",
            floor: "",
            blogId: "0123456789abcdef01234567",
            wanted: 20,
          },
        ]);
        assert.doesNotMatch(categoryPlan, /SCAN i\b|items_newest/, categoryPlan);
        assert.match(categoryPlan, /items_blog_newest \(blog_id=\?/, categoryPlan);
      }
      // Due blogs are index ranges, never a walk over every blog at each run.
      const due = { now: "2024-01-01T00:00:00.000Z", afterAt: "", afterId: "", limit: 5 };
      assert.match(
        plan(DUE_UNSCHEDULED_SQL, [due]),
        /^SEARCH blogs USING INDEX blogs_due \(next_fetch_at=\? AND id>\?\)$/,
      );
      assert.match(
        plan(DUE_SCHEDULED_SQL, [due]),
        /^SEARCH blogs USING INDEX blogs_due \(\(next_fetch_at,id\)>\(\?,\?\) AND next_fetch_at<\?\)$/,
      );
      assert.match(
        plan(EVERY_FETCHABLE_BLOG_SQL, [due]),
        /^SEARCH blogs USING INDEX sqlite_autoindex_blogs_1 \(id>\?\)$/,
      );
      for (const sql of [DUE_UNSCHEDULED_SQL, DUE_SCHEDULED_SQL, EVERY_FETCHABLE_BLOG_SQL])
        assert.doesNotMatch(plan(sql, [due]), /TEMP B-TREE/);
      // Retention runs at every sync: with nothing to prune it reads two empty index ranges, never the items.
      for (const condition of PRUNE_CONDITIONS) {
        for (const sql of [`SELECT DISTINCT blog_id FROM ${condition}`, `DELETE FROM ${condition}`]) {
          assert.match(
            plan(sql, [{ cutoff: "2024-01-01T00:00:00.000Z" }]),
            /^SEARCH items USING (COVERING )?INDEX items_(newest \(published<\?\)|undated_by_fetch \(fetched_at<\?\))/,
            sql,
          );
        }
      }
    } finally {
      db.close();
    }
  });
});
