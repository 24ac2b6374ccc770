import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Admission, addressKey } from "../../lib/live/admission.js";
import { parseLastEventId } from "../../lib/live/frames.js";

describe("who a live client counts as", () => {
  it("is its IPv4 address, also when written as an IPv4-mapped IPv6 one", () => {
    assert.equal(addressKey("203.0.113.7"), "203.0.113.7");
    assert.equal(addressKey("::ffff:203.0.113.7"), "203.0.113.7");
  });

  it("is the /64 network of an IPv6 address, however it is written", () => {
    const key = "2001:db8:1:2::/64";
    for (const address of [
      "2001:db8:1:2::1",
      "2001:db8:1:2:aaaa:bbbb:cccc:dddd",
      "2001:0DB8:0001:0002:0:0:0:9",
      "2001:db8:1:2::7%eth0",
    ]) {
      assert.equal(addressKey(address), key, address);
    }
    assert.notEqual(addressKey("2001:db8:1:3::1"), key);
    assert.equal(addressKey("::1"), "0:0:0:0::/64");
  });
});

describe("places for live clients", () => {
  it("admits up to the limit per client and in all, and again once a place is given back", () => {
    const admission = new Admission({ max: 3, perAddress: 2 });
    assert.equal(admission.take("a"), true);
    assert.equal(admission.take("a"), true);
    assert.equal(admission.take("a"), false, "per address");
    assert.equal(admission.take("b"), true);
    assert.equal(admission.take("c"), false, "in all");
    admission.release("a");
    assert.equal(admission.take("c"), true);
    assert.equal(admission.size, 3);
    admission.release("unknown");
    assert.equal(admission.size, 3, "giving back a place never taken changes nothing");
  });
});

describe("Last-Event-ID", () => {
  it("is a seq when it is a whole number, nothing when absent, and unknown otherwise", () => {
    assert.equal(parseLastEventId("42"), 42);
    assert.equal(parseLastEventId(" 7 "), 7);
    assert.equal(parseLastEventId(undefined), null);
    assert.equal(parseLastEventId(""), null);
    for (const bad of ["-1", "1.5", "abc", "1e3", "9".repeat(16), ["1", "2"]])
      assert.ok(Number.isNaN(parseLastEventId(bad)), String(bad));
  });
});
