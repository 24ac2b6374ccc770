/**
 * Graceful shutdown of the standalone server: SIGTERM (and SIGINT) during a
 * sync stop the scheduler, let the writes in progress finish, close the
 * database and exit 0; the run is not reported as failed, the lease is
 * released (the next start syncs at once) and nothing is left "running".
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import { STATUS_KEY, type StoredSyncStatus } from "../../lib/sync/status-record.js";
import {
  checkDatabase,
  farmConfig,
  startStandalone,
  useFarmAndFolder,
  waitFor,
  type FeedFarm,
} from "../hardening/standalone-process.js";

const FEEDS = 200;
let farm: FeedFarm;
let folder: string;
useFarmAndFolder(FEEDS, "blogroll-shutdown-", (started, created) => {
  farm = started;
  folder = created;
});
const config = () => farmConfig(farm, { concurrency: 4, perHostConcurrency: 4 });

// Two starts of the server from source and a sync of 200 feeds: over a minute when the machine is loaded
// (the whole suite beside other work), so the limit only stops a test that hangs.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(
    `${signal} mid-sync: exit 0, database closed intact, nothing left running, the next start syncs at once`,
    { timeout: 180_000 },
    async () => {
      const run = path.join(folder, signal);
      mkdirSync(run);
      const file = path.join(run, "blogroll.db");
      const hitsBefore = farm.feedHits();
      const server = await startStandalone(run, config());
      await waitFor("some feeds fetched", () => farm.feedHits() - hitsBefore >= 20);
      server.child.kill(signal);
      assert.equal(await server.exited, 0, server.output());
      assert.match(server.output(), new RegExp(`${signal} received: stopping`));
      assert.doesNotMatch(
        server.output(),
        /sync failed|Error:| {4}at /,
        "a stopped run is not a failure, and no stack is printed",
      );
      assert.ok(farm.feedHits() - hitsBefore < FEEDS, "stopped before the whole sync had run");

      const check = checkDatabase(file);
      assert.equal(check.integrity, "ok");
      assert.equal(check.blogs, FEEDS);
      assert.equal(check.duplicateItems, 0);

      const storage = createSqliteStorage(file);
      await storage.init();
      try {
        const status = await storage.meta.get<StoredSyncStatus>(STATUS_KEY);
        assert.equal(status?.runningUntil, null, "no run is left marked as running");
        assert.equal(await storage.meta.acquireLease("sync", "someone-else", 1000), true, "the lease was released");
        await storage.meta.releaseLease("sync", "someone-else");
      } finally {
        await storage.close();
      }

      // A restart syncs at once (no dead lease to wait out) and completes.
      const again = await startStandalone(run, config());
      try {
        await waitFor(
          "a completed sync after the restart",
          async () => {
            const response = await fetch(`${again.base}/blogrollapi/api/status`);
            const body = (await response.json()) as { lastSync: string | null; isRunning: boolean };
            return body.lastSync !== null && !body.isRunning;
          },
          45_000,
        );
      } finally {
        again.child.kill("SIGTERM");
        assert.equal(await again.exited, 0);
      }
    },
  );
}
