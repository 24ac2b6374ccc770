import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isBlockedAddress } from "../../lib/http/address-policy.js";

describe("isBlockedAddress", () => {
  const blocked = {
    "this network": ["0.0.0.0", "0.1.2.3"],
    loopback: ["127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1"],
    unspecified: ["::", "0:0:0:0:0:0:0:0"],
    "RFC 1918": ["10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.1", "192.168.0.1", "192.168.255.255"],
    "link-local and cloud metadata": ["169.254.0.1", "169.254.169.254", "fe80::1", "fe80::1%eth0", "febf::1"],
    CGNAT: ["100.64.0.1", "100.127.255.254"],
    "IETF, documentation and benchmarking": [
      "192.0.0.8",
      "192.0.2.5",
      "198.51.100.1",
      "203.0.113.9",
      "198.18.0.1",
      "198.19.255.255",
      "2001:db8::1",
    ],
    multicast: ["224.0.0.1", "239.1.1.1", "ff02::1", "ff0e::1"],
    "reserved and broadcast": ["240.0.0.1", "255.255.255.255"],
    "unique local": ["fc00::1", "fd12:3456::1"],
    "IPv4-mapped, by the embedded address": [
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "0:0:0:0:0:ffff:c0a8:0101",
    ],
    "IPv4-compatible and SIIT": ["::127.0.0.1", "::ffff:0:127.0.0.1", "::ffff:0:a00:1"],
    "NAT64, by the embedded address": [
      "64:ff9b::7f00:1",
      "64:ff9b::10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::808:808",
    ],
    "6to4, by the embedded address": ["2002:7f00:1::", "2002:c0a8:101::1", "2002:a00:1::1"],
    Teredo: ["2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    "not an address": ["not-an-ip", "", "example.org", "1.2.3", "256.0.0.1"],
  };
  const allowed = [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.1",
    "169.253.1.1",
    "192.167.1.1",
    "198.17.255.255",
    "198.20.0.1",
    "223.255.255.254",
    "2606:4700::1",
    "2a00:1450:4001::200e",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "::ffff:5db8:d822",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ];

  for (const [range, addresses] of Object.entries(blocked)) {
    it(`refuses ${range}`, () => {
      for (const address of addresses) assert.equal(isBlockedAddress(address), true, address);
    });
  }
  it("allows public addresses, also when embedded in IPv6 translation forms", () => {
    for (const address of allowed) assert.equal(isBlockedAddress(address), false, address);
  });

  it("reads the embedded IPv4 address in every spelling: dotted with octets of any width, full or compressed, bracketed", () => {
    const refused = [
      "64:ff9b::172.16.100.200",
      "::ffff:0:192.168.100.200",
      "::172.16.100.200",
      "::ffff:172.16.100.200",
      "64:ff9b:0:0:0:0:a00:1",
      "64:ff9b:0:0:0:0:10.0.0.1",
      "2002:a00:1:0:0:0:0:1",
      "0:0:0:0:ffff:0:a00:1",
      "[64:ff9b::7f00:1]",
      "[::ffff:0:10.0.0.1]",
    ];
    for (const address of refused) assert.equal(isBlockedAddress(address), true, address);
    const public_ = [
      "64:ff9b::93.184.216.34",
      "::ffff:0:93.184.216.34",
      "::93.184.216.34",
      "64:ff9b:0:0:0:0:8.8.8.8",
      "64:ff9b:0:0:0:0:808:808",
      "0:0:0:0:ffff:0:8.8.8.8",
      "2002:808:808:0:0:0:0:1",
      "[2606:4700::1]",
      "[64:ff9b::8.8.8.8]",
      "2606:4700::1:8.8.8.8",
    ];
    for (const address of public_) assert.equal(isBlockedAddress(address), false, address);
  });

  it("reads an IPv4 address only out of the exact translation forms: a lookalike one byte off is judged as the IPv6 address it is", () => {
    // Each ends in what would be 127.0.0.1 or 10.0.0.1 and differs from one form (mapped ::ffff:0:0/96,
    // SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) in one place. Those starting 0: lie in
    // reserved space, which the policy does not list (nothing routes there).
    const lookalikes = [
      // global unicast addresses
      "2606:4700::ffff:7f00:1",
      "2606:4700::ff:7f00:1",
      "2606:4700::ffff:0:7f00:1",
      "2606:4700::ff:0:7f00:1",
      "2064:ff9b::7f00:1",
      "2606:a00:1::1",
      "2a02:a00:1::1",
      "2003:a00:1::1",
      // reserved space
      "::ff:7f00:1",
      "::ff00:7f00:1",
      "::ff:0:7f00:1",
      "::ff00:0:7f00:1",
      "::1:0:7f00:1",
      "::ffff:1:7f00:1",
      "65:ff9b::7f00:1",
      "64:fe9b::7f00:1",
      "64:ff9a::7f00:1",
      "64:ff9b:0:0:0:1:7f00:1",
    ];
    for (const address of lookalikes) assert.equal(isBlockedAddress(address), false, address);
  });

  it("takes brackets only at the ends of the address", () => {
    for (const address of ["8.8[.8.8", "8.8].8.8", "2606:4700::[1]", "2606:[4700::1"])
      assert.equal(isBlockedAddress(address), true, address);
  });
});
