import { randomUUID } from "node:crypto";
import type { Storage } from "../storage/types.js";

const LEASE_NAME = "sync";
/** Wait past a lease's end before retrying, so clocks a little apart agree it has lapsed. */
const LEASE_MARGIN = 1000;

/**
 * The sync lease in the meta store: one run at a time across every process
 * on the same database. The holder renews it while its run goes on; a
 * crashed holder's lease simply lapses.
 */
export class SyncLease {
  /** This process's name in the store. */
  readonly holder = randomUUID();

  /** `ttl`: the lease's lifetime; it is renewed at a third of it. */
  constructor(readonly ttl: number) {}

  /** Takes the lease, or renews it when this process holds it; false when another holder has it. */
  acquire(storage: Storage): Promise<boolean> {
    return storage.meta.acquireLease(LEASE_NAME, this.holder, this.ttl);
  }

  release(storage: Storage): Promise<void> {
    return storage.meta.releaseLease(LEASE_NAME, this.holder);
  }

  /** When a lease taken or renewed now lapses (the status record's `runningUntil`). */
  until(): string {
    return new Date(Date.now() + this.ttl).toISOString();
  }

  /**
   * How long to wait after a refusal before trying again: until the holder's
   * lease lapses (`runningUntil` as its run recorded it; a whole lifetime when
   * unknown, never more), plus the margin.
   */
  waitAfterRefusal(runningUntil: string | null): number {
    const left = runningUntil ? new Date(runningUntil).getTime() - Date.now() : Number.NaN;
    return (Number.isFinite(left) && left > 0 ? Math.min(left, this.ttl) : this.ttl) + LEASE_MARGIN;
  }

  /**
   * Renews the lease at a third of its lifetime until the returned function is
   * called: `renewed` after each renewal, `lost` when another holder has taken
   * it (this process was too slow to renew). Failed renewals are left to the next.
   */
  keepRenewed(storage: Storage, renewed: () => Promise<void>, lost: () => void): () => void {
    const timer = setInterval(
      () => {
        void this.acquire(storage)
          .then((held) => (held ? renewed() : lost()))
          .catch(() => undefined);
      },
      Math.max(50, Math.floor(this.ttl / 3)),
    );
    timer.unref?.();
    return () => clearInterval(timer);
  }
}
