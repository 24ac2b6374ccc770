import { createHmac, timingSafeEqual } from "node:crypto";

/** X-Hub-Signature: `method=hexdigest`, with one of the methods WebSub allows. */
const HEADER = /^\s*(sha1|sha256|sha384|sha512)=([0-9a-f]+)\s*$/i;

/** A check of a body's signature, fed the body as it arrives (nothing of it is kept). */
export interface SignatureCheck {
  update(chunk: Uint8Array): void;
  /** True when the bytes fed so far are what the header signed (compared in constant time). */
  valid(): boolean;
}

/**
 * A check of `header` against the HMAC of the body under `secret`, or null
 * when the header is missing or not of the form WebSub defines (sha1,
 * sha256, sha384 or sha512): no body can then be valid.
 */
export function signatureCheck(header: string | undefined | null, secret: string): SignatureCheck | null {
  if (typeof header !== "string") return null;
  const match = HEADER.exec(header);
  if (!match) return null;
  const hmac = createHmac(match[1].toLowerCase(), secret);
  const given = Buffer.from(match[2].toLowerCase(), "hex");
  let result: boolean | null = null;
  return {
    update: (chunk) => void hmac.update(chunk),
    valid: () => {
      if (result === null) {
        const expected = hmac.digest();
        result = given.length === expected.length && timingSafeEqual(given, expected);
      }
      return result;
    },
  };
}

/** True when `header` is the HMAC of the whole `body` under `secret` (see signatureCheck). */
export function validSignature(header: string | undefined | null, body: Uint8Array, secret: string): boolean {
  const check = signatureCheck(header, secret);
  if (!check) return false;
  check.update(body);
  return check.valid();
}
