import express from "express";

/** Express's `trust proxy`: off, every hop, a number of hops, or the proxies' addresses. */
export type TrustProxy = boolean | number | string;

/**
 * Reads the `trustProxy` setting (BLOGROLL_TRUST_PROXY or the config file's
 * `trustProxy`): `true`/`false`, a number of proxy hops, or a comma-separated
 * list of addresses and subnets (`loopback`, `10.0.0.0/8`, …) as Express
 * takes them. Anything else stops the start with a clear message.
 */
export function parseTrustProxy(value: unknown): TrustProxy {
  if (typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "" || text === "false") return false;
    if (text === "true") return true;
    if (/^\d+$/.test(text)) return Number(text);
    try {
      // Express compiles the list when it is set, refusing what is not an address or subnet.
      express().set("trust proxy", text);
      return text;
    } catch (error) {
      throw new Error(
        `trustProxy: ${(error as Error).message} (expected true, false, a number of hops or addresses such as "loopback, 10.0.0.0/8")`,
        { cause: error },
      );
    }
  }
  throw new Error('trustProxy must be true, false, a number of hops or addresses such as "loopback, 10.0.0.0/8"');
}
