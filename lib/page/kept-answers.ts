/**
 * How long a kept answer may be served while known to be out of date, and
 * how eagerly it is rebuilt. See KeptAnswers.
 */
export interface KeptAnswersPolicy {
  /** Answers kept (one per address and parameters), least recently asked forgotten first. */
  capacity: number;
  /** Bytes of kept answers at most (as `bytesOf` counts them). */
  maxBytes: number;
  /** An answer this old is rebuilt at the next request: the bound for changes `changes()` does not count. */
  ttlMs: number;
  /** An answer out of date for this long is no longer served: requests wait for its rebuild. */
  maxStaleMs: number;
  /** Rebuilds of one answer start at least this far apart (a burst of writes costs one or two). */
  minGapMs: number;
  /** A write's rebuild starts this long after it, so that the rest of its burst (a fetch stores posts, then its blog) is in it. */
  settleMs: number;
  /** A write starts a rebuild only of answers asked for within this long. */
  interestMs: number;
}

export interface KeptAnswersDeps<T> {
  policy: KeptAnswersPolicy;
  /** The changes seen so far (rises with each; the page's: its LogClock's version). */
  changes(): number;
  bytesOf(value: T): number;
  /** Whether a first answer is worth keeping (a made-up category's 404 is not). */
  keep(value: T): boolean;
  /** A background rebuild failed (the kept answer stays, out of date). */
  onError(error: unknown): void;
  now?: () => number;
}

interface Kept<T> {
  value: T;
  /** The change count when its build started: every change before is in it. */
  changes: number;
  /** When its build started. */
  at: number;
  /** Its build's number (they only grow). */
  build: number;
}

/** One address's kept answer and the rebuild that replaces it. */
interface Slot<T> {
  key: string;
  /** Builds the answer anew (the latest request's way to). */
  rebuild: () => Promise<T>;
  kept: Kept<T> | null;
  running: Promise<Kept<T>> | null;
  timer: NodeJS.Timeout | null;
  /** Since when the kept answer is known to miss a change (null: not known to). */
  staleSince: number | null;
  /** Builds numbered above this started after that change. */
  staleAfter: number;
  lastAsked: number;
  lastStart: number;
}

/**
 * Answers kept per address and rebuilt in the background, so a reader never
 * waits for a rebuild that a change made necessary: while one runs, requests
 * get the kept answer (with its own ETag and Last-Modified, which describe
 * it), and the new one from when it is ready.
 *
 * - A change (`changed()`) starts a rebuild, `settleMs` later, of every
 *   answer asked for within `interestMs` (at most one running per answer; one
 *   that finds changes made while it ran is followed by another, at least
 *   `minGapMs` after it began).
 * - An answer older than `ttlMs` (for changes not counted) is rebuilt at the
 *   next request, which still gets it.
 * - Staleness is bounded: an answer known to miss a change for more than
 *   `maxStaleMs` is not served; the request waits for a rebuild begun after
 *   that change. The first request for an address waits for its first build.
 * - A request may ask for a change count (`covering`): it gets no answer
 *   built before it, waiting for the rebuild when needed.
 */
export class KeptAnswers<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private bytes = 0;
  private builds = 0;
  private readonly now: () => number;

  constructor(private readonly deps: KeptAnswersDeps<T>) {
    this.now = deps.now ?? Date.now;
  }

  /** Builds started so far (first builds and rebuilds). */
  get buildCount(): number {
    return this.builds;
  }

  get size(): number {
    return this.slots.size;
  }

  /**
   * The answer for `key`: the kept one while it may be served, else a build's.
   * With `covering`, only an answer whose build began at that change count or
   * later is served (the request waits for one when the kept answer is older).
   */
  async get(key: string, rebuild: () => Promise<T>, covering?: number): Promise<T> {
    const now = this.now();
    let slot = this.slots.get(key);
    if (slot) {
      // Least recently asked last out.
      this.slots.delete(key);
      this.slots.set(key, slot);
    } else {
      slot = {
        key,
        rebuild,
        kept: null,
        running: null,
        timer: null,
        staleSince: null,
        staleAfter: 0,
        lastAsked: now,
        lastStart: 0,
      };
      this.slots.set(key, slot);
    }
    slot.rebuild = rebuild;
    slot.lastAsked = now;
    const { kept } = slot;
    if (!kept) {
      let first = await (slot.running ?? this.start(slot));
      if (covering !== undefined && first.changes < covering) first = await this.covering(slot, covering);
      if (!this.deps.keep(first.value) && this.slots.get(key) === slot && !slot.running) this.drop(slot);
      return first.value;
    }
    if (kept.changes !== this.deps.changes()) this.markStale(slot, now);
    if (covering !== undefined && kept.changes < covering) return (await this.covering(slot, covering)).value;
    else if (now - kept.at >= this.deps.policy.ttlMs && slot.staleSince === null && !slot.running) {
      // Unknown writes elsewhere: checked in the background, the kept answer served meanwhile.
      this.schedule(slot, now);
      return kept.value;
    }
    if (slot.staleSince === null) return kept.value;
    this.schedule(slot, now);
    if (now - slot.staleSince <= this.deps.policy.maxStaleMs) return kept.value;
    return (await this.current(slot)).value;
  }

  /** A change was seen: answers asked for lately are rebuilt. */
  changed(): void {
    const now = this.now();
    for (const slot of this.slots.values()) {
      if (!slot.kept) continue;
      this.markStale(slot, now);
      if (now - slot.lastAsked <= this.deps.policy.interestMs) this.schedule(slot, now, this.deps.policy.settleMs);
    }
  }

  private markStale(slot: Slot<T>, now: number): void {
    if (slot.staleSince !== null) return;
    slot.staleSince = now;
    slot.staleAfter = this.builds;
  }

  /** A build begun after the change the kept answer misses, waited for. */
  private async current(slot: Slot<T>): Promise<Kept<T>> {
    for (;;) {
      if (slot.kept && (slot.staleSince === null || slot.kept.build > slot.staleAfter)) return slot.kept;
      this.clearTimer(slot);
      await (slot.running ?? this.start(slot));
    }
  }

  /** A build begun at change count `changes` or later, waited for (the one running, when it did). */
  private async covering(slot: Slot<T>, changes: number): Promise<Kept<T>> {
    for (;;) {
      if (slot.kept && slot.kept.changes >= changes) return slot.kept;
      this.clearTimer(slot);
      const running = slot.running ?? this.start(slot);
      const built = await running;
      // Published unless a later build already was: that one covers it too.
      if (built.changes >= changes) return built;
    }
  }

  /** A rebuild now (or after `settle`), or when the gap since the last one has passed; none while one runs (it checks for writes when done). */
  private schedule(slot: Slot<T>, now: number, settle = 0): void {
    if (slot.running || slot.timer) return;
    const wait = Math.max(settle, slot.lastStart + this.deps.policy.minGapMs - now);
    if (wait <= 0) {
      void this.start(slot).catch(() => undefined);
      return;
    }
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.slots.get(slot.key) === slot && !slot.running) void this.start(slot).catch(() => undefined);
    }, wait);
    slot.timer.unref();
  }

  private clearTimer(slot: Slot<T>): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
  }

  private start(slot: Slot<T>): Promise<Kept<T>> {
    const at = this.now();
    const build = ++this.builds;
    const changes = this.deps.changes();
    slot.lastStart = at;
    const running = slot
      .rebuild()
      .then((value) => {
        const kept: Kept<T> = { value, changes, at, build };
        this.publish(slot, kept);
        return kept;
      })
      .catch((error: unknown) => {
        if (slot.kept) this.deps.onError(error);
        throw error;
      })
      .finally(() => {
        if (slot.running === running) slot.running = null;
        // Writes made while it ran: another rebuild (after the gap) while the answer is still wanted.
        if (slot.staleSince !== null && this.slots.get(slot.key) === slot && slot.kept) {
          if (this.now() - slot.lastAsked <= this.deps.policy.interestMs) this.schedule(slot, this.now());
        }
      });
    slot.running = running;
    return running;
  }

  private publish(slot: Slot<T>, kept: Kept<T>): void {
    const previous = slot.kept;
    if (previous && previous.build > kept.build) return;
    const before = previous ? this.deps.bytesOf(previous.value) : 0;
    slot.kept = kept;
    if (slot.staleSince !== null && kept.build > slot.staleAfter) slot.staleSince = null;
    // Writes since it began are not in it: out of date from its start (no later than they were made).
    if (kept.changes !== this.deps.changes() && slot.staleSince === null) {
      slot.staleSince = kept.at;
      slot.staleAfter = kept.build;
    }
    if (this.slots.get(slot.key) !== slot) return;
    this.bytes += this.deps.bytesOf(kept.value) - before;
    // A first answer not worth keeping is dropped by its request, and pushes no other out.
    if (previous || this.deps.keep(kept.value)) this.evict();
  }

  private drop(slot: Slot<T>): void {
    this.clearTimer(slot);
    this.slots.delete(slot.key);
    if (slot.kept) this.bytes -= this.deps.bytesOf(slot.kept.value);
  }

  private evict(): void {
    const { capacity, maxBytes } = this.deps.policy;
    for (const slot of this.slots.values()) {
      if (this.slots.size <= capacity && this.bytes <= maxBytes) break;
      this.drop(slot);
    }
  }
}
