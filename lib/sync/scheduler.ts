import type { Storage } from "../storage/types.js";
import { SyncLease } from "./lease.js";
import {
  readSyncStatus,
  RunStatusWriter,
  viewOfSyncStatus,
  writeSyncStatus,
  type SyncStats,
  type SyncStatusView,
} from "./status-record.js";

/** What one run is given: a stop signal and ways to report progress and the end of the content phase. */
export interface RunContext {
  signal: AbortSignal;
  /** "Sync now": ask every blog (but those told to wait) and re-read every source, whatever their schedules. */
  everyone?: boolean;
  progress(done: number, total: number): void;
  /** Every blog's posts are stored; what follows is cosmetic (site icons). */
  contentDone?(at: string): void;
  /**
   * Fetch only the blogs never fetched yet (added by hand, or listed by a source just read),
   * without re-reading the sources or pruning: the owner wants to see them now.
   */
  newBlogsOnly?: boolean;
}

/** One sync run: sources refreshed, due blogs fetched, retention applied. */
export type SyncRunner = (storage: Storage, context: RunContext) => Promise<SyncStats>;

export interface SchedulerOptions {
  getStorage: () => Promise<Storage>;
  run: SyncRunner;
  interval: number;
  initialDelay: number;
  /** Lease lifetime; renewed at a third of it while a run goes on. */
  leaseTtl?: number;
  log?: (message: string) => void;
}

/** A timed run (the blogs that are due), "Sync now" (every blog but those told to wait), or new blogs only. */
type RunKind = "full" | "now" | "new";

const PROGRESS_WRITE_INTERVAL = 1000;

interface PendingReset {
  work: (storage: Storage) => Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * Runs sync on a timer: first after `initialDelay`, then every `interval`.
 * Runs never overlap, in this process (one run at a time) or across
 * processes (the sync lease, lease.ts). Each run keeps the status record
 * (status-record.ts) up to date for every process to read.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<boolean> | null = null;
  /** What the run in `current` is: a scheduled/manual sync, or a fetch of new blogs only. */
  private currentKind: RunKind | null = null;
  /** A run asked for while another went on, started when that one ends. */
  private queued: RunKind | null = null;
  private abort: AbortController | null = null;
  private stopped = true;
  private nextAt: Date | null = null;
  /** The running run is being stopped for a reset: its abort is not a failure. */
  private stopping = false;
  /**
   * When set, the next attempt comes this soon (ms) rather than an interval
   * later: a held lease lapses, or another process's sync makes one due.
   */
  private retryIn: number | null = null;
  /** When the first of a series of refused attempts happened; null once an attempt gets the lease. */
  private refusedAt: number | null = null;
  private readonly lease: SyncLease;
  /** A reset (Clear & resync) waiting to run under the lease before the next run. */
  private pendingReset: PendingReset | null = null;

  constructor(private readonly options: SchedulerOptions) {
    this.lease = new SyncLease(options.leaseTtl ?? 60_000);
  }

  get running(): boolean {
    return this.current !== null;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.refusedAt = null;
    this.schedule(this.options.initialDelay);
  }

  /** Stops the timer, aborts a run in progress and waits for it to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pendingReset?.settle(new Error("The scheduler stopped before the reset could run"));
    this.pendingReset = null;
    this.abort?.abort();
    await this.current?.catch(() => undefined);
  }

  /**
   * stop() for a process about to exit (Indiekit exits on SIGINT/SIGTERM
   * without calling its plugins): a run in progress first hands back its
   * lease and is marked ended, before anything waits, so a restart syncs at
   * once instead of waiting for the lease to lapse.
   */
  async stopNow(): Promise<void> {
    const running = this.current !== null;
    const stopping = this.stop();
    if (running) {
      try {
        const storage = await this.options.getStorage();
        await this.lease.release(storage);
        await writeSyncStatus(storage, { runningUntil: null, progress: null });
      } catch {
        // The lease lapses on its own.
      }
    }
    await stopping;
  }

  /**
   * Starts a run now unless one is going on. Resolves when the run ends:
   * true if this process ran it, false if another run (here or elsewhere) held it.
   */
  syncNow(): Promise<boolean> {
    return this.begin(null, "now");
  }

  /**
   * Fetches the blogs never fetched yet, now and in the background, under the
   * same lease and limits as a sync (so never beside one): a blog added by hand
   * or new blogs of a source show their posts within seconds rather than at the
   * next scheduled sync. During a run it comes right after that run (which may
   * have started before the blogs existed). The schedule is not moved. Nothing
   * happens while the scheduler is stopped (`scheduler: false`).
   */
  fetchNewBlogs(): void {
    if (this.stopped) return;
    if (this.current) this.queued ??= "new";
    else void this.begin(null, "new");
  }

  /**
   * Runs `work` (Clear & resync's deletion) with no run going on anywhere,
   * then a full run. A run in this process is stopped first and waited for
   * (its fetches in flight are cancelled or finish writing), and `work` runs
   * under the lease, so no fetch of any process writes validators after it.
   * Resolves once `work` is done and the run has started; when another
   * process holds the lease, that is when the lease comes back to us.
   */
  async resetAndSync(work: (storage: Storage) => Promise<void>): Promise<void> {
    if (this.current) {
      this.stopping = true;
      this.abort?.abort();
      await this.current.catch(() => undefined);
    }
    const done = new Promise<void>((resolve, reject) => {
      const previous = this.pendingReset;
      this.pendingReset = {
        // Two clicks in a row: both resets run, once each, under the same lease.
        work: previous
          ? async (storage) => {
              await previous.work(storage);
              await work(storage);
            }
          : work,
        settle: (error) => {
          previous?.settle(error);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
    });
    void this.begin(null, "full");
    return done;
  }

  /**
   * `refusedAt`: when the previous, timed attempt found the lease taken. If a
   * sync completed since (another process ran it), this attempt stands down
   * and the next is due an interval after that sync.
   */
  private begin(refusedAt: number | null, kind: RunKind): Promise<boolean> {
    if (this.current) {
      // Joined: a run of the same kind, or anything during "Sync now" (it asks every blog).
      if (kind === "new" || kind === this.currentKind || this.currentKind === "now")
        return this.current.then(() => false);
      // A sync asked for during a fetch of new blogs, or "Sync now" during a timed run, runs right after it.
      this.queued = kind === "now" || this.queued !== "now" ? kind : this.queued;
      return this.current.then(() => this.current ?? false);
    }
    if (kind !== "new") this.retryIn = null;
    this.currentKind = kind;
    this.current = this.runOnce(kind !== "new" ? refusedAt : null, kind).finally(() => {
      this.current = null;
      this.currentKind = null;
      const queued = this.queued;
      this.queued = null;
      // A reset waiting for the lease is retried even with the timer off; its full run covers what was queued.
      if (this.pendingReset) return void this.schedule(this.retryIn ?? 0);
      if (this.stopped) return;
      if (kind !== "new") this.schedule(Math.min(this.options.interval, this.retryIn ?? Infinity));
      if (queued) void this.begin(null, queued);
    });
    return this.current;
  }

  async getStatus(): Promise<SyncStatusView> {
    return viewOfSyncStatus(await readSyncStatus(await this.options.getStorage()), this.nextAt);
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.nextAt = new Date(Date.now() + delay);
    const refusedAt = this.refusedAt;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.begin(refusedAt, "full");
    }, delay);
    // A reset someone waits for keeps the process up; the plain timer does not.
    if (!this.pendingReset) this.timer.unref?.();
  }

  private async runOnce(refusedAt: number | null, kind: RunKind): Promise<boolean> {
    const log = this.options.log ?? (() => undefined);
    if (kind !== "new") this.refusedAt = null;
    let storage: Storage;
    try {
      storage = await this.options.getStorage();
      if (!(await this.lease.acquire(storage))) {
        // Held by a run elsewhere, or by this process before a crash: try again when the lease lapses.
        // New blogs wait for that run's end here, or are fetched by the other process's run.
        if (kind === "new") return false;
        this.retryIn = this.lease.waitAfterRefusal((await readSyncStatus(storage)).runningUntil);
        this.refusedAt = refusedAt ?? Date.now();
        return false;
      }
      if (refusedAt !== null && !this.pendingReset) {
        const lastSync = (await readSyncStatus(storage)).lastSync;
        const syncedAt = lastSync ? new Date(lastSync).getTime() : Number.NaN;
        if (syncedAt >= refusedAt) {
          await this.lease.release(storage);
          this.retryIn = Math.max(0, syncedAt + this.options.interval - Date.now());
          return false;
        }
      }
    } catch (error) {
      log(`sync not started: ${(error as Error).message}`);
      this.pendingReset?.settle(error);
      this.pendingReset = null;
      return false;
    }
    // Only a full run takes a reset (a run of new blogs only would leave the others empty).
    const reset = kind === "full" ? this.pendingReset : null;
    if (reset) {
      this.pendingReset = null;
      try {
        await reset.work(storage);
        reset.settle();
      } catch (error) {
        reset.settle(error);
        await this.lease.release(storage).catch(() => undefined);
        return false;
      }
    }
    const abort = new AbortController();
    this.abort = abort;
    const status = new RunStatusWriter(storage);
    let progress = { done: 0, total: 0 };
    let lastProgressWrite = 0;
    const stopRenewing = this.lease.keepRenewed(
      storage,
      () => status.update({ runningUntil: this.lease.until(), progress }),
      () => abort.abort(),
    );
    try {
      await status.update({ runningUntil: this.lease.until(), progress, contentDoneAt: null });
      const stats = await this.options.run(storage, {
        signal: abort.signal,
        everyone: kind === "now",
        progress: (done, total) => {
          progress = { done, total };
          const now = Date.now();
          if (now - lastProgressWrite >= PROGRESS_WRITE_INTERVAL) {
            lastProgressWrite = now;
            void status.update({ progress }).catch(() => undefined);
          }
        },
        contentDone: (at) => void status.update({ progress, contentDoneAt: at }).catch(() => undefined),
        newBlogsOnly: kind === "new",
      });
      if (kind === "new") {
        await status.update({ runningUntil: null, progress: null, contentDoneAt: null }, true);
        return true;
      }
      const next = this.stopped ? null : new Date(Date.now() + this.options.interval).toISOString();
      await status.update(
        {
          lastSync: stats.lastFullSync,
          lastSyncStats: stats,
          runningUntil: null,
          progress: null,
          nextSync: next,
          contentDoneAt: null,
        },
        true,
      );
      return true;
    } catch (error) {
      // A run stopped by stop() (shutdown) did not fail.
      if (!((this.stopped || this.stopping) && abort.signal.aborted)) log(`sync failed: ${(error as Error).message}`);
      await status.update({ runningUntil: null, progress: null, contentDoneAt: null }, true).catch(() => undefined);
      return true;
    } finally {
      stopRenewing();
      this.abort = null;
      this.stopping = false;
      await this.lease.release(storage).catch(() => undefined);
    }
  }
}
