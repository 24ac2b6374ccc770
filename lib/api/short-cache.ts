import type { BlogrollContext } from "../context.js";
import { changeCount } from "../storage/change-count.js";
import type { Storage } from "../storage/types.js";

/** How long a figure holds during a sync run, however much the run writes. */
export const BUSY_HOLD_MS = 2000;

/**
 * A value computed from the whole blog list, kept per plugin instance until
 * the data changes: widgets poll these endpoints, and a count or grouping
 * over every blog must not run on each request, yet right after a sync, an
 * added or removed blog or cleared items every answer must agree with the
 * other endpoints. So an entry holds while no blog or item write of this
 * process has settled since it was computed (see change-count.ts), and at
 * most `ttlMs` — the bound for writes this process cannot see (another
 * process sharing the database, the Microsub plugin writing directly). A
 * caller that knows more passes a `stamp` (the last sync's time): an entry
 * made under another stamp is stale too.
 */
export function cachedPerContext<T>(
  ttlMs: number,
  load: (storage: Storage, context: BlogrollContext) => Promise<T>,
  busyHoldMs = BUSY_HOLD_MS,
) {
  const cache = new WeakMap<BlogrollContext, { at: number; changes: number; stamp: string; value: Promise<T> }>();
  /**
   * `busy`: a sync run is writing (every fetch is a write): an entry then
   * holds up to `busyHoldMs` whatever was written, so polling during a run
   * costs one computation per interval, not one per request.
   */
  return async (context: BlogrollContext, stamp = "", busy = false): Promise<T> => {
    const storage = await context.getStorage();
    const changes = changeCount(storage);
    const hit = cache.get(context);
    const age = hit ? Date.now() - hit.at : Infinity;
    if (hit && hit.stamp === stamp && age < ttlMs && (hit.changes === changes || (busy && age < busyHoldMs)))
      return hit.value;
    const value = load(storage, context);
    const entry = { at: Date.now(), changes, stamp, value };
    cache.set(context, entry);
    // A failed load is not kept: the next request tries again.
    value.catch(() => {
      if (cache.get(context) === entry) cache.delete(context);
    });
    return value;
  };
}
