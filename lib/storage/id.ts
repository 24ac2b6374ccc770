import { randomBytes } from "node:crypto";

const ID_PATTERN = /^[0-9a-f]{24}$/i;

/** True for a 24-hex-digit identifier (the ObjectId form both adapters use). */
export function isValidId(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}

const processRandom = randomBytes(5).toString("hex");
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A new identifier with the ObjectId layout (4-byte seconds, 5-byte process
 * random, 3-byte counter), so ids sort by creation time in every adapter.
 */
export function newId(now: number = Date.now()): string {
  counter = (counter + 1) % 0xffffff;
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, "0");
  return seconds + processRandom + counter.toString(16).padStart(6, "0");
}
