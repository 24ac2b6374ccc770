import { BlockList, isIP } from "node:net";

/**
 * Which addresses outbound requests may reach. Everything that is not the
 * public internet is refused: loopback, private, link-local (cloud
 * metadata), CGNAT, reserved, documentation, multicast and broadcast ranges,
 * and IPv6 forms that embed such an IPv4 address (mapped, NAT64, 6to4).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64], // discard-only
  ["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ["2001::", 32], // Teredo: the client address inside is obfuscated, refuse the range
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // old site-local
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The 16 bytes of an IPv6 address (which must be valid). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split("%")[0];
  const bytes: number[] = [];
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1].split(".").map(Number));
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, null];
  const groups = (part: string) =>
    part
      ? part
          .split(":")
          .filter(Boolean)
          .map((group) => parseInt(group, 16))
      : [];
  const front = groups(head);
  const back = rest === null ? [] : groups(rest);
  const missing = 8 - front.length - back.length - tail.length / 2;
  for (const group of [...front, ...Array(rest === null ? 0 : missing).fill(0), ...back])
    bytes.push(group >> 8, group & 0xff);
  return [...bytes, ...tail];
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number) => b.slice(at, at + 4).join(".");
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4(12); // ::ffff:0:a.b.c.d (SIIT translated)
  if (zeros(0, 12) && !zeros(12, 16)) return v4(12); // ::a.b.c.d (deprecated compatible form)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12); // NAT64 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 6to4 2002::/16
  return null;
}

/** True for an address outbound requests must not reach. Anything that is not an IP address is refused too. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family !== 6) return true;
  const v4 = embeddedIpv4(bare);
  if (v4 !== null && blocked.check(v4, "ipv4")) return true;
  return blocked.check(bare.split("%")[0], "ipv6");
}

/**
 * Why a request was refused, naming the host only (never the address it
 * resolved to) and the option that allows it, so the owner who meant to
 * follow a feed on their own network knows what to set.
 */
export function blockedAddressMessage(host: string): string {
  return `address not allowed: ${host} is on a private or reserved network (the allowPrivateNetworks option allows it)`;
}
