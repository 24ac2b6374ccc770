import type { Storage } from "../storage/types.js";

/** Figures of the last completed sync run (shape kept from the earlier plugin, plus the phases' ends). */
export interface SyncStats {
  lastFullSync: string;
  duration: number;
  sources: { total: number; success: number; failed: number };
  blogs: { total: number; success: number; failed: number; notModified?: number };
  items: { added: number; deleted: number };
  /** When every blog's posts were stored (and old ones pruned). */
  contentDoneAt?: string;
  /** When the extras (site icons) that followed were done: the end of the run. */
  extrasDoneAt?: string;
  /** Requests made for site icons, and blogs whose icon changed. */
  icons?: { requests: number; updated: number };
  /** Requests made for followed blogs' own blogrolls, blogrolls read or confirmed, blogs left for a later run (lib/network). */
  blogrolls?: { requests: number; read: number; deferred: number };
}

/** The persisted status record, shared by every process on the same database. */
export interface StoredSyncStatus {
  lastSync: string | null;
  lastSyncStats: SyncStats | null;
  /** While a run holds the lease: when the lease lapses unless renewed. */
  runningUntil: string | null;
  progress: { done: number; total: number } | null;
  nextSync: string | null;
  /** While a run goes on: when its posts were all stored (null until then); it is then busy with extras. */
  contentDoneAt?: string | null;
}

export interface SyncStatusView {
  isRunning: boolean;
  lastSync: string | null;
  nextSync: string | null;
  progress: { done: number; total: number } | null;
  /** The running sync's posts are all stored at this time; it is finishing extras (site icons). Null otherwise. */
  contentDoneAt: string | null;
  lastSyncStats: SyncStats | null;
}

export const STATUS_KEY = "syncStatus";

const emptyStatus: StoredSyncStatus = {
  lastSync: null,
  lastSyncStats: null,
  runningUntil: null,
  progress: null,
  nextSync: null,
  contentDoneAt: null,
};

/** The stored record, every field present (all null before the first run). */
export async function readSyncStatus(storage: Storage): Promise<StoredSyncStatus> {
  return { ...emptyStatus, ...((await storage.meta.get<StoredSyncStatus>(STATUS_KEY)) ?? {}) };
}

/** Changes some fields of the record, keeping the others. */
export async function writeSyncStatus(storage: Storage, patch: Partial<StoredSyncStatus>): Promise<void> {
  await storage.meta.set(STATUS_KEY, { ...(await readSyncStatus(storage)), ...patch });
}

/**
 * What the record says to a reader: a run is going on only while the lease
 * it recorded has not lapsed (a crashed run's record is not believed).
 * `plannedNext`: this process's timer, which wins over the stored plan.
 */
export function viewOfSyncStatus(stored: StoredSyncStatus, plannedNext: Date | null): SyncStatusView {
  const isRunning = stored.runningUntil !== null && new Date(stored.runningUntil).getTime() > Date.now();
  return {
    isRunning,
    lastSync: stored.lastSync,
    // While a sync runs, the next is not planned yet: it is, when this one ends.
    nextSync: isRunning ? null : (plannedNext?.toISOString() ?? stored.nextSync),
    progress: isRunning ? stored.progress : null,
    contentDoneAt: isRunning ? (stored.contentDoneAt ?? null) : null,
    lastSyncStats: stored.lastSyncStats,
  };
}

/**
 * The status writes of one run. Each is read-modify-write, so they run one
 * after another: a progress or renewal write still in flight can never land
 * after the final one and bring back a finished run. After the final write
 * the others are dropped.
 */
export class RunStatusWriter {
  private writes: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(private readonly storage: Storage) {}

  update(patch: Partial<StoredSyncStatus>, final = false): Promise<void> {
    if (this.finished && !final) return Promise.resolve();
    if (final) this.finished = true;
    const write = this.writes.then(() => writeSyncStatus(this.storage, patch));
    this.writes = write.catch(() => undefined);
    return write;
  }
}
