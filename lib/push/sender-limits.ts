import type { Readable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { SignatureCheck } from "./signature.js";
import { MINUTE } from "../time/durations.js";

/** Fat pings (notifications carrying the feed) parsed and stored per subscription and minute; more are coalesced into a fetch. */
export const FAT_PINGS_PER_MINUTE = 6;
/**
 * The largest fat ping parsed and stored (a hub may send only the new
 * entries; a feed of tens of KB is usual). A larger signed one still counts,
 * as a hint: the blog's own feed is fetched within its budget.
 */
export const FAT_PING_MAX_BYTES = 1024 * 1024;

/** What reading a callback's body came to. */
export type InboundBody =
  | {
      outcome: "read";
      /** Bytes received. */
      size: number;
      /** The body (decoded), when it was to be kept, was at most FAT_PING_MAX_BYTES and fitted in the shared budget; null otherwise. */
      bytes: Uint8Array | null;
      /** Gives its bytes back to the shared budget: call once the body is no longer used. */
      release(): void;
    }
  | { outcome: "too-large" | "too-slow" | "unreadable" };

export interface ReadOptions {
  /** Keep the bytes (a signed fat ping within its rate; at most FAT_PING_MAX_BYTES); otherwise they are only counted and checked. */
  keep: boolean;
  /** Fed every byte as it arrives (the signature). */
  check: SignatureCheck | null;
  /** Content-Length and Content-Encoding as sent. */
  contentLength: string | undefined;
  contentEncoding: string | undefined;
  /** Cap on the bytes read (413 beyond); maxBodySize by default. */
  cap?: number;
}

const DECODERS: Record<string, (bytes: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  "x-gzip": promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress) as (bytes: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>,
};

/**
 * What one sender (one push subscription, by its id) may cost us, enforced
 * per sender so that no sender delays another:
 * - one body at a time (its slot): a second one while the first is read is
 *   answered 503 before it is read;
 * - each body read within `readTimeout` (408 after) and up to `maxBodySize`
 *   bytes (413 beyond);
 * - at most FAT_PINGS_PER_MINUTE bodies kept for parsing a minute, each of
 *   at most FAT_PING_MAX_BYTES.
 * Kept bodies of all senders together hold at most `maxKeptBytes`: past it a
 * body is still read and checked, but not kept (it then counts as a ping
 * without content). State is held only for senders with a body in flight or
 * kept pings in the last minute.
 */
export class SenderLimits {
  private readonly busy = new Set<string>();
  /** Times of each sender's kept fat pings in the last minute. */
  private readonly fatPings = new Map<string, number[]>();
  private keptBytes = 0;

  constructor(
    private readonly limits: { maxBodySize: number; readTimeout: number; maxKeptBytes: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes the sender's one slot; null when a body of this sender is being read already. Call the result to give it back. */
  take(sender: string): (() => void) | null {
    if (this.busy.has(sender)) return null;
    this.busy.add(sender);
    return () => void this.busy.delete(sender);
  }

  /** True, and counted, when a fat ping of this sender may be parsed now. */
  takeFatPing(sender: string): boolean {
    const now = this.now();
    const recent = (this.fatPings.get(sender) ?? []).filter((at) => now - at < MINUTE);
    if (recent.length >= FAT_PINGS_PER_MINUTE) {
      this.fatPings.set(sender, recent);
      return false;
    }
    recent.push(now);
    this.fatPings.set(sender, recent);
    this.forgetIdle(now);
    return true;
  }

  /** True when a fat ping of this sender could be parsed now (nothing is counted). */
  fatPingAvailable(sender: string): boolean {
    const now = this.now();
    return (this.fatPings.get(sender) ?? []).filter((at) => now - at < MINUTE).length < FAT_PINGS_PER_MINUTE;
  }

  /** Gives back a fat ping taken for a body that turned out not to be one (empty, unsigned, not a feed). */
  returnFatPing(sender: string): void {
    const recent = this.fatPings.get(sender);
    recent?.pop();
    if (recent?.length === 0) this.fatPings.delete(sender);
  }

  /** Bytes of kept bodies held now (all senders). */
  get heldBytes(): number {
    return this.keptBytes;
  }

  /**
   * Reads a callback's body under the limits (see the class). A body over the
   * cap or too slow is left unread (the stream is paused, not destroyed, so
   * the answer can still be sent; answer it with `Connection: close`).
   */
  async read(stream: Readable, options: ReadOptions): Promise<InboundBody> {
    const cap = options.cap ?? this.limits.maxBodySize;
    if (Number(options.contentLength) > cap) return { outcome: "too-large" };
    const coding = (options.contentEncoding ?? "identity").trim().toLowerCase();
    if (options.keep && coding !== "identity" && !DECODERS[coding]) return { outcome: "unreadable" };
    let keep = options.keep;
    let received = 0;
    let held = 0;
    // With a known length the body is copied into one buffer of that size as it arrives, so it is never held twice
    // (chunks and their concatenation) and the buffer is the body's alone: the parse pool can take it over whole.
    const declared = Number(options.contentLength);
    let whole: Buffer | null = null;
    let filled = 0;
    const chunks: Buffer[] = [];
    const drop = () => {
      this.keptBytes -= held;
      held = 0;
      whole = null;
      chunks.length = 0;
    };
    if (keep && Number.isInteger(declared) && declared > 0) {
      if (declared > FAT_PING_MAX_BYTES || this.keptBytes + declared > this.limits.maxKeptBytes) keep = false;
      else {
        whole = Buffer.allocUnsafeSlow(declared);
        held = declared;
        this.keptBytes += declared;
      }
    }
    const outcome = await new Promise<"read" | "too-large" | "too-slow" | "unreadable">((resolve) => {
      let size = 0;
      const finish = (result: "read" | "too-large" | "too-slow" | "unreadable") => {
        clearTimeout(timer);
        stream.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
        if (result !== "read") stream.pause();
        resolve(result);
      };
      const timer = setTimeout(() => finish("too-slow"), this.limits.readTimeout);
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > cap) return finish("too-large");
        options.check?.update(chunk);
        if (!keep) return;
        if (whole) {
          if (filled + chunk.length > whole.length) {
            keep = false;
            return drop();
          }
          filled += chunk.copy(whole, filled);
          return;
        }
        if (held + chunk.length > FAT_PING_MAX_BYTES || this.keptBytes + chunk.length > this.limits.maxKeptBytes) {
          // Too large to parse, or the shared budget is spent: this body is checked, not kept.
          keep = false;
          return drop();
        }
        chunks.push(chunk);
        held += chunk.length;
        this.keptBytes += chunk.length;
      };
      const onEnd = () => {
        received = size;
        finish("read");
      };
      const onError = () => finish("unreadable");
      const onClose = () => finish(stream.readableEnded ? "read" : "unreadable");
      stream.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
    });
    if (outcome !== "read") {
      drop();
      return { outcome };
    }
    let bytes: Buffer | null = null;
    if (keep)
      bytes = whole ? (filled === whole.length ? whole : whole.subarray(0, filled)) : Buffer.concat(chunks, held);
    chunks.length = 0;
    if (bytes && coding !== "identity" && bytes.length > 0) {
      try {
        bytes = await DECODERS[coding](bytes, { maxOutputLength: FAT_PING_MAX_BYTES });
        // What is held now is the decoded body.
        this.keptBytes += bytes.length - held;
        held = bytes.length;
      } catch {
        // Too large once decoded, or not what its coding says: read and checked all the same, not kept.
        drop();
        bytes = null;
      }
    }
    let released = false;
    return {
      outcome: "read",
      size: received,
      bytes,
      release: () => {
        if (released) return;
        released = true;
        drop();
      },
    };
  }

  /** Drops the windows of senders with no kept ping in the last minute. */
  private forgetIdle(now: number): void {
    if (this.fatPings.size < 256) return;
    for (const [sender, times] of this.fatPings)
      if (times.every((at) => now - at >= MINUTE)) this.fatPings.delete(sender);
  }
}
