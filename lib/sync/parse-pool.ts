import { availableParallelism } from "node:os";
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { PageReading } from "../discovery/read-page.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import type { ParsedOpml, ParseOpmlOptions } from "../opml/parse.js";
import {
  rebuildError,
  runParseTask,
  stoppedParseError,
  type CrossingError,
  type EncodedBody,
  type FeedBody,
  type ParseResults,
  type ParseTask,
} from "./parse-tasks.js";

/** A message to a parse worker. */
export interface ParseRequest {
  id: number;
  task: ParseTask;
}

/** A parse worker's answer; errors cross the thread boundary as name + message (see crossingError). */
export type ParseReply =
  { id: number; ok: true; result: ParseResults[ParseTask["kind"]] } | { id: number; ok: false; error: CrossingError };

export interface ParsePoolOptions {
  /** Worker threads (default: one less than the CPUs, at least one). */
  size?: number;
  /** Parses waiting for a worker before callers of `parse` wait for room (default 256). */
  maxQueue?: number;
  /**
   * Bytes of content (characters of text) queued or being parsed at once
   * (default 32 MiB, six feeds of the largest size `maxBodySize` allows by
   * default): more callers wait their turn, first come first served, so
   * what the pool holds does not grow with its callers (sync, push, imports).
   * A task larger than this still runs, alone.
   */
  maxBytesInFlight?: number;
  /** A parse running longer is stopped (its worker terminated and replaced) and fails (default 30 s). */
  taskTimeout?: number;
  /** Old-generation heap limit of each worker in MB (default 128); a parse needing more fails. */
  maxHeapMb?: number;
}

interface Task extends ParseRequest {
  /** Buffers handed over to the worker with the task (no copy; unusable here afterwards). */
  transfer: ArrayBuffer[];
  /** Its share of the byte budget (contentBytes). */
  bytes: number;
  resolve(result: ParseResults[ParseTask["kind"]]): void;
  reject(error: Error): void;
}

/** The size of a task's content: bytes of a body, characters of a text. */
function contentBytes(task: ParseTask): number {
  switch (task.kind) {
    case "feed":
      return typeof task.body === "string"
        ? task.body.length
        : task.body instanceof Uint8Array
          ? task.body.byteLength
          : task.body.bytes.byteLength;
    case "page":
      return task.html.length;
    case "opml":
      return task.text.length;
  }
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Starts a parse worker. Compiled, the entry is parse-worker.js next to this
 * file. Under tsx (tests, `node --import tsx`) both are TypeScript: on Node 20
 * `execArgv: ["--import", "tsx"]` does not reach the worker's own entry
 * ("Unknown file extension .ts"), so a tiny bootstrap registers tsx in the
 * worker first and then imports the entry.
 */
function startWorker(resourceLimits: ResourceLimits): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./parse-worker.js", import.meta.url), { resourceLimits });
  const tsxApi = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const entry = JSON.stringify(new URL("./parse-worker.ts", import.meta.url).href);
  return new Worker(`import(${tsxApi}).then((tsx) => { tsx.register(); return import(${entry}); });`, {
    eval: true,
    resourceLimits,
  });
}

/**
 * Heap limits of a parse worker. Without them V8 sizes a worker's heap from
 * the machine's memory and collects lazily: a 1 000-feed sync measured
 * ~80 MB more peak RSS (bench/sync.ts). A young generation of 4 MB (16 MB
 * before) took another ~13 MB off (bench/sync-memory.ts): what a parse
 * makes is dropped once its answer is sent. The old generation is
 * sized to the largest feed allowed by default (`maxBodySize`, 5 MB): made
 * of the smallest items it needs 64-96 MB. A parse that would need more
 * than this fails like any bad feed (the worker is replaced).
 */
const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

/**
 * A small pool of worker threads for every parse of remote content (feeds,
 * discovery pages, OPML: see parse-tasks.ts), so that this synchronous,
 * CPU-bound work on a stranger's bytes never stalls the event loop serving
 * HTTP requests. Each parse runs under a time limit: a worker that overruns
 * it is terminated and replaced. Workers start on demand and do not keep the
 * process alive while idle.
 */
export class ParsePool {
  private readonly size: number;
  private readonly maxQueue: number;
  private readonly maxBytes: number;
  private readonly taskTimeout: number;
  private readonly limits: ResourceLimits;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  /** Tasks whose callers wait for room in the queue or the byte budget, in their order. */
  private readonly waiting: Task[] = [];
  private bytes = 0;
  private peakBytes = 0;
  private nextId = 1;
  private closed = false;
  private counts = { tasks: 0, transferredBytes: 0 };

  constructor(options: ParsePoolOptions = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism() - 1);
    this.maxQueue = Math.max(1, options.maxQueue ?? 256);
    this.maxBytes = options.maxBytesInFlight ?? 32 * 1024 * 1024;
    this.taskTimeout = options.taskTimeout ?? 30_000;
    this.limits = { ...WORKER_LIMITS, ...(options.maxHeapMb ? { maxOldGenerationSizeMb: options.maxHeapMb } : {}) };
  }

  /** Parses a feed in a worker; same result and errors (FeedParseError, TypeError) as `parseFeed`. */
  parse(body: FeedBody, options: ParseFeedOptions): Promise<ParsedFeed> {
    return this.run({ kind: "feed", body, options });
  }

  /** Tasks handed to workers, and bytes moved to them rather than copied, since the pool started. */
  get stats(): { tasks: number; transferredBytes: number } {
    return { ...this.counts };
  }

  /**
   * Runs a parse task in a worker: the result or error of `runParseTask`, or
   * the kind's error when a limit stops it. Buffers in `transfer` are moved to
   * the worker, not copied: the caller must not use them afterwards.
   */
  async run<K extends ParseTask["kind"]>(
    task: Extract<ParseTask, { kind: K }>,
    transfer: ArrayBuffer[] = [],
  ): Promise<ParseResults[K]> {
    if (this.closed) throw new Error("parse pool is closed");
    return new Promise<ParseResults[K]>((resolve, reject) => {
      this.waiting.push({
        id: this.nextId++,
        task,
        transfer,
        bytes: contentBytes(task),
        resolve: resolve as Task["resolve"],
        reject,
      });
      this.pump();
    });
  }

  /** Content queued or being parsed now, and the most there has been at once, in bytes (see maxBytesInFlight). */
  bytesInFlight(): { now: number; peak: number } {
    return { now: this.bytes, peak: this.peakBytes };
  }

  /** Stops every worker; queued and running parses fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of [...this.waiting.splice(0), ...this.queue.splice(0)])
      task.reject(new Error("parse pool is closed"));
    const slots = this.slots.splice(0);
    for (const slot of slots) this.finish(slot)?.reject(new Error("parse pool is closed"));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private pump(): void {
    for (;;) {
      this.admit();
      if (this.queue.length === 0) return;
      let slot = this.slots.find((candidate) => candidate.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      this.assign(slot, this.queue.shift()!);
    }
  }

  /** Moves waiting tasks to the queue, in order, while the queue and the byte budget have room (an empty budget takes any task). */
  private admit(): void {
    while (this.waiting.length > 0 && this.queue.length < this.maxQueue) {
      const next = this.waiting[0];
      if (this.bytes > 0 && this.bytes + next.bytes > this.maxBytes) return;
      this.waiting.shift();
      this.bytes += next.bytes;
      this.peakBytes = Math.max(this.peakBytes, this.bytes);
      this.queue.push(next);
    }
  }

  private spawn(): Slot {
    const worker = startWorker(this.limits);
    const slot: Slot = { worker, task: null, timer: null };
    worker.unref();
    worker.on("message", (reply: ParseReply) => {
      const task = this.finish(slot);
      if (!task || task.id !== reply.id) return;
      if (reply.ok) task.resolve(reply.result);
      else task.reject(rebuildError(reply.error));
      this.pump();
    });
    const retire = (error: Error) => {
      const index = this.slots.indexOf(slot);
      if (index === -1) return;
      this.slots.splice(index, 1);
      this.finish(slot)?.reject(error);
      this.pump();
    };
    // A worker over its heap limit (WORKER_LIMITS) was given content too big to parse: the content's failure, named so.
    worker.on("error", (error: Error & { code?: string }) => {
      const kind = slot.task?.task.kind;
      retire(
        error.code === "ERR_WORKER_OUT_OF_MEMORY" && kind
          ? stoppedParseError(kind, "needs more memory than a parse may use")
          : error,
      );
    });
    worker.on("exit", (code) => retire(new Error(`parse worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private assign(slot: Slot, task: Task): void {
    slot.task = task;
    // A busy worker keeps the process alive: its answer is awaited.
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      this.finish(slot)?.reject(
        stoppedParseError(task.task.kind, `took longer than ${this.taskTimeout / 1000} s to parse`),
      );
      // A parse cannot be interrupted inside its thread: the thread goes, a fresh one takes the next task.
      void slot.worker.terminate();
      this.pump();
    }, this.taskTimeout);
    this.counts.tasks++;
    for (const buffer of task.transfer) this.counts.transferredBytes += buffer.byteLength;
    slot.worker.postMessage({ id: task.id, task: task.task } satisfies ParseRequest, task.transfer);
  }

  /** Detaches the slot's task (if any), gives its bytes back to the budget and lets an idle worker go. */
  private finish(slot: Slot): Task | null {
    const task = slot.task;
    if (task) this.bytes -= task.bytes;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    slot.worker.unref();
    return task;
  }
}

let sharedPool: ParsePool | null = null;

/** The process-wide pool (created on first use). */
function pool(): ParsePool {
  sharedPool ??= new ParsePool();
  return sharedPool;
}

/** `parseFeed` run in the process-wide pool. */
export function parseFeedInWorker(body: FeedBody, options: ParseFeedOptions): Promise<ParsedFeed> {
  return pool().run({ kind: "feed", body, options });
}

/**
 * `parseFeed` of a body the caller gives up (compressed or not), run in the
 * process-wide pool: bytes that are the whole of their buffer are moved to
 * the worker, not copied (the caller must not read them afterwards); a slice
 * of a shared buffer is copied.
 */
export function parseOwnedFeedInWorker(body: Uint8Array | EncodedBody, options: ParseFeedOptions): Promise<ParsedFeed> {
  const bytes = body instanceof Uint8Array ? body : body.bytes;
  const owned =
    bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return pool().run({ kind: "feed", body, options }, owned ? [bytes.buffer] : []);
}

/** The process-wide pool's counts (see ParsePool.stats). */
export function parsePoolStats(): ParsePool["stats"] {
  return pool().stats;
}

/** `readDiscoveryPage` run in the process-wide pool. */
export function readDiscoveryPageInWorker(html: string, url: string): Promise<PageReading> {
  return pool().run({ kind: "page", html, url });
}

/** `parseOpml` run in the process-wide pool. */
export function parseOpmlInWorker(text: string, options: ParseOpmlOptions): Promise<ParsedOpml> {
  return pool().run({ kind: "opml", text, options });
}

/** Shuts the process-wide pool down (process shutdown, end of tests); the next parse starts a new one. */
export async function closeParsePool(): Promise<void> {
  const pool = sharedPool;
  sharedPool = null;
  await pool?.close();
}

/**
 * Picks where feeds are parsed: worker threads (default) or the calling
 * thread. In workers, a body handed over (`handOver`) is moved to the worker
 * when it is a buffer of its own (parseOwnedFeedInWorker), else copied. A
 * compressed body (EncodedBody) is decoded where it is parsed.
 */
export function feedParser(
  inWorkers: boolean,
): (body: FeedBody, options: ParseFeedOptions, handOver?: boolean) => Promise<ParsedFeed> {
  return inWorkers
    ? (body, options, handOver) =>
        handOver && typeof body !== "string" ? parseOwnedFeedInWorker(body, options) : parseFeedInWorker(body, options)
    : (body, options) => runParseTask({ kind: "feed", body, options }) as Promise<ParsedFeed>;
}
