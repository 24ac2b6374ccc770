import { EarliestTimer } from "./earliest-timer.js";
import type { Logger } from "../context.js";
import { changeCount, onStorageWrite } from "../storage/change-count.js";
import type { Storage } from "../storage/types.js";
import { MINUTE } from "../time/durations.js";

/** How often the log is read while someone follows it: the delay for changes stored by another process. */
const POLL_MS = 1000;
/** A write of this process has the log read this soon: its own events are then seen before its rebuild starts. */
const WAKE_MS = 0;
/** The log is read for this long after the last `follow()`. */
const FOLLOWED_MS = 10 * MINUTE;
/** Rises remembered, to tell the first version that saw an event (for older events: the oldest remembered). */
const STEPS_KEPT = 64;

export interface LogClockDeps {
  getStorage(): Promise<Storage>;
  log: Logger;
  /** How often the log is read (tests may shorten it). */
  pollInterval?: number;
}

/**
 * The storage's change clock, for what is built from the storage and kept
 * (the blogroll page's answers). Its `version` rises as soon as a blog or
 * item write of this process has settled (it counts them), and when a read
 * of the live event log, which every process sharing the database writes
 * (SQLite in the write's own transaction, MongoDB right after it), finds a
 * newer event. A rise by a read happens when the read is done; so whatever
 * is read from the storage once the version has reached the one `covering`
 * gives for an event includes that event. While anyone follows the clock
 * (`follow()` within the last 10 minutes) the log is read every second, so
 * another process's change raises the version within a second; after a
 * lapse, `follow()` reads it first.
 */
export class LogClock {
  /** Reads of the log that found a newer event (the first read counts). */
  private rises = 0;
  /** The newest seq read from the log. */
  private seq = 0;
  /** (seq, version) at each read that found a newer seq, oldest first. */
  private readonly steps: { seq: number; version: number }[] = [];
  private readonly listeners = new Set<() => void>();
  private storage: Storage | null = null;
  private starting: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private reading: Promise<void> | null = null;
  private nextRead: Promise<void> | null = null;
  private readonly timer = new EarliestTimer(() => void this.poll());
  private followedUntil = 0;
  private failing = false;
  private stopped = false;

  constructor(private readonly deps: LogClockDeps) {}

  /** Rises with every change seen (0 before the first read of the log). */
  get version(): number {
    return this.rises === 0 || !this.storage ? 0 : changeCount(this.storage) + this.rises;
  }

  /** Calls `listener` after each rise; returns the way to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Someone wants to hear of changes: the log is read every second for the
   * next 10 minutes. Resolves once `version` counts every change made before
   * the call (at once, unless the clock is new or had lapsed).
   */
  async follow(): Promise<void> {
    const lapsed = Date.now() > this.followedUntil;
    this.followedUntil = Date.now() + FOLLOWED_MS;
    if (!this.storage || this.starting) {
      this.starting ??= this.start().finally(() => (this.starting = null));
      return this.starting;
    }
    if (this.stopped || !lapsed) return;
    this.readSoon(this.deps.pollInterval ?? POLL_MS);
    await this.freshRead();
  }

  /**
   * The first version whose reads include the event `seq`, reading the log
   * first when it has not been seen yet; null when the log holds no such
   * event (never given: not an id of this database's log).
   */
  async covering(seq: number): Promise<number | null> {
    await this.follow();
    if (seq > this.seq) await this.freshRead();
    if (seq > this.seq) return null;
    return this.steps.find((step) => step.seq >= seq)!.version;
  }

  /** Stops reading the log (the plugin is stopping). */
  stop(): void {
    this.stopped = true;
    this.timer.cancel();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private async start(): Promise<void> {
    const storage = await this.deps.getStorage();
    this.storage = storage;
    try {
      await this.freshRead();
    } catch (error) {
      this.storage = null;
      throw error;
    }
    if (this.stopped) return;
    this.unsubscribe = onStorageWrite(storage, () => {
      this.changed();
      if (Date.now() <= this.followedUntil) this.readSoon(WAKE_MS);
    });
    this.readSoon(this.deps.pollInterval ?? POLL_MS);
  }

  /** The next read of the log in `delay` (or sooner, as planned). */
  private readSoon(delay: number): void {
    if (this.stopped) return;
    this.timer.within(delay);
  }

  private async poll(): Promise<void> {
    try {
      await this.freshRead();
      this.failing = false;
    } catch (error) {
      // Logged once per run of failures: the next read tries again.
      if (!this.failing) this.deps.log.error("Reading the live event log failed", error);
      this.failing = true;
    }
    if (Date.now() <= this.followedUntil) this.readSoon(this.deps.pollInterval ?? POLL_MS);
  }

  /** A read of the log begun after this call; callers meanwhile share one read after the one running. */
  private freshRead(): Promise<void> {
    if (!this.reading) {
      const reading = this.read().finally(() => {
        if (this.reading === reading) this.reading = null;
      });
      this.reading = reading;
      return reading;
    }
    this.nextRead ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.nextRead = null;
        return this.freshRead();
      });
    return this.nextRead;
  }

  private async read(): Promise<void> {
    const { newest } = await this.storage!.events.bounds();
    if (this.rises > 0 && newest <= this.seq) return;
    this.rises++;
    this.seq = newest;
    this.steps.push({ seq: newest, version: this.version });
    if (this.steps.length > STEPS_KEPT) this.steps.shift();
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
