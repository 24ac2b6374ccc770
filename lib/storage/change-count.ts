import type { Storage, UpsertResult } from "./types.js";

/** Blog and item store methods that only read; any other call may change counts, groups or lists. */
const READS: ReadonlySet<string> = new Set([
  "list",
  "listPublic",
  "get",
  "getByFeedUrl",
  "getMany",
  "getManyPublic",
  "categories",
  "listDue",
  "listUnfetchedWithHandle",
  "count",
  "latestByBlog",
]);

/** One settled write: the count it raised `changeCount` to, and the blogs it wrote (null: it may have changed any). */
export interface SettledWrite {
  count: number;
  blogIds: readonly string[] | null;
}

/** The blogs a write touched, from its arguments and result. */
type Touched = (args: unknown[], result: unknown) => readonly string[] | null;
const firstArgument: Touched = (args) => [args[0] as string];
const returnedIds: Touched = (_, result) => result as string[];

/**
 * Writes that touch only the blogs they name or return (their items with
 * them). Any other write (unlist, which may change the values other origins'
 * blogs show; detachSource; deleteAll; a method added later) may have changed
 * any blog: its `blogIds` is null.
 */
const TOUCHED: Record<"blogs" | "items", Record<string, Touched>> = {
  blogs: {
    upsertFromSource: (_, result) => [(result as UpsertResult).blog.id],
    edit: firstArgument,
    softDelete: firstArgument,
    hideMany: returnedIds,
    softDeleteMany: returnedIds,
    purge: firstArgument,
    recordFetch: firstArgument,
    recordHint: firstArgument,
    setIcon: firstArgument,
    refreshItemStats: firstArgument,
  },
  items: {
    upsertMany: firstArgument,
    store: firstArgument,
    pruneOlderThan: (_, result) => (result as { blogIds: string[] }).blogIds,
  },
};

interface Counter {
  changes: number;
  /** Called each time a write has settled. */
  listeners: Set<(write: SettledWrite) => void>;
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
  const settled = (blogIds: readonly string[] | null) => {
    const write = { count: ++counter.changes, blogIds };
    for (const listener of counter.listeners) listener(write);
  };
  const counted = <T extends object>(store: T, touched: Record<string, Touched>): T =>
    new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== "function" || typeof key !== "string" || READS.has(key)) return value;
        const touches = Object.hasOwn(touched, key) ? touched[key] : null;
        return (...args: unknown[]) =>
          Promise.resolve()
            .then(() => value.apply(target, args))
            .then(
              (result: unknown) => {
                settled(touches ? touches(args, result) : null);
                return result;
              },
              (error: unknown) => {
                // A failed write may have changed something before failing.
                settled(null);
                throw error;
              },
            );
      },
    });
  const result: Storage = {
    ...storage,
    blogs: counted(storage.blogs, TOUCHED.blogs),
    items: counted(storage.items, TOUCHED.items),
  };
  counters.set(result, counter);
  return result;
}

/**
 * Calls `listener` after each blog or item write through this storage has
 * settled, with what it wrote (never for storage not made by
 * countingChanges); returns the way to stop.
 */
export function onStorageWrite(storage: Storage, listener: (write: SettledWrite) => void): () => void {
  const counter = counters.get(storage);
  counter?.listeners.add(listener);
  return () => void counter?.listeners.delete(listener);
}

/** Writes to blogs and items through this storage so far (always 0 for storage not made by countingChanges). */
export function changeCount(storage: Storage): number {
  return counters.get(storage)?.changes ?? 0;
}
