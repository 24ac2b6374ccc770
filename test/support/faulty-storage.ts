/**
 * A Storage wrapper for fault injection: every call through one of the four
 * stores is counted by name ("blogs.list", "items.upsertMany", …) and can be
 * made to fail, so tests can break the database at any chosen step and check
 * that the product answers with its documented error and recovers.
 */
import { StorageError, type Storage } from "../../lib/storage/types.js";

/** One call through the wrapper: "store.method" and its arguments. */
export interface StorageCall {
  name: string;
  args: unknown[];
}

export interface FaultyStorage extends Storage {
  /** Every call made since creation (or the last `resetCalls`), in order. */
  readonly calls: StorageCall[];
  resetCalls(): void;
  /** Fails the nth store call from now (1 = the very next one), once. */
  failNthCall(n: number): void;
  /** Fails every call the predicate accepts, until `clearFaults`. */
  failWhen(predicate: (call: StorageCall) => boolean): void;
  clearFaults(): void;
  /** How many calls were made to fail so far. */
  readonly failures: number;
}

const STORES = ["blogs", "items", "sources", "meta", "push", "recommendations", "events"] as const;

/** The error injected calls reject with: the adapters' own error type, with a message tests can look for in responses. */
export function injectedFault(name: string): StorageError {
  return new StorageError(`injected fault in ${name} (SECRET-DETAIL /var/db)`);
}

/** Wraps `inner` (which keeps working underneath) in a counting, fault-injecting Storage. */
export function createFaultyStorage(inner: Storage): FaultyStorage {
  const calls: StorageCall[] = [];
  let countdown = 0;
  let predicate: ((call: StorageCall) => boolean) | null = null;
  let failures = 0;

  const shouldFail = (call: StorageCall): boolean => {
    if (countdown > 0 && --countdown === 0) return true;
    return predicate !== null && predicate(call);
  };

  const wrapStore = (storeName: string, store: object): object =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          const call = { name: `${storeName}.${property}`, args };
          calls.push(call);
          if (shouldFail(call)) {
            failures++;
            return Promise.reject(injectedFault(call.name));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });

  const wrapped = Object.fromEntries(STORES.map((name) => [name, wrapStore(name, inner[name])]));
  return {
    kind: inner.kind,
    blogs: wrapped.blogs as Storage["blogs"],
    items: wrapped.items as Storage["items"],
    sources: wrapped.sources as Storage["sources"],
    meta: wrapped.meta as Storage["meta"],
    push: wrapped.push as Storage["push"],
    recommendations: wrapped.recommendations as Storage["recommendations"],
    events: wrapped.events as Storage["events"],
    init: () => inner.init(),
    close: () => inner.close(),
    calls,
    resetCalls: () => void calls.splice(0),
    failNthCall(n: number) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError("failNthCall: n must be a positive integer");
      countdown = n;
    },
    failWhen(next) {
      predicate = next;
    },
    clearFaults() {
      countdown = 0;
      predicate = null;
    },
    get failures() {
      return failures;
    },
  };
}
