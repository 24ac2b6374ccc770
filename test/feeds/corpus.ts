import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

/** Shared test corpora, read in place. */
export const CORPORA = "/work/shared/corpora";

/** A corpus file as bytes, gunzipped when it is gzip (the HTTP layer's job in production). */
export function corpusBytes(path: string): Uint8Array {
  const bytes = readFileSync(`${CORPORA}/${path}`);
  return new Uint8Array(bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes);
}
