import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { FetchError } from "./errors.js";

/** The decompressors for a Content-Encoding header (stacked codings are undone last-applied first). */
function decoders(contentEncoding: string | null): NodeJS.ReadWriteStream[] {
  const codings = (contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding && coding !== "identity");
  return codings.reverse().map((coding) => {
    if (coding === "gzip" || coding === "x-gzip") return zlib.createGunzip();
    if (coding === "deflate") return zlib.createInflate();
    if (coding === "br") return zlib.createBrotliDecompress();
    throw new FetchError("network", `unsupported content encoding ${coding}`);
  });
}

export interface BodyRead {
  /** The decompressed body. */
  bytes: Uint8Array;
  /** Bytes as they came over the wire, before decompression. */
  wire: number;
}

/**
 * Reads a response body, decompressing it, and stops with "too_large" as
 * soon as the DECOMPRESSED size passes `cap`: a gzip bomb costs at most the
 * cap plus one decoder chunk of memory. One pipeline joins every stage so
 * an error anywhere (reset, abort, bad compressed data) ends the whole read
 * instead of leaving a decoder waiting forever. The body is always
 * consumed or destroyed when this returns or throws.
 */
export async function readBody(body: Readable, contentEncoding: string | null, cap: number): Promise<BodyRead> {
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
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > cap) throw (overCap = new FetchError("too_large", `response larger than ${cap} bytes`));
      chunks.push(chunk);
    }
  };
  let stages: NodeJS.ReadWriteStream[];
  try {
    stages = decoders(contentEncoding);
  } catch (error) {
    // The body is ours to end; the listener keeps undici's abort error from going unhandled.
    body.on("error", () => undefined).destroy();
    throw error;
  }
  // pipeline's typings cover fixed arities only; the stage list varies with the header.
  try {
    await (pipeline as (...streams: unknown[]) => Promise<void>)(body, countWire, ...stages, collect);
  } catch (error) {
    throw overCap ?? error;
  }
  return { bytes: Buffer.concat(chunks, size), wire };
}
