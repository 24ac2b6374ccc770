import type { BlogrollContext } from "../context.js";
import { changeCount } from "../storage/change-count.js";
import type { Storage } from "../storage/types.js";

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
export function cachedPerContext<T>(ttlMs: number, load: (storage: Storage, context: BlogrollContext) => Promise<T>) {
  const cache = new WeakMap<BlogrollContext, { at: number; changes: number; stamp: string; value: Promise<T> }>();
  return async (context: BlogrollContext, stamp = ""): Promise<T> => {
    const storage = await context.getStorage();
    const changes = changeCount(storage);
    const hit = cache.get(context);
    if (hit && hit.changes === changes && hit.stamp === stamp && Date.now() - hit.at < ttlMs) return hit.value;
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
