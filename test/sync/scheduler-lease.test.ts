import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";
import { Scheduler, type SyncRunner } from "../../lib/sync/scheduler.js";
import { openTempStorage, type TempStorage } from "./harness.js";
import { countingRun, gatedRun, syncStats, until } from "./scheduler-support.js";

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
    return syncStats();
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

test("after a crash, the timed sync waits for the dead run's lease to lapse instead of a whole interval", async () => {
  // The lease and status a process killed mid-run leaves behind.
  const ttl = 300;
  assert.equal(await second.meta.acquireLease("sync", "dead-process", ttl), true);
  await second.meta.set("syncStatus", { runningUntil: new Date(Date.now() + ttl).toISOString(), lastSync: null });
  const counted = countingRun();
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: counted.run,
    interval: 3_600_000,
    initialDelay: 0,
    leaseTtl: ttl,
  });
  scheduler.start();
  await until(() => counted.runs() === 1, 5000);
  const status = await scheduler.getStatus();
  assert.ok(status.lastSync, "the run completed and was recorded");
  assert.ok(new Date(status.nextSync!).getTime() > Date.now() + 3_500_000, "then back to the interval");
  await scheduler.stop();
});

test("a timed sync refused by another process's run stands down when that run completes", async () => {
  const bGated = gatedRun();
  const aCounted = countingRun();
  const ttl = 300;
  const b = new Scheduler({
    getStorage: async () => second,
    run: bGated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
    leaseTtl: ttl,
  });
  const bRun = b.syncNow();
  await until(() => bGated.runs() === 1, 2000);
  const a = new Scheduler({
    getStorage: async () => temp.storage,
    run: aCounted.run,
    interval: 600_000,
    initialDelay: 0,
    leaseTtl: ttl,
  });
  a.start();
  // a is refused at least once while b's run goes on (b renews its lease), then b finishes.
  await new Promise((resolve) => setTimeout(resolve, 700));
  bGated.release();
  assert.equal(await bRun, true);
  const finishedAt = Date.now();
  // a's retry comes within a lease time and a margin, sees b's completed sync and does not run again.
  await new Promise((resolve) => setTimeout(resolve, ttl + 1500));
  assert.equal(aCounted.runs(), 0, "no second sync right after the other process's");
  const next = new Date((await a.getStatus()).nextSync!).getTime();
  assert.ok(
    Math.abs(next - (finishedAt + 600_000)) < 5000,
    `next sync an interval after b's (off by ${next - finishedAt - 600_000} ms)`,
  );
  await Promise.all([a.stop(), b.stop()]);
});

test("a run stopped by stop() is not logged as a failed sync", async () => {
  const messages: string[] = [];
  let started = false;
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: async (_storage, context) => {
      started = true;
      await new Promise((_resolve, reject) =>
        context.signal.addEventListener("abort", () => reject(context.signal.reason)),
      );
      return syncStats();
    },
    interval: 3_600_000,
    initialDelay: 3_600_000,
    log: (message) => messages.push(message),
  });
  const run = scheduler.syncNow();
  await until(() => started, 2000);
  await scheduler.stop();
  assert.equal(await run, true);
  assert.deepEqual(messages, []);
  assert.equal((await scheduler.getStatus()).isRunning, false, "the running state is cleared");
});

test("a run that fails on its own is logged", async () => {
  const messages: string[] = [];
  const scheduler = new Scheduler({
    getStorage: async () => temp.storage,
    run: async () => {
      throw new Error("database went away");
    },
    interval: 3_600_000,
    initialDelay: 3_600_000,
    log: (message) => messages.push(message),
  });
  assert.equal(await scheduler.syncNow(), true);
  assert.deepEqual(messages, ["sync failed: database went away"]);
  await scheduler.stop();
});

test("Clear & resync waits for another process's run, then clears under the lease and runs", async () => {
  const gated = gatedRun();
  const other = new Scheduler({
    getStorage: async () => second,
    run: gated.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
    leaseTtl: 300,
  });
  const counted = countingRun();
  const mine = new Scheduler({
    getStorage: async () => temp.storage,
    run: counted.run,
    interval: 3_600_000,
    initialDelay: 3_600_000,
    leaseTtl: 300,
  });
  const otherRun = other.syncNow();
  await until(() => gated.runs() === 1, 5000);
  let otherDone = false;
  let clearedAfterOther: boolean | null = null;
  const reset = mine.resetAndSync(async () => {
    clearedAfterOther = otherDone;
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(clearedAfterOther, null, "nothing is cleared while the other run holds the lease");
  otherDone = true;
  gated.release();
  await otherRun;
  await reset;
  assert.equal(clearedAfterOther, true);
  await until(() => counted.runs() === 1, 5000);
  await Promise.all([mine.stop(), other.stop()]);
});
