import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { codingsToUndo, decoderStreams, encodedCap, type ContentCoding } from "./content-coding.js";
import { FetchError } from "./errors.js";

export interface BodyRead {
  /** The body: decompressed, unless left encoded (see `encoding`). */
  bytes: Uint8Array;
  /** Bytes as they came over the wire, before decompression. */
  wire: number;
  /** The codings still to undo on `bytes` (see codingsToUndo), when the read left them encoded; else empty. */
  encoding: ContentCoding[];
}

/** Read only the start of a body: see `FetchOptions.partial`. */
export interface PartialRead {
  /** ASCII markers, any case (e.g. "</head"): reading stops after the chunk that completes one. */
  stopAt: readonly string[];
}

/** Thrown inside the pipeline to stop reading; never leaves this module. */
const ENOUGH = new Error("enough of the body was read");

/** Tells when one of the markers has gone by, also when a marker is split across chunks. */
function markerWatch(markers: readonly string[]): (chunk: Buffer) => boolean {
  if (markers.length === 0) return () => false;
  const pattern = new RegExp(markers.map((marker) => marker.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"), "i");
  const keep = Math.max(...markers.map((marker) => marker.length)) - 1;
  let tail = "";
  return (chunk) => {
    // latin1 maps bytes to characters one to one: ASCII markers are found in any ASCII-compatible charset.
    const text = tail + chunk.toString("latin1");
    tail = text.slice(-keep);
    return pattern.test(text);
  };
}

/**
 * Reads a response body, decompressing it, and stops with "too_large" as
 * soon as the DECOMPRESSED size passes `cap`: a gzip bomb costs at most the
 * cap plus one decoder chunk of memory. One pipeline joins every stage so
 * an error anywhere (reset, abort, bad compressed data) ends the whole read
 * instead of leaving a decoder waiting forever. The body is always
 * consumed or destroyed when this returns or throws.
 *
 * With `partial`, the body is cut at `cap` instead of refused, and reading
 * stops after a marker: the rest is never read (undici then closes the
 * connection if the server was still sending).
 *
 * With `leaveEncoded` (not with `partial`), a compressed body is read as it
 * came, up to what content of `cap` bytes takes compressed (encodedCap), and
 * left for whoever reads it to decode with decodeBody under the same cap (a
 * parse worker): this thread then holds a quarter of the bytes, or less.
 */
export async function readBody(
  body: Readable,
  contentEncoding: string | null,
  cap: number,
  partial?: PartialRead,
  leaveEncoded = false,
): Promise<BodyRead> {
  let codings: ContentCoding[];
  try {
    codings = codingsToUndo(contentEncoding);
  } catch (error) {
    // The body is ours to end; the listener keeps undici's abort error from going unhandled.
    body.on("error", () => undefined).destroy();
    throw error;
  }
  const encoding = leaveEncoded && !partial ? codings : [];
  // Left encoded, the bytes kept are compressed: what content of `cap` bytes may take so.
  const limit = encoding.length > 0 ? encodedCap(cap) : cap;
  const stages = encoding.length > 0 ? [] : decoderStreams(codings);
  let wire = 0;
  const chunks: Buffer[] = [];
  let size = 0;
  // The cap's own error: with stacked codings the pipeline may reject with a stage's abort instead.
  let overCap: FetchError | null = null;
  const countWire = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      wire += chunk.length;
      yield chunk;
    }
  };
  const sawMarker = partial ? markerWatch(partial.stopAt) : null;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      if (sawMarker) {
        const piece = chunk.length > cap - size ? chunk.subarray(0, cap - size) : chunk;
        size += piece.length;
        chunks.push(piece);
        if (size >= cap || sawMarker(piece)) throw ENOUGH;
        continue;
      }
      size += chunk.length;
      if (size > limit) throw (overCap = new FetchError("too_large", `response larger than ${cap} bytes`));
      chunks.push(chunk);
    }
  };
  try {
    // pipeline's typings cover fixed arities only; the stage list varies with the header.
    await (pipeline as (...streams: unknown[]) => Promise<void>)(body, countWire, ...stages, collect);
  } catch (error) {
    if (error !== ENOUGH) throw overCap ?? error;
  }
  return { bytes: Buffer.concat(chunks, size), wire, encoding };
}
