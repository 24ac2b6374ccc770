import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BuiltBodies } from "../../lib/river/built-bodies.js";
import { ChangeClock } from "../../lib/river/change-clock.js";
import { OptionsError, resolveOptions } from "../../lib/options.js";

const T = Date.UTC(2026, 10, 25, 12, 0, 0);

describe("ChangeClock (Last-Modified of the river)", () => {
  it("keeps the first time a body was served while it stays the same, to the whole second", () => {
    const clock = new ChangeClock();
    assert.equal(clock.since("a", '"v1"', T + 400).getTime(), T);
    assert.equal(clock.since("a", '"v1"', T + 60_000).getTime(), T);
  });

  it("moves forward when the body changes, by at least a second even within the same second", () => {
    const clock = new ChangeClock();
    clock.since("a", '"v1"', T);
    assert.equal(clock.since("a", '"v2"', T + 300).getTime(), T + 1000);
    assert.equal(clock.since("a", '"v3"', T + 5000).getTime(), T + 5000);
  });

  it("never goes back when a body returns to an earlier version", () => {
    const clock = new ChangeClock();
    clock.since("a", '"v1"', T);
    clock.since("a", '"v2"', T + 10_000);
    assert.equal(clock.since("a", '"v1"', T + 20_000).getTime(), T + 20_000);
  });

  it("keeps URLs apart and forgets the least recently asked one beyond its capacity (which then starts again at now)", () => {
    const clock = new ChangeClock(2);
    clock.since("a", '"x"', T);
    clock.since("b", '"x"', T + 1000);
    clock.since("a", '"x"', T + 2000); // a is now the most recent
    clock.since("c", '"x"', T + 3000); // b is forgotten
    assert.equal(clock.since("a", '"x"', T + 4000).getTime(), T);
    assert.equal(clock.since("b", '"x"', T + 5000).getTime(), T + 5000);
  });
});

describe("BuiltBodies (river bodies kept while their data is the same)", () => {
  it("builds once per address while the data is unchanged, and again as soon as it changes", () => {
    const bodies = new BuiltBodies();
    let builds = 0;
    const build = (text: string) => () => {
      builds++;
      return Buffer.from(text);
    };
    assert.equal(bodies.get("atom a", { entries: [1, 2] }, build("v1")).toString(), "v1");
    assert.equal(bodies.get("atom a", { entries: [1, 2] }, build("unused")).toString(), "v1");
    assert.equal(builds, 1);
    assert.equal(bodies.get("atom a", { entries: [1, 2, 3] }, build("v2")).toString(), "v2");
    assert.equal(bodies.get("json a", { entries: [1, 2, 3] }, build("other address")).toString(), "other address");
    assert.equal(builds, 3);
  });

  it("is bounded in bytes: forgets the least recently asked river first, and keeps no body larger than the bound", () => {
    const bodies = new BuiltBodies(10);
    bodies.get("a", 1, () => Buffer.from("a1a1"));
    bodies.get("b", 1, () => Buffer.from("b1b1"));
    bodies.get("a", 1, () => Buffer.from("unused")); // a is now the most recent
    bodies.get("c", 1, () => Buffer.from("c1c1")); // b goes: 12 bytes > 10
    assert.equal(bodies.size, 2);
    assert.equal(bodies.bytes, 8);
    assert.equal(bodies.get("a", 1, () => Buffer.from("a2")).toString(), "a1a1");
    assert.equal(bodies.get("b", 1, () => Buffer.from("b2")).toString(), "b2");
    assert.equal(bodies.get("huge", 1, () => Buffer.from("x".repeat(11))).length, 11);
    assert.ok(bodies.bytes <= 10);
  });
});

describe("river options", () => {
  it("have defaults and are validated", () => {
    const options = resolveOptions({});
    assert.equal(options.riverTitle, "Blogroll");
    assert.equal(options.riverHomePageUrl, null);
    assert.throws(() => resolveOptions({ riverTitle: " " }), OptionsError);
    assert.throws(() => resolveOptions({ riverDescription: 3 }), OptionsError);
    assert.throws(() => resolveOptions({ riverHomePageUrl: "javascript:alert(1)" }), OptionsError);
    assert.throws(() => resolveOptions({ riverHomePageUrl: "/relative" }), OptionsError);
    assert.equal(
      resolveOptions({ riverHomePageUrl: "https://example.org/blogroll/" }).riverHomePageUrl,
      "https://example.org/blogroll/",
    );
  });
});
