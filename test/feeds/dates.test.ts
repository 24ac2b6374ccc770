import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFeedDate } from "../../lib/feeds/dates.js";

const iso = (value: unknown) => parseFeedDate(value)?.toISOString() ?? null;

describe("parseFeedDate", () => {
  it("reads RFC 822 dates with numeric and named zones", () => {
    assert.equal(iso("Tue, 10 Jun 2003 04:00:00 GMT"), "2003-06-10T04:00:00.000Z");
    assert.equal(iso("Tue, 10 Jun 2003 04:00:00 UT"), "2003-06-10T04:00:00.000Z");
    assert.equal(iso("Tue, 10 Jun 2003 04:00:00 Z"), "2003-06-10T04:00:00.000Z");
    assert.equal(iso("Wed, 17 Jan 2018 15:50:00 EST"), "2018-01-17T20:50:00.000Z");
    assert.equal(iso("Wed, 17 Jul 2018 15:50:00 PDT"), "2018-07-17T22:50:00.000Z");
    assert.equal(iso("Sun, 28 Oct 2018 13:48:00 +0100"), "2018-10-28T12:48:00.000Z");
    assert.equal(iso("Wed, 22 Jan 2014 20:31:31 +0600"), "2014-01-22T14:31:31.000Z");
    assert.equal(iso("Mon, 2 June 2014 10:00 +0200 (CEST)"), "2014-06-02T08:00:00.000Z");
    assert.equal(iso("10 Jun 2003 04:00:00"), "2003-06-10T04:00:00.000Z");
  });

  it("reads RFC 822 military zones", () => {
    assert.equal(iso("10 Jun 2003 04:00:00 A"), "2003-06-10T03:00:00.000Z");
    assert.equal(iso("10 Jun 2003 04:00:00 N"), "2003-06-10T05:00:00.000Z");
    assert.equal(iso("10 Jun 2003 04:00:00 M"), "2003-06-09T16:00:00.000Z");
    assert.equal(iso("10 Jun 2003 04:00:00 Y"), "2003-06-10T16:00:00.000Z");
  });

  it("expands two-digit years (00-49 → 20xx, 50-99 → 19xx)", () => {
    assert.equal(iso("Sun, 10 Dec 17 13:01:36 -0800"), "2017-12-10T21:01:36.000Z");
    assert.equal(iso("Fri, 31 Dec 99 23:00:00 GMT"), "1999-12-31T23:00:00.000Z");
  });

  it("reads ISO 8601 / RFC 3339 and JSON Feed dates", () => {
    assert.equal(iso("2017-11-08T18:15:58-05:00"), "2017-11-08T23:15:58.000Z");
    assert.equal(iso("2012-08-04T01:29:34.677Z"), "2012-08-04T01:29:34.677Z");
    assert.equal(iso("2010-02-07T14:04:00-0500"), "2010-02-07T19:04:00.000Z");
    assert.equal(iso("2012-06-25 17:08:26+02"), "2012-06-25T15:08:26.000Z");
    assert.equal(iso("2013-06-30"), "2013-06-30T00:00:00.000Z");
  });

  it("takes dates without a zone as UTC, whatever the machine's zone", () => {
    assert.equal(iso("2012-06-25T17:08:26"), "2012-06-25T17:08:26.000Z");
  });

  it("reads the JavaScript Date#toString shape", () => {
    assert.equal(iso("Thu Jun 19 2014 06:00:00 GMT+0200 (Central European Summer Time)"), "2014-06-19T04:00:00.000Z");
  });

  it("rejects impossible calendar values instead of rolling them over", () => {
    assert.equal(iso("Tue, 31 Jun 2003 04:00:00 GMT"), null);
    assert.equal(iso("2021-02-29T00:00:00Z"), null);
    assert.equal(iso("2020-02-29T00:00:00Z"), "2020-02-29T00:00:00.000Z");
    assert.equal(iso("2003-06-10T25:00:00Z"), null);
    assert.equal(iso("2003-06-10T10:61:00Z"), null);
    assert.equal(iso("2003-13-10T10:00:00Z"), null);
    assert.equal(iso("Tue, 10 Foo 2003 04:00:00 GMT"), null);
  });

  it("rejects years outside 1970..9999", () => {
    assert.equal(iso("1969-12-31T23:59:59Z"), null);
    assert.equal(iso("1970-01-01T00:00:00Z"), "1970-01-01T00:00:00.000Z");
    assert.equal(iso("9999-12-31T23:59:59Z"), "9999-12-31T23:59:59.000Z");
    assert.equal(iso("9999-12-31T23:59:59-01:00"), null);
    assert.equal(iso(new Date("1900-01-01T00:00:00Z")), null);
  });

  it("returns null for garbage and non-strings", () => {
    for (const value of [
      "",
      "   ",
      "yesterday",
      "NaN",
      "June 25th, 2012",
      null,
      undefined,
      1_700_000_000_000,
      {},
      new Date(Number.NaN),
    ]) {
      assert.equal(parseFeedDate(value), null, String(value));
    }
  });

  it("passes valid Date objects through as copies", () => {
    const date = new Date("2020-01-01T00:00:00Z");
    const parsed = parseFeedDate(date);
    assert.equal(parsed?.getTime(), date.getTime());
    assert.notEqual(parsed, date);
  });
});
