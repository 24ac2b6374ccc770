/**
 * Crash safety of the standalone server on SQLite: SIGKILL during a sync of
 * a few hundred feeds, then a restart. The database opens and is intact, no
 * item is duplicated, every blog and its owner settings are there, sources
 * are not duplicated, and the status record's "running" lapses on its own.
 * (The full cycle, waiting out the dead run's lease until the next sync
 * completes, is bench/hardening-crash.ts: it takes minutes.)
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import { STATUS_KEY, type StoredSyncStatus } from "../../lib/sync/status-record.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { testOptions } from "../sync/harness.js";
import {
  checkDatabase,
  farmConfig,
  killHard,
  startStandalone,
  useFarmAndFolder,
  waitFor,
  type FeedFarm,
} from "./standalone-process.js";

const FEEDS = 300;
/** The scheduler's lease lifetime: a dead run's "running" lapses within it. */
const LEASE_TTL = 60_000;

let farm: FeedFarm;
let folder: string;
useFarmAndFolder(FEEDS, "blogroll-crash-", (started, created) => {
  farm = started;
  folder = created;
});

test(
  "SIGKILL mid-sync, restart: intact database, no duplicates, blogs and settings kept, status not stuck",
  { timeout: 60_000 },
  async () => {
    const file = path.join(folder, "blogroll.db");
    const first = await startStandalone(folder, farmConfig(farm));
    await waitFor("a third of the feeds fetched", () => farm.feedHits() >= FEEDS / 3);
    const killedAt = Date.now();
    await killHard(first);

    const afterKill = checkDatabase(file);
    assert.equal(afterKill.integrity, "ok");
    assert.equal(afterKill.blogs, FEEDS, "the source refresh had stored every blog");
    assert.equal(afterKill.duplicateItems, 0);

    // The owner edits a blog while the server is down; a restart must keep it.
    const storage = createSqliteStorage(file);
    await storage.init();
    const [edited] = (await storage.blogs.list({ visibility: "admin", limit: 1, offset: 0 })).items;
    await storage.blogs.edit(edited.id, { pinned: true, category: "Edited", notes: "keep me" });
    const status = await storage.meta.get<StoredSyncStatus>(STATUS_KEY);
    assert.ok(status, "the dead run left a status record");
    if (status.runningUntil !== null) {
      assert.ok(
        new Date(status.runningUntil).getTime() <= killedAt + LEASE_TTL + 5000,
        "a dead run's running state lapses within the lease",
      );
    }
    const sourcesBefore = await storage.sources.count();
    await storage.close();

    const second = await startStandalone(folder, farmConfig(farm));
    try {
      const blogs = await (await fetch(`${second.base}/blogrollapi/api/blogs?limit=1000`)).json();
      assert.equal(blogs.total, FEEDS);
      const pinned = blogs.items[0];
      assert.equal(pinned.id, edited.id);
      assert.equal(pinned.pinned, true);
      assert.equal(pinned.category, "Edited");
      const apiStatus = await (await fetch(`${second.base}/blogrollapi/api/status`)).json();
      assert.equal(apiStatus.status, "ok");
      assert.equal(apiStatus.blogs.count, FEEDS);
    } finally {
      await killHard(second);
    }
    const afterRestart = checkDatabase(file);
    assert.equal(afterRestart.integrity, "ok");
    assert.equal(afterRestart.duplicateItems, 0);
    assert.equal(afterRestart.itemsPerBlogOverThree, 0);
    const reopened = createSqliteStorage(file);
    await reopened.init();
    try {
      assert.equal(await reopened.sources.count(), sourcesBefore, "restarting does not duplicate configured sources");
      assert.equal((await reopened.blogs.get(edited.id))?.notes, "keep me");
      // The next sync over what the killed runs left completes: every blog fetched, nothing doubled.
      // (The scheduler waiting out the dead run's lease first is test/sync/scheduler-lease.test.ts;
      // the whole cycle through the child process, bench/hardening-crash.ts.)
      const run = createSyncRunner({
        options: testOptions({ concurrency: 8, perHostConcurrency: 8 }),
        parseInWorkers: false,
      });
      // A "Sync now": every blog, whatever the schedules the killed runs left.
      const stats = await run(reopened, {
        signal: new AbortController().signal,
        everyone: true,
        progress: () => undefined,
      });
      assert.equal(stats.blogs.total, FEEDS);
      assert.equal(stats.blogs.failed, 0);
      const { items: all } = await reopened.blogs.list({ visibility: "admin", limit: FEEDS, offset: 0 });
      assert.ok(
        all.every((blog) => blog.status === "active" && blog.itemCount === 3),
        "every blog synced with its three items",
      );
      assert.equal((await reopened.blogs.get(edited.id))?.category, "Edited", "the sync keeps the owner's settings");
    } finally {
      await reopened.close();
    }
    const afterSync = checkDatabase(file);
    assert.equal(afterSync.integrity, "ok");
    assert.equal(afterSync.duplicateItems, 0);
    assert.equal(afterSync.itemsPerBlogOverThree, 0);
  },
);
