/**
 * At most `perHost` tasks at a time per host, first come first served, so a
 * big sync never sends more than that many requests to one server.
 */
export class HostLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly perHost: number) {
    if (!Number.isInteger(perHost) || perHost < 1) throw new RangeError("perHost must be a positive integer");
  }

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    const key = host.toLowerCase();
    if ((this.active.get(key) ?? 0) >= this.perHost) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key) ?? [];
        queue.push(resolve);
        this.waiting.set(key, queue);
      });
    } else {
      this.active.set(key, (this.active.get(key) ?? 0) + 1);
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.get(key)?.shift();
      if (next) {
        next(); // the slot passes straight to the next waiter
      } else {
        const count = (this.active.get(key) ?? 1) - 1;
        if (count === 0) this.active.delete(key);
        else this.active.set(key, count);
        this.waiting.delete(key);
      }
    }
  }

  /** Tasks running for a host now (for tests and progress). */
  activeFor(host: string): number {
    return this.active.get(host.toLowerCase()) ?? 0;
  }
}
