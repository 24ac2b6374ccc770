import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";
import { Scheduler, type SyncRunner, type SyncStats } from "../../lib/sync/scheduler.js";
import { openTempStorage, type TempStorage } from "./harness.js";

let temp: TempStorage;
let second: Storage;

beforeEach(async () => {
  temp = await openTempStorage();
  // A second connection to the same file, as another process would have.
  second = createSqliteStorage(temp.file);
  await second.init();
});
afterEach(async () => {
  await second.close();
  await temp.cleanup();
});

const stats = (): SyncStats => ({
  lastFullSync: new Date().toISOString(),
  duration: 1,
  sources: { total: 0, success: 0, failed: 0 },
  blogs: { total: 0, success: 0, failed: 0 },
  items: { added: 0, deleted: 0 },
});

test("two schedulers on one SQLite file never run at the same time", async () => {
  let running = 0;
  let peak = 0;
  let runs = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const run: SyncRunner = async () => {
    running++;
    runs++;
    peak = Math.max(peak, running);
    await gate;
    running--;
    return stats();
  };
  const make = (storage: Storage) =>
    new Scheduler({ getStorage: async () => storage, run, interval: 3_600_000, initialDelay: 3_600_000 });
  const a = make(temp.storage);
  const b = make(second);

  const first = a.syncNow();
  // Let a take the lease before b tries.
  while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal((await b.getStatus()).isRunning, true, "b sees a's run");
  assert.equal(await b.syncNow(), false, "b finds the lease taken");
  release();
  assert.equal(await first, true);
  assert.equal(peak, 1);
  assert.equal(runs, 1);

  assert.equal(await b.syncNow(), true, "the lease is free again once a is done");
  assert.equal(runs, 2);
  assert.equal((await a.getStatus()).isRunning, false);
  assert.ok((await a.getStatus()).lastSyncStats);
  await Promise.all([a.stop(), b.stop()]);
});
