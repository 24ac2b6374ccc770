import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RETRY_AFTER, parseRetryAfter } from "../../lib/http/retry-after.js";

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 10, 23, 8, 0, 0);

  it("reads delay seconds", () => {
    assert.equal(parseRetryAfter("60", now)?.getTime(), now + 60_000);
    assert.equal(parseRetryAfter(" 0 ", now)?.getTime(), now);
  });

  it("reads HTTP dates, a past one meaning now", () => {
    assert.equal(parseRetryAfter("Mon, 23 Nov 2026 09:00:00 GMT", now)?.getTime(), now + 3_600_000);
    assert.equal(parseRetryAfter("Mon, 23 Nov 2026 07:00:00 GMT", now)?.getTime(), now);
  });

  it("clamps to one day", () => {
    assert.equal(MAX_RETRY_AFTER, 86_400_000);
    assert.equal(parseRetryAfter("99999999999", now)?.getTime(), now + MAX_RETRY_AFTER);
    assert.equal(parseRetryAfter("86401", now)?.getTime(), now + MAX_RETRY_AFTER);
    assert.equal(parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now)?.getTime(), now + MAX_RETRY_AFTER);
  });

  it("ignores what is neither", () => {
    for (const value of ["soon", "-5", "1.5", "2026-11-23", "", null])
      assert.equal(parseRetryAfter(value, now), null, String(value));
  });
});
