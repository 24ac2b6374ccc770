/** Shared pieces of the scheduler tests: run figures, a poller, and stand-in runs. */
import type { SyncRunner } from "../../lib/sync/scheduler.js";
import type { SyncStats } from "../../lib/sync/status-record.js";

export const syncStats = (): SyncStats => ({
  lastFullSync: new Date().toISOString(),
  duration: 1,
  sources: { total: 0, success: 0, failed: 0 },
  blogs: { total: 3, success: 3, failed: 0 },
  items: { added: 0, deleted: 0 },
});

/** Resolves once `check` holds, polling; rejects after `ms`. */
export const until = (check: () => boolean | Promise<boolean>, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const tick = async () => {
      if (await check()) resolve();
      else if (Date.now() - started > ms) reject(new Error(`not within ${ms} ms`));
      else setTimeout(tick, 10);
    };
    void tick();
  });

/** A run that finishes at once, counting how often it ran. */
export function countingRun(): { run: SyncRunner; runs: () => number } {
  let runs = 0;
  return {
    runs: () => runs,
    run: async () => {
      runs++;
      return syncStats();
    },
  };
}

/** A run that waits for `release()` before finishing. */
export function gatedRun(): {
  run: SyncRunner;
  runs: () => number;
  release(): void;
  contexts: Parameters<SyncRunner>[1][];
} {
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
      return syncStats();
    },
  };
}
