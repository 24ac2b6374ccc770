/**
 * X-Hub-Signature checks (WebSub §8) against the published HMAC test
 * vectors: RFC 2202 (SHA-1) and RFC 4231 (SHA-2), test case 2 of each
 * (key "Jefe", data "what do ya want for nothing?").
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validSignature } from "../../lib/push/signature.js";

const SECRET = "Jefe";
const BODY = new TextEncoder().encode("what do ya want for nothing?");
const DIGESTS = {
  sha1: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
  sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  sha384: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
  sha512:
    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
};
const SHA256 = `sha256=${DIGESTS.sha256}`;

/** The digest with one hex digit changed at `index` (same length). */
const flipped = (hex: string, index: number) =>
  hex.slice(0, index) + (hex[index] === "0" ? "1" : "0") + hex.slice(index + 1);

describe("validSignature", () => {
  it("accepts the HMAC of the body under the secret with each method WebSub allows", () => {
    for (const [method, digest] of Object.entries(DIGESTS))
      assert.equal(validSignature(`${method}=${digest}`, BODY, SECRET), true, method);
  });

  it("reads the method and the digest in any case, and white space around the header", () => {
    assert.equal(validSignature(`SHA256=${DIGESTS.sha256.toUpperCase()}`, BODY, SECRET), true);
    assert.equal(validSignature(`Sha1=${DIGESTS.sha1}`, BODY, SECRET), true);
    assert.equal(validSignature(`  ${SHA256}\t `, BODY, SECRET), true);
  });

  it("refuses a digest that differs in any digit, as long as the right one", () => {
    for (const index of [0, 31, DIGESTS.sha256.length - 1]) {
      assert.equal(validSignature(`sha256=${flipped(DIGESTS.sha256, index)}`, BODY, SECRET), false, `digit ${index}`);
    }
  });

  it("refuses the right digest under another method, secret or body", () => {
    assert.equal(validSignature(`sha512=${DIGESTS.sha256}`, BODY, SECRET), false);
    assert.equal(
      validSignature(`sha384=${DIGESTS.sha512.slice(0, 96)}`, BODY, SECRET),
      false,
      "a prefix of another digest, of the right length",
    );
    assert.equal(validSignature(SHA256, BODY, "jefe"), false);
    assert.equal(validSignature(SHA256, new TextEncoder().encode("what do ya want for nothing!"), SECRET), false);
    assert.equal(validSignature(SHA256, new Uint8Array(), SECRET), false);
  });

  it("refuses a digest of another length without throwing", () => {
    for (const digest of [
      DIGESTS.sha256.slice(0, -2),
      `${DIGESTS.sha256}00`,
      DIGESTS.sha256.slice(0, -1),
      DIGESTS.sha1,
      "00",
    ]) {
      assert.equal(validSignature(`sha256=${digest}`, BODY, SECRET), false, digest);
    }
  });

  it("refuses a header that is missing or not `method=hexdigest`", () => {
    const headers: Array<string | null | undefined> = [
      undefined,
      null,
      "",
      "sha256",
      "sha256=",
      `sha256:${DIGESTS.sha256}`,
      `sha256 =${DIGESTS.sha256}`,
      `sha256= ${DIGESTS.sha256}`,
      `md5=${DIGESTS.sha256}`,
      `sha224=${DIGESTS.sha256}`,
      `xsha256=${DIGESTS.sha256}`,
      `sha2566=${DIGESTS.sha256}`,
      `${SHA256}g`,
      `${SHA256} x`,
      `x ${SHA256}`,
      `sha256=${DIGESTS.sha256.slice(0, -1)}z`,
      `sha256=0x${DIGESTS.sha256}`,
      `${SHA256},sha1=${DIGESTS.sha1}`,
    ];
    for (const header of headers) assert.equal(validSignature(header, BODY, SECRET), false, String(header));
  });
});
