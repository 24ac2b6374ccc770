import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { Storage } from "../../lib/storage/types.js";
import { Scheduler, STATUS_KEY, type StoredSyncStatus, type SyncRunner, type SyncStats } from "../../lib/sync/scheduler.js";
import { openTempStorage, type TempStorage } from "./harness.js";

let temp: TempStorage;

beforeEach(async () => {
  temp = await openTempStorage();
});
afterEach(() => temp.cleanup());

const stats = (): SyncStats => ({
  lastFullSync: new Date().toISOString(),
  duration: 1,
  sources: { total: 0, success: 0, failed: 0 },
  blogs: { total: 3, success: 3, failed: 0 },
  items: { added: 0, deleted: 0 },
});

const until = (check: () => boolean | Promise<boolean>, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const tick = async () => {
      if (await check()) resolve();
      else if (Date.now() - started > ms) reject(new Error(`not within ${ms} ms`));
      else setTimeout(tick, 10);
    };
    void tick();
  });

/** A run that waits for `release()` before finishing. */
function gatedRun(): { run: SyncRunner; runs: () => number; release(): void; contexts: Parameters<SyncRunner>[1][] } {
  let release: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (release = resolve));
  let runs = 0;
  const contexts: Parameters<SyncRunner>[1][] = [];
  return {
    runs: () => runs,
    contexts,
    release: () => {
      release();
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    run: async (_storage, context) => {
      runs++;
      contexts.push(context);
      await gate;
      return stats();
    },
  };
}

test("the first sync comes after initialDelay, then one every interval", async () => {
  let runs = 0;
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: async () => {
      runs++;
      return stats();
    },
    interval: 60,
    initialDelay: 30,
  });
  assert.equal((await scheduler.getStatus()).nextSync, null, "nothing planned before start");
  scheduler.start();
  const planned = new Date((await scheduler.getStatus()).nextSync!).getTime();
  assert.ok(planned <= Date.now() + 30, "the first sync is planned initialDelay after start");
  assert.equal(runs, 0, "not at once");
  await until(() => runs >= 3, 5000);
  await scheduler.stop();
  const stopped = runs;
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(runs, stopped, "no run after stop()");
});

test("a long initialDelay holds the first sync back", async () => {
  let runs = 0;
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: async () => {
      runs++;
      return stats();
    },
    interval: 10,
    initialDelay: 3_600_000,
  });
  scheduler.start();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(runs, 0);
  await scheduler.stop();
});

test("runs never overlap in one process: a sync asked for during a run joins it", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({ getStorage: async () => temp.storage, run: gated.run, interval: 3_600_000, initialDelay: 3_600_000 });
  const first = scheduler.syncNow();
  await until(() => gated.runs() === 1, 2000);
  assert.equal(scheduler.running, true);
  const second = scheduler.syncNow();
  const third = scheduler.syncNow();
  gated.release();
  assert.deepEqual(await Promise.all([first, second, third]), [true, false, false]);
  assert.equal(gated.runs(), 1);
  assert.equal(scheduler.running, false);
  await scheduler.stop();
});

test("the status record shows the run and its progress while running, then lastSync, stats and nextSync", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({ getStorage: async () => temp.storage, run: gated.run, interval: 3_600_000, initialDelay: 3_600_000 });
  scheduler.start();
  const idle = await scheduler.getStatus();
  assert.deepEqual({ ...idle, nextSync: null }, { isRunning: false, lastSync: null, nextSync: null, progress: null, lastSyncStats: null });
  assert.ok(idle.nextSync);

  const run = scheduler.syncNow();
  await until(() => gated.runs() === 1, 2000);
  gated.contexts[0].progress(1, 3);
  await until(async () => (await scheduler.getStatus()).progress?.done === 1, 2000);
  const running = await scheduler.getStatus();
  assert.equal(running.isRunning, true);
  assert.deepEqual(running.progress, { done: 1, total: 3 });

  gated.release();
  assert.equal(await run, true);
  const done = await scheduler.getStatus();
  assert.equal(done.isRunning, false);
  assert.equal(done.progress, null);
  assert.ok(done.lastSync && !Number.isNaN(Date.parse(done.lastSync)));
  assert.deepEqual(done.lastSyncStats?.blogs, { total: 3, success: 3, failed: 0 });
  assert.ok(new Date(done.nextSync!).getTime() > Date.now() + 3_500_000, "the next sync an interval later");
  await scheduler.stop();
});

test("a progress write still in flight when the run ends cannot bring back the running state", async () => {
  // A database slow to answer one read: the progress update that made it lands after the final one.
  let reads = 0;
  const storage: Storage = {
    ...temp.storage,
    meta: {
      ...temp.storage.meta,
      get: async <T>(key: string) => {
        const value = await temp.storage.meta.get<T>(key);
        if (key === STATUS_KEY && ++reads === 2) await new Promise((resolve) => setTimeout(resolve, 100));
        return value;
      },
    },
  };
  const scheduler = new Scheduler({
    getStorage: async () => storage,
    run: async (_storage, context) => {
      context.progress(3, 3);
      return stats();
    },
    interval: 3_600_000,
    initialDelay: 3_600_000,
  });
  assert.equal(await scheduler.syncNow(), true);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const stored = await temp.storage.meta.get<StoredSyncStatus>(STATUS_KEY);
  assert.equal(stored?.runningUntil, null, "not running");
  assert.ok(stored?.lastSync, "the completed sync is kept");
  assert.equal((await scheduler.getStatus()).isRunning, false);
  await scheduler.stop();
});
