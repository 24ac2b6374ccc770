/**
 * A small map that forgets its least recently used entry beyond `capacity`
 * entries or `maxBytes` (as each entry's `bytes` says).
 */
export class BoundedMap<V extends { bytes: number }> {
  private readonly entries = new Map<string, V>();
  private held = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    if (value.bytes > this.maxBytes) return;
    this.entries.set(key, value);
    this.held += value.bytes;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.capacity && this.held <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (!value) return;
    this.entries.delete(key);
    this.held -= value.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A value loaded for a key, and the state of the data it was loaded under. */
interface Loaded<T> {
  bytes: number;
  /** Rises with every load, so what was built from a value can tell it is still current. */
  version: number;
  changes: number;
  at: number;
  value: Promise<T>;
}

/**
 * Values loaded per key and kept while the data has not changed: no write of
 * this process since (its storage's change count is the same) and at most
 * `ttlMs` old, the bound for writes this process cannot see (another process
 * sharing the database, the Microsub plugin). Requests arriving while a value
 * loads share that load; a failed load is not kept.
 */
export class FreshValues<T> {
  private readonly values: BoundedMap<Loaded<T>>;
  private version = 0;

  constructor(
    private readonly ttlMs: number,
    capacity: number,
  ) {
    this.values = new BoundedMap(capacity);
  }

  get(key: string, changes: number, load: () => Promise<T>, now = Date.now()): { version: number; value: Promise<T> } {
    const kept = this.values.get(key);
    if (kept && kept.changes === changes && now - kept.at < this.ttlMs) return kept;
    const entry: Loaded<T> = { bytes: 0, version: ++this.version, changes, at: now, value: load() };
    this.values.set(key, entry);
    entry.value.catch(() => {
      if (this.values.get(key) === entry) this.values.delete(key);
    });
    return entry;
  }

  /** Drops what was loaded for `key` (an answer not worth keeping). */
  forget(key: string): void {
    this.values.delete(key);
  }
}
