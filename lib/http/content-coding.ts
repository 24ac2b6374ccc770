import zlib from "node:zlib";
import { FetchError } from "./fetch-error.js";

/** A content coding we undo. */
export type ContentCoding = "gzip" | "deflate" | "br";

/**
 * The codings of a Content-Encoding header, in the order they are undone
 * (stacked codings last-applied first); a coding we cannot undo is a
 * FetchError ("network").
 */
export function codingsToUndo(contentEncoding: string | null): ContentCoding[] {
  const codings = (contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding && coding !== "identity");
  return codings.reverse().map((coding) => {
    if (coding === "gzip" || coding === "x-gzip") return "gzip";
    if (coding === "deflate" || coding === "br") return coding;
    throw new FetchError("network", `unsupported content encoding ${coding}`);
  });
}

/** A decompressing stream per coding, in the order given (see codingsToUndo). */
export function decoderStreams(codings: readonly ContentCoding[]): NodeJS.ReadWriteStream[] {
  return codings.map((coding) =>
    coding === "gzip"
      ? zlib.createGunzip()
      : coding === "deflate"
        ? zlib.createInflate()
        : zlib.createBrotliDecompress(),
  );
}

/**
 * The most bytes a compressed body may take when its content is at most
 * `cap` bytes: the codings' framing on content that does not compress
 * (deflate's stored blocks add 5 bytes per 16 KB at most, brotli's fewer,
 * gzip 18 bytes) stays well within a thousandth and a kilobyte.
 */
export function encodedCap(cap: number): number {
  return cap + Math.ceil(cap / 1000) + 1024;
}

/** An error code of data that is not what its coding says (zlib's Z_*, brotli's ERR__*). */
export function isDecodingError(code: unknown): boolean {
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR__"));
}

const UNDO: Record<ContentCoding, (bytes: Uint8Array, options: zlib.ZlibOptions) => Buffer> = {
  gzip: zlib.gunzipSync,
  deflate: zlib.inflateSync,
  br: zlib.brotliDecompressSync as (bytes: Uint8Array, options: zlib.ZlibOptions) => Buffer,
};

/**
 * Undoes `codings` (see codingsToUndo) at once, on the calling thread (a
 * parse worker's), with the errors a streamed read gives: "too_large" as
 * soon as the content passes `cap` (a bomb costs at most the cap), and
 * "network" for data that is not what its coding says.
 */
export function decodeBody(bytes: Uint8Array, codings: readonly ContentCoding[], cap: number): Uint8Array {
  let decoded = bytes;
  for (const [index, coding] of codings.entries()) {
    const last = index === codings.length - 1;
    try {
      decoded = UNDO[coding](decoded, { maxOutputLength: last ? cap : encodedCap(cap) });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ERR_BUFFER_TOO_LARGE") throw new FetchError("too_large", `response larger than ${cap} bytes`);
      if (isDecodingError(code)) throw new FetchError("network", "the response could not be decompressed");
      throw error;
    }
  }
  return decoded;
}
