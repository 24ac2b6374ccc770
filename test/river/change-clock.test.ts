import assert from "node:assert/strict";
import { describe, it } from "node:test";
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

describe("river options", () => {
  it("have defaults and are validated", () => {
    const options = resolveOptions({});
    assert.equal(options.riverTitle, "Blogroll");
    assert.equal(options.riverHomePageUrl, null);
    assert.throws(() => resolveOptions({ riverTitle: " " }), OptionsError);
    assert.throws(() => resolveOptions({ riverDescription: 3 }), OptionsError);
    assert.throws(() => resolveOptions({ riverHomePageUrl: "javascript:alert(1)" }), OptionsError);
    assert.throws(() => resolveOptions({ riverHomePageUrl: "/relative" }), OptionsError);
    assert.equal(resolveOptions({ riverHomePageUrl: "https://example.org/blogroll/" }).riverHomePageUrl, "https://example.org/blogroll/");
  });
});
