/**
 * One timer, set for the earliest time asked of it: asking for a later time
 * while it is set changes nothing, an earlier one moves it. It never keeps
 * the process alive.
 */
export class EarliestTimer {
  private timer: NodeJS.Timeout | null = null;
  private due = 0;

  constructor(private readonly run: () => void) {}

  /** Runs the task in `delay` ms, or sooner if already set sooner. */
  within(delay: number): void {
    const due = Date.now() + delay;
    if (this.timer && this.due <= due) return;
    this.cancel();
    this.due = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, delay);
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
