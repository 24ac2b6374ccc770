/**
 * Which queue a request waits in: feeds (`content`) or cosmetic lookups such
 * as site icons (`extra`), which only take what the feeds leave.
 */
export type Lane = "content" | "extra";

interface HostState {
  active: number;
  /** Of `active`, the extra-lane tasks. */
  extras: number;
  waiting: Record<Lane, Array<() => void>>;
}

/**
 * At most `perHost` tasks at a time per host, first come first served within
 * a lane, so a big sync never sends more than that many requests to one
 * server. Extra-lane tasks are second in line: a freed slot goes to a
 * waiting content task first, an extra task never starts while content
 * tasks wait for that host, and extras hold at most `perHost - 1` slots of
 * a host (one when `perHost` is 1), so a feed finds a slot free.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, HostState>();
  private readonly extraCap: number;

  constructor(private readonly perHost: number) {
    if (!Number.isInteger(perHost) || perHost < 1) throw new RangeError("perHost must be a positive integer");
    this.extraCap = Math.max(1, perHost - 1);
  }

  async run<T>(host: string, task: () => Promise<T>, lane: Lane = "content"): Promise<T> {
    const key = host.toLowerCase();
    let state = this.hosts.get(key);
    if (!state) {
      state = { active: 0, extras: 0, waiting: { content: [], extra: [] } };
      this.hosts.set(key, state);
    }
    if (this.mayStart(state, lane)) this.take(state, lane);
    // The releasing task takes the slot on our behalf before waking us.
    else await new Promise<void>((resolve) => state.waiting[lane].push(resolve));
    try {
      return await task();
    } finally {
      this.release(key, state, lane);
    }
  }

  /** Tasks running for a host now (for tests and progress). */
  activeFor(host: string): number {
    return this.hosts.get(host.toLowerCase())?.active ?? 0;
  }

  private mayStart(state: HostState, lane: Lane): boolean {
    if (state.active >= this.perHost) return false;
    return lane === "content" || (state.waiting.content.length === 0 && state.extras < this.extraCap);
  }

  private take(state: HostState, lane: Lane): void {
    state.active++;
    if (lane === "extra") state.extras++;
  }

  private release(key: string, state: HostState, lane: Lane): void {
    state.active--;
    if (lane === "extra") state.extras--;
    const next: Lane | null =
      state.waiting.content.length > 0
        ? "content"
        : state.waiting.extra.length > 0 && state.extras < this.extraCap
          ? "extra"
          : null;
    if (next) {
      this.take(state, next);
      state.waiting[next].shift()!();
    } else if (state.active === 0 && state.waiting.extra.length === 0) {
      this.hosts.delete(key);
    }
  }
}
