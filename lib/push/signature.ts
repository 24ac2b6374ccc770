import { createHmac, timingSafeEqual } from "node:crypto";

const ALGORITHMS = new Set(["sha1", "sha256", "sha384", "sha512"]);

/**
 * True when `header` (X-Hub-Signature: `method=hexdigest`) is the HMAC of
 * the raw body under `secret`, with one of the methods WebSub allows
 * (sha1, sha256, sha384, sha512). Compared in constant time; a header
 * in any other form, or of the wrong length, is simply not valid.
 */
export function validSignature(header: string | undefined | null, body: Uint8Array, secret: string): boolean {
  if (typeof header !== "string") return false;
  const match = /^\s*(sha1|sha256|sha384|sha512)=([0-9a-f]+)\s*$/i.exec(header);
  if (!match) return false;
  const method = match[1].toLowerCase();
  if (!ALGORITHMS.has(method)) return false;
  const expected = createHmac(method, secret).update(body).digest();
  const given = Buffer.from(match[2].toLowerCase(), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
