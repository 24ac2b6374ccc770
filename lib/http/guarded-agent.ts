import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { blockedAddressMessage, isBlockedAddress } from "./address-policy.js";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  allowPrivateNetworks: boolean;
  /** Name resolution; the system resolver by default (tests inject their own). */
  resolve?: Resolver;
  /** Which addresses are refused; `isBlockedAddress` by default. */
  isBlocked?: (address: string) => boolean;
  /** Parallel connections per origin. */
  connections?: number;
}

const systemResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Thrown when a host resolves to an address the policy refuses; says the name only, never the address. */
export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
  constructor(hostname: string) {
    super(blockedAddressMessage(hostname));
    this.name = "BlockedAddressError";
  }
}

/**
 * A connect-time lookup that refuses the host if ANY of its addresses is
 * blocked: checking the address actually connected to closes the
 * DNS-rebinding gap, and refusing mixed answers keeps a name from
 * smuggling a private address in beside a public one.
 */
export function guardedLookup(options: GuardOptions): LookupFunction {
  const resolve = options.resolve ?? systemResolve;
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  return ((
    hostname: string,
    lookupOptions: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`cannot resolve ${hostname}`), { code: "ENOTFOUND" }));
        if (!options.allowPrivateNetworks && addresses.some((entry) => isBlocked(entry.address)))
          return callback(new BlockedAddressError(hostname));
        const family = Number(lookupOptions?.family) || 0;
        const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
        if (usable.length === 0)
          return callback(Object.assign(new Error(`cannot resolve ${hostname}`), { code: "ENOTFOUND" }));
        if (lookupOptions?.all) return callback(null, usable);
        return callback(null, usable[0].address, usable[0].family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as LookupFunction;
}

/** An undici Agent whose every connection goes through the guarded lookup. */
export function createGuardedAgent(options: GuardOptions): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(options), timeout: 10_000 },
    connections: options.connections ?? 8,
    keepAliveTimeout: 10_000,
  });
}
