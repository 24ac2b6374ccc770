import zlib from "node:zlib";
import type { Request, Response } from "express";

/** Content codings a public answer is sent in, the compression middleware's preference first. */
const CODINGS = ["br", "gzip"] as const;
export type Coding = (typeof CODINGS)[number];

/** Bodies smaller than this go as they are (the compression middleware's threshold). */
const THRESHOLD = 1024;

/** Brotli at quality 4, as the compression middleware writes it. */
export function brotliOptions(size: number): zlib.BrotliOptions {
  return {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

/** The coding to send `body` in: the first of ours the request accepts, by its Accept-Encoding; null for the body as it is. */
export function chooseCoding(request: Request, body: Buffer): Coding | null {
  if (body.length < THRESHOLD) return null;
  const chosen = request.acceptsEncodings([...CODINGS]);
  return chosen === "br" || chosen === "gzip" ? chosen : null;
}

/**
 * Bodies up to this size are compressed on the spot, on this thread (about
 * half a millisecond for 64 KB): the compression middleware's stream would
 * hand them to libuv's thread pool and write the result in a later pass of
 * the event loop, and while a sync runs each pass waits behind every other
 * callback that is ready, so an answer that takes three passes waits three
 * times. Larger bodies stay with the middleware (or, for the page, with
 * copies made in the thread pool ahead of the readers: lib/page/encoded.ts).
 */
const ON_THE_SPOT_MAX = 64 * 1024;
/** Compressed copies kept (by coding and ETag): readers asking again between two changes cost nothing. */
const COPIES_KEPT = 32;
const copies = new Map<string, Buffer>();

/** Copies compressed so far (tests count them). */
export const onTheSpot = { made: 0 };

function compressNow(coding: Coding, body: Buffer, etag: string): Buffer {
  const key = `${coding} ${etag}`;
  const kept = copies.get(key);
  if (kept) return kept;
  onTheSpot.made++;
  const copy = coding === "br" ? zlib.brotliCompressSync(body, brotliOptions(body.length)) : zlib.gzipSync(body);
  // Oldest out first: a copy is wanted while its body is current, which a change ends for all alike.
  if (copies.size >= COPIES_KEPT) copies.delete(copies.keys().next().value as string);
  copies.set(key, copy);
  return copy;
}

/**
 * The body to send for a public answer that is not yet encoded: a small one
 * compressed here in the coding the request accepts (Content-Encoding set),
 * else the body as it is (for the middleware to compress when large).
 */
export function encodeSmallBody(request: Request, response: Response, body: Buffer, etag: string): Buffer {
  if (body.length > ON_THE_SPOT_MAX || response.get("Content-Encoding")) return body;
  response.vary("Accept-Encoding");
  const coding = chooseCoding(request, body);
  if (!coding) return body;
  response.set("Content-Encoding", coding);
  return compressNow(coding, body, etag);
}
