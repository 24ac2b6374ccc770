import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isBlockedAddress } from "../../lib/http/address-policy.js";

describe("isBlockedAddress", () => {
  const blocked = [
    "127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.1", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "100.127.255.254", "224.0.0.1", "239.1.1.1", "255.255.255.255", "240.0.0.1",
    "198.18.0.1", "192.0.2.5", "::", "::1", "[::1]", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b::10.0.0.1",
    "2002:7f00:1::", "2002:c0a8:101::1", "2001:db8::1", "2001:0:4136:e378::1", "::127.0.0.1", "not-an-ip", "",
  ];
  const allowed = ["93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];

  for (const address of blocked) it(`refuses ${address || "(empty)"}`, () => assert.equal(isBlockedAddress(address), true));
  for (const address of allowed) it(`allows ${address}`, () => assert.equal(isBlockedAddress(address), false));
});
