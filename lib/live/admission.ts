import { isIPv4, isIPv6 } from "node:net";

/**
 * Who a client counts as for the per-address limit: its IPv4 address, or the
 * /64 network of an IPv6 one (one subscriber line usually gets a whole /64,
 * so counting single IPv6 addresses would be no limit at all).
 */
export function addressKey(address: string): string {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (isIPv4(plain) || !isIPv6(plain)) return plain;
  const [head, tail = ""] = plain.split("%")[0].split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = plain.includes("::")
    ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Places for live connections: at most `max` in all and `perAddress` per client (see addressKey). */
export class Admission {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: { max: number; perAddress: number }) {}

  /** Takes a place for a client; false when a limit is reached. */
  take(key: string): boolean {
    const held = this.byAddress.get(key) ?? 0;
    if (this.total >= this.limits.max || held >= this.limits.perAddress) return false;
    this.total++;
    this.byAddress.set(key, held + 1);
    return true;
  }

  /** Gives back a place taken for `key`. */
  release(key: string): void {
    const held = this.byAddress.get(key) ?? 0;
    if (held === 0) return;
    this.total--;
    if (held === 1) this.byAddress.delete(key);
    else this.byAddress.set(key, held - 1);
  }

  get size(): number {
    return this.total;
  }
}
