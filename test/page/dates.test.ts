import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { relativeDate } from "../../lib/page/dates.js";
import { DAY, HOUR, MINUTE } from "../../lib/time/durations.js";

describe("relative dates", () => {
  it("a text found again is the text formatted anew, in the past and the future, at zero from either side", () => {
    const now = Date.UTC(2026, 10, 27, 12);
    const diffs = [-400 * DAY, -40 * DAY, -9 * DAY, -DAY, -3 * HOUR, -90 * MINUTE, -MINUTE, -1, 0, 1, MINUTE, 2 * DAY];
    for (const locale of ["en", "de"]) {
      const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
      for (const round of [1, 2]) {
        const texts = diffs.map((diff) => relativeDate(new Date(now + diff), now, locale));
        assert.deepEqual(
          texts.slice(4, 10),
          [
            format.format(-3, "hour"),
            format.format(-1, "hour"),
            format.format(-1, "minute"),
            format.format(-0, "minute"),
            format.format(0, "minute"),
            format.format(0, "minute"),
          ],
          `${locale}, round ${round}`,
        );
        assert.equal(texts[0], format.format(-1, "year"));
        assert.equal(texts[11], format.format(2, "day"));
      }
    }
  });
});
