import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { Storage } from "../../lib/storage/types.js";
import { Scheduler } from "../../lib/sync/scheduler.js";
import { STATUS_KEY, type StoredSyncStatus } from "../../lib/sync/status-record.js";
import { openTempStorage, type TempStorage } from "./harness.js";
import { countingRun, gatedRun, syncStats, until } from "./scheduler-support.js";

let temp: TempStorage;

beforeEach(async () => {
  temp = await openTempStorage();
});
afterEach(() => temp.cleanup());

test("the first sync comes after initialDelay, then one every interval", async () => {
  const counted = countingRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: counted.run,
    interval: 60,
    initialDelay: 30,
  });
  assert.equal((await scheduler.getStatus()).nextSync, null, "nothing planned before start");
  scheduler.start();
  const planned = new Date((await scheduler.getStatus()).nextSync!).getTime();
  assert.ok(planned <= Date.now() + 30, "the first sync is planned initialDelay after start");
  assert.equal(counted.runs(), 0, "not at once");
  await until(() => counted.runs() >= 3, 5000);
  await scheduler.stop();
  const stopped = counted.runs();
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(counted.runs(), stopped, "no run after stop()");
});

test("a long initialDelay holds the first sync back", async () => {
  const counted = countingRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: counted.run,
    interval: 10,
    initialDelay: 3_600_000,
  });
  scheduler.start();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(counted.runs(), 0);
  await scheduler.stop();
});

test("runs never overlap in one process: a sync asked for during a run joins it", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: gated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
  });
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

test("the status record shows the run, its progress and the end of its content phase while running, then lastSync, stats and nextSync", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: gated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
  });
  scheduler.start();
  const idle = await scheduler.getStatus();
  assert.deepEqual(
    { ...idle, nextSync: null },
    { isRunning: false, lastSync: null, nextSync: null, progress: null, contentDoneAt: null, lastSyncStats: null },
  );
  assert.ok(idle.nextSync);

  const run = scheduler.syncNow();
  await until(() => gated.runs() === 1, 2000);
  gated.contexts[0].progress(1, 3);
  await until(async () => (await scheduler.getStatus()).progress?.done === 1, 2000);
  const running = await scheduler.getStatus();
  assert.equal(running.isRunning, true);
  assert.deepEqual(running.progress, { done: 1, total: 3 });
  assert.equal(running.contentDoneAt, null, "still fetching feeds");
  assert.equal(
    running.nextSync,
    null,
    "the next sync is planned when this one ends, not shown as the time this one started",
  );
  gated.contexts[0].progress(3, 3);
  const contentDoneAt = new Date().toISOString();
  gated.contexts[0].contentDone?.(contentDoneAt);
  await until(async () => (await scheduler.getStatus()).contentDoneAt !== null, 2000);
  const extras = await scheduler.getStatus();
  assert.equal(extras.isRunning, true, "the run goes on with its extras");
  assert.equal(extras.contentDoneAt, contentDoneAt);

  gated.release();
  assert.equal(await run, true);
  const done = await scheduler.getStatus();
  assert.equal(done.isRunning, false);
  assert.equal(done.progress, null);
  assert.equal(done.contentDoneAt, null, "only a running sync has one");
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
      return syncStats();
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

test("fetchNewBlogs runs a new-blogs-only run at once, under the lease, without moving the schedule or recording a sync", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: gated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
  });
  scheduler.fetchNewBlogs();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(gated.runs(), 0, "nothing while the scheduler is stopped (scheduler: false)");
  scheduler.start();
  const planned = (await scheduler.getStatus()).nextSync;
  scheduler.fetchNewBlogs();
  await until(() => gated.runs() === 1, 2000);
  assert.equal(gated.contexts[0].newBlogsOnly, true);
  assert.equal((await scheduler.getStatus()).isRunning, true, "it holds the lease like any run");
  gated.release();
  await until(() => !scheduler.running, 2000);
  const after = await scheduler.getStatus();
  assert.equal(after.isRunning, false);
  assert.equal(after.lastSync, null, "not a sync of the whole blogroll");
  assert.equal(after.nextSync, planned, "the scheduled sync keeps its time");
  await scheduler.stop();
});

test("new blogs asked for during a sync are fetched right after it; a sync asked for during that fetch runs after it", async () => {
  const gated = gatedRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: gated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
  });
  scheduler.start();
  const sync = scheduler.syncNow();
  await until(() => gated.runs() === 1, 2000);
  scheduler.fetchNewBlogs();
  scheduler.fetchNewBlogs();
  assert.equal(gated.runs(), 1, "never beside the sync");
  gated.release();
  assert.equal(await sync, true);
  await until(() => gated.runs() === 2, 2000);
  assert.equal(gated.contexts[1].newBlogsOnly, true, "one fetch of new blogs follows, however often asked");
  const second = scheduler.syncNow();
  gated.release();
  await until(() => gated.runs() === 3, 2000);
  assert.notEqual(gated.contexts[2].newBlogsOnly, true, "the sync asked for meanwhile runs next");
  gated.release();
  assert.equal(await second, true);
  assert.equal(gated.runs(), 3);
  assert.ok((await scheduler.getStatus()).lastSync);
  await scheduler.stop();
});

test('timed runs fetch the blogs that are due; "Sync now" asks for everyone', async () => {
  const asked: Array<boolean | undefined> = [];
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: async (_storage, context) => {
      asked.push(context.everyone);
      return syncStats();
    },
    interval: 3_600_000,
    initialDelay: 20,
  });
  scheduler.start();
  await until(() => asked.length >= 1 && !scheduler.running, 5000);
  assert.equal(await scheduler.syncNow(), true);
  await scheduler.stop();
  assert.equal(asked[0], false, "the timed run");
  assert.equal(asked.at(-1), true, "the run asked for");
});
