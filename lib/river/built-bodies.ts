import { createHash } from "node:crypto";

/** Bytes of bodies kept at most (a river of 100 long posts is a few MB). */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The last body built per river (format, category, limit), reused while the
 * data it was built from is the same. Writing Atom costs about three times
 * the whole /api/items answer (bench/river.ts) and readers poll feeds that
 * rarely change; the data is still read on every request, so a change shows
 * at once. Bounded in bytes: the least recently asked river is dropped
 * first, and a body larger than the whole bound is not kept.
 */
export class BuiltBodies {
  private readonly entries = new Map<string, { fingerprint: string; body: Buffer }>();
  private heldBytes = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  /** Bodies kept, and their bytes. */
  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** The body for `key` built from `data`: the kept one when `data` is unchanged, else `build()`'s. */
  get(key: string, data: unknown, build: () => Buffer): Buffer {
    const fingerprint = createHash("sha1").update(JSON.stringify(data)).digest("base64url");
    const kept = this.entries.get(key);
    if (kept) this.forget(key, kept.body);
    const body = kept && kept.fingerprint === fingerprint ? kept.body : build();
    if (body.length > this.maxBytes) return body;
    this.entries.set(key, { fingerprint, body });
    this.heldBytes += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.heldBytes <= this.maxBytes) break;
      this.forget(oldest, entry.body);
    }
    return body;
  }

  private forget(key: string, body: Buffer): void {
    this.entries.delete(key);
    this.heldBytes -= body.length;
  }
}
