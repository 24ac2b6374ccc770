/**
 * The full crash-safety cycle (minutes: each kill leaves a lease that must
 * lapse, up to 60 s): the standalone server on SQLite syncing 300 fixture
 * feeds is SIGKILLed while refreshing its source, a third of the way through
 * the feeds and two thirds through a later run; after each restart the
 * database opens intact with no duplicate item, every blog and its owner
 * settings are there, and in the end a sync completes and the status is no
 * longer "running". The quick version runs in npm test
 * (test/hardening/crash-safety.test.ts).
 *
 *   node --import tsx --test bench/hardening-crash.ts
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { createSqliteStorage } from "../lib/storage/sqlite/index.js";
import {
  checkDatabase,
  farmConfig,
  killHard,
  startFeedFarm,
  startStandalone,
  waitFor,
} from "../test/hardening/standalone-process.js";

const FEEDS = 300;

test("SIGKILL at three points, restarts, and a final sync that completes", { timeout: 600_000 }, async () => {
  const farm = await startFeedFarm(FEEDS, 30);
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-crash-long-"));
  const file = path.join(folder, "blogroll.db");
  // A short interval, so a restarted server retries soon after the dead run's lease lapses.
  const config = farmConfig(farm, { syncInterval: 5000 });
  const checks: string[] = [];
  const outputs: string[] = [];
  try {
    const killPoints: Array<[string, () => boolean]> = [];
    let base = 0;
    killPoints.push(["while refreshing the source", () => farm.server.hits("/list.opml") >= 1]);
    killPoints.push(["a third of the way through the feeds", () => farm.feedHits() - base >= FEEDS / 3]);
    killPoints.push(["two thirds of the way through the feeds", () => farm.feedHits() - base >= (2 * FEEDS) / 3]);
    let editedId: string | null = null;

    for (const [label, reached] of killPoints) {
      base = farm.feedHits();
      const server = await startStandalone(folder, config);
      await waitFor(label, reached, 180_000);
      await killHard(server);
      outputs.push(server.output());
      const check = checkDatabase(file);
      assert.equal(check.integrity, "ok", label);
      assert.equal(check.duplicateItems, 0, label);
      checks.push(`${label}: integrity ${check.integrity}, ${check.blogs} blogs, 0 duplicates`);
      if (editedId === null && check.blogs > 0) {
        const storage = createSqliteStorage(file);
        await storage.init();
        const [blog] = (await storage.blogs.list({ visibility: "admin", limit: 1, offset: 0 })).items;
        await storage.blogs.edit(blog.id, { pinned: true, category: "Edited", notes: "keep me" });
        editedId = blog.id;
        await storage.close();
      }
    }

    const finalStart = Date.now();
    const server = await startStandalone(folder, config);
    try {
      type Status = {
        isRunning: boolean;
        lastSync: string | null;
        lastSyncStats: { blogs: { total: number; failed: number } } | null;
      };
      let status: Status | null = null;
      await waitFor(
        "a sync completing after the last restart",
        async () => {
          status = (await (await fetch(`${server.base}/blogrollapi/api/status`)).json()) as Status;
          return status.lastSync !== null && Date.parse(status.lastSync) > finalStart && !status.isRunning;
        },
        240_000,
      );
      assert.equal(status!.lastSyncStats?.blogs.failed, 0, JSON.stringify(status));
      const blogs = await (await fetch(`${server.base}/blogrollapi/api/blogs?limit=1000`)).json();
      assert.equal(blogs.total, FEEDS);
      assert.equal(blogs.items[0].id, editedId);
      assert.equal(blogs.items[0].category, "Edited");
      assert.ok(blogs.items.every((blog: { status: string }) => blog.status === "active"));
      checks.push(`final: sync completed (${JSON.stringify(status)})`);
    } finally {
      await killHard(server);
      outputs.push(server.output());
    }
    const final = checkDatabase(file);
    assert.equal(final.integrity, "ok");
    assert.equal(final.duplicateItems, 0);
    assert.equal(final.blogs, FEEDS);
    console.log(checks.join("\n"));
  } catch (error) {
    console.log(outputs.join("\n---\n"));
    throw error;
  } finally {
    await farm.server.close();
    rmSync(folder, { recursive: true, force: true });
  }
});
