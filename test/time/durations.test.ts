import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DAY, HOUR, MINUTE, SECOND, WEEK } from "../../lib/time/durations.js";
import { wholeSecond } from "../../lib/time/whole-second.js";

describe("durations", () => {
  it("are the lengths the calendar gives, in milliseconds", () => {
    const at = (day: number, hour = 0, minute = 0, second = 0) => Date.UTC(2024, 0, day, hour, minute, second);
    assert.equal(SECOND, at(1, 0, 0, 1) - at(1));
    assert.equal(MINUTE, at(1, 0, 1) - at(1));
    assert.equal(HOUR, at(1, 1) - at(1));
    assert.equal(DAY, at(2) - at(1));
    assert.equal(WEEK, at(8) - at(1));
  });
});

describe("wholeSecond", () => {
  it("cuts a time down to the second an HTTP date can say", () => {
    const second = Date.parse("Tue, 07 May 2024 08:09:10 GMT");
    assert.equal(wholeSecond(second), second);
    assert.equal(wholeSecond(second + 999), second);
    assert.equal(new Date(wholeSecond(second + 1)).toUTCString(), "Tue, 07 May 2024 08:09:10 GMT");
  });

  it("cuts times before 1970 down too, not towards zero", () => {
    assert.equal(wholeSecond(-1), -1000);
  });
});
