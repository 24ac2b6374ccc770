import { once } from "node:events";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * SQLite's checkpoints, taken on a thread of their own. By default the
 * connection that commits past 1 000 pages of write-ahead log copies the log
 * into the database (and syncs both files) inside that commit: on the main
 * thread, 30-90 ms at a time during a sync, while API requests wait
 * (BENCHMARKS.md, scale). So the main connection checkpoints only as a
 * backstop (BACKSTOP_PAGES, should this thread fall behind), and a worker
 * with a connection of its own takes a passive checkpoint (never waiting
 * for a lock, never blocking a writer or a reader) a little after writes.
 * The worker starts at the first write; its cost in memory is in docs/sync.md (Memory).
 */

/** How soon after a write the worker is asked to checkpoint: a sync's writes of that time go in one. */
export const CHECKPOINT_DELAY_MS = 500;

/** Pages of log past which the main connection checkpoints after all: 40 MB at SQLite's default 4 KiB pages. */
export const BACKSTOP_PAGES = 10_000;

export interface Checkpointer {
  /** Notes a committed write: a checkpoint follows within CHECKPOINT_DELAY_MS. */
  wrote(): void;
  /** Resolves once a checkpoint asked now has run (tests and shutdown). */
  checkpoint(): Promise<CheckpointResult>;
  /** Stops the worker: it closes its connection and ends, then this resolves. */
  close(): Promise<void>;
}

/** `PRAGMA wal_checkpoint`'s answer: frames in the log, and how many of them are in the database now. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * The worker's code, run as a script (no TypeScript loader needed in the
 * worker, so it starts small). Its Database and statement live as long as
 * the worker: better-sqlite3 objects must never be left to the collector.
 */
function checkpointWorker(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- a worker run as a script loads modules with require */
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  const Database = require(workerData.driver) as typeof import("better-sqlite3");
  const db = new Database(workerData.file);
  db.exec(`PRAGMA busy_timeout = ${workerData.busyTimeout}; PRAGMA cache_size = -256;`);
  /* eslint-enable @typescript-eslint/no-require-imports */
  const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  parentPort!.on("message", (message: "checkpoint" | "close") => {
    if (message === "close") {
      db.close();
      parentPort!.close();
      return;
    }
    try {
      parentPort!.postMessage(passive.get());
    } catch (error) {
      parentPort!.postMessage({ error: String(error) });
    }
  });
  (globalThis as { keptDatabase?: unknown[] }).keptDatabase = [db, passive];
}

/**
 * A checkpointer for the database file `file` (in WAL mode), started on the
 * first write. Should the worker fail (it cannot load the driver or open the
 * file), it is not started again: `onLost` gives checkpoints back to the
 * caller's connection.
 */
export function startCheckpointer(file: string, busyTimeout: number, onLost: () => void): Checkpointer {
  let worker: Worker | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const waiting: Array<{ resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }> = [];

  const start = (): Worker => {
    const started = new Worker(`(${checkpointWorker.toString()})()`, {
      eval: true,
      workerData: { file, busyTimeout, driver: createRequire(import.meta.url).resolve("better-sqlite3") },
      // A checkpoint makes next to no JavaScript garbage: the smallest heap V8 allows.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    started.on("message", (answer: CheckpointResult | { error: string }) => {
      const next = waiting.shift();
      // Closing keeps it referenced until it has gone (an answer arriving meanwhile must not let the process end first).
      if (waiting.length === 0 && !closed) started.unref();
      if (!next) return;
      if ("error" in answer) next.reject(new Error(answer.error));
      else next.resolve(answer);
    });
    started.on("error", (error) => {
      for (const next of waiting.splice(0)) next.reject(error);
      if (!closed) onLost();
      closed = true;
    });
    started.on("exit", () => {
      for (const next of waiting.splice(0)) next.reject(new Error("checkpoint worker stopped"));
      if (worker === started) worker = null;
    });
    // After the listeners (adding one refs the worker again): only an awaited answer keeps the process alive.
    started.unref();
    return started;
  };

  const ask = (): Promise<CheckpointResult> => {
    if (closed) return Promise.reject(new Error("no checkpoint worker (closed, or it failed)"));
    worker ??= start();
    const answer = new Promise<CheckpointResult>((resolve, reject) => waiting.push({ resolve, reject }));
    worker.ref();
    worker.postMessage("checkpoint");
    return answer;
  };

  return {
    wrote() {
      if (closed || timer) return;
      timer = setTimeout(() => {
        timer = null;
        // A failed checkpoint leaves the log to the next one (or to the backstop): nothing is lost.
        ask().catch(() => undefined);
      }, CHECKPOINT_DELAY_MS);
      timer.unref();
    },
    checkpoint: ask,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const current = worker;
      if (!current) return Promise.resolve();
      // Resolved once the worker's connection is closed and the thread gone: nothing touches the files after.
      current.ref();
      const gone = once(current, "exit").then(
        () => undefined,
        () => undefined,
      );
      current.postMessage("close");
      return gone;
    },
  };
}
