import { promisify } from "node:util";
import zlib from "node:zlib";
import { brotliOptions, type Coding } from "../api/codings.js";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Encoders run in libuv's thread pool. */
const ENCODE: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => brotli(body, brotliOptions(body.length)),
  gzip: (body) => gzip(body),
};

/**
 * Compressions queued one after another. The page, the fragment and the JSON
 * are rebuilt after the same change and finish together: compressed at once,
 * their copies would take every core of a small machine (two here) from the
 * requests being answered meanwhile, each of which then waits for the
 * processor; one at a time, a core stays free for them.
 */
let queue: Promise<unknown> = Promise.resolve();
let running = 0;

function encodeInTurn(coding: Coding, body: Buffer): Promise<Buffer> {
  const copy = queue.then(async () => {
    EncodedBody.mostAtOnce = Math.max(EncodedBody.mostAtOnce, ++running);
    try {
      return await ENCODE[coding](body);
    } finally {
      running--;
    }
  });
  queue = copy.catch(() => undefined);
  return copy;
}

/**
 * A kept body and its compressed copies, each made once when first asked
 * for (or beforehand: `prepare`). Compressed per request by the host's
 * middleware instead, a large page would cost every reader the compression
 * and several passes of the event loop (one per 16 KB of compressed output), each of which may wait
 * for a turn of a rebuild; a compressed copy goes out in one write.
 */
export class EncodedBody {
  private readonly copies = new Map<Coding, Promise<Buffer>>();
  /** Copies made of all bodies so far (tests count them). */
  static made = 0;
  /** The most compressions that ran at once so far (tests check they queue). */
  static mostAtOnce = 0;

  constructor(readonly body: Buffer) {}

  /** The body in `coding` (its one copy, shared by every request). */
  in(coding: Coding): Promise<Buffer> {
    let copy = this.copies.get(coding);
    if (!copy) {
      EncodedBody.made++;
      copy = encodeInTurn(coding, this.body);
      // A failed copy is made again at the next request.
      copy.catch(() => this.copies.delete(coding));
      this.copies.set(coding, copy);
    }
    return copy;
  }

  /** Makes the copies in these codings now (a rebuild, for the codings readers asked for before). */
  async prepare(codings: Iterable<Coding>): Promise<void> {
    await Promise.all([...codings].map((coding) => this.in(coding)));
  }
}
