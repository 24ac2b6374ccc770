import type { Storage } from "./types.js";

/** Blog and item store methods that only read; any other call may change counts, groups or lists. */
const READS: ReadonlySet<string> = new Set([
  "list",
  "get",
  "getByFeedUrl",
  "getMany",
  "categories",
  "listDue",
  "listUnfetchedWithHandle",
  "count",
  "latestByBlog",
]);

interface Counter {
  changes: number;
  /** Called each time a write has settled. */
  listeners: Set<() => void>;
}

const counters = new WeakMap<Storage, Counter>();

/**
 * The storage with its blog and item writes counted: `changeCount` rises
 * when each write has settled (done or failed), so a value computed from the
 * database before it can be told stale. Caches of whole-table figures
 * (status counts, categories) key on it and are invalidated by the writes of
 * this process, rather than by time alone. A method not known as a read
 * counts as a write, so a new one errs towards invalidating.
 */
export function countingChanges(storage: Storage): Storage {
  const counter: Counter = { changes: 0, listeners: new Set() };
  const counted = <T extends object>(store: T): T =>
    new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== "function" || typeof key !== "string" || READS.has(key)) return value;
        return (...args: unknown[]) =>
          Promise.resolve()
            .then(() => value.apply(target, args))
            .finally(() => {
              counter.changes++;
              for (const listener of counter.listeners) listener();
            });
      },
    });
  const result: Storage = { ...storage, blogs: counted(storage.blogs), items: counted(storage.items) };
  counters.set(result, counter);
  return result;
}

/**
 * Calls `listener` after each blog or item write through this storage has
 * settled (never for storage not made by countingChanges); returns the way to stop.
 */
export function onStorageWrite(storage: Storage, listener: () => void): () => void {
  const counter = counters.get(storage);
  counter?.listeners.add(listener);
  return () => void counter?.listeners.delete(listener);
}

/** Writes to blogs and items through this storage so far (always 0 for storage not made by countingChanges). */
export function changeCount(storage: Storage): number {
  return counters.get(storage)?.changes ?? 0;
}
