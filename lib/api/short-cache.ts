import type { BlogrollContext } from "../context.js";

/**
 * A value computed from the whole blog list, kept a few seconds per plugin
 * instance: widgets poll these endpoints, and a count or grouping over every
 * blog must not run on each request. Responses already tell clients to cache
 * for minutes (Cache-Control), so seconds of staleness here add nothing new.
 */
export function cachedPerContext<T>(ttlMs: number, load: (context: BlogrollContext) => Promise<T>) {
  const cache = new WeakMap<BlogrollContext, { at: number; value: Promise<T> }>();
  return (context: BlogrollContext): Promise<T> => {
    const hit = cache.get(context);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = load(context);
    cache.set(context, { at: Date.now(), value });
    // A failed load is not kept: the next request tries again.
    value.catch(() => cache.delete(context));
    return value;
  };
}
