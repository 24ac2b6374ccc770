import { createHash } from "node:crypto";

/**
 * The last body built per river address, reused while the data it was built
 * from is the same. Writing Atom costs about three times the whole /api/items
 * answer (bench/river.ts) and readers poll feeds that rarely change; the data
 * is still read on every request, so a change shows at once. Bounded: the
 * least recently asked address is dropped first.
 */
export class BuiltBodies {
  private readonly entries = new Map<string, { fingerprint: string; body: Buffer }>();

  constructor(private readonly capacity = 200) {}

  /** The body for `key` built from `data`: the kept one when `data` is unchanged, else `build()`'s. */
  get(key: string, data: unknown, build: () => Buffer): Buffer {
    const fingerprint = createHash("sha1").update(JSON.stringify(data)).digest("base64url");
    const kept = this.entries.get(key);
    this.entries.delete(key);
    const body = kept && kept.fingerprint === fingerprint ? kept.body : build();
    this.entries.set(key, { fingerprint, body });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return body;
  }
}
