import assert from "node:assert/strict";
import { it } from "node:test";
import { freshnessLifetime } from "../../lib/schedule/server-hints.js";

const now = new Date("2026-03-01T12:00:00Z");
const none = { cacheControl: null, expires: null, date: null };

it("Cache-Control max-age is read in seconds and wins over Expires", () => {
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "public, max-age=3600" }, now), {
    maxAge: 3_600_000,
    expiresIn: null,
  });
  assert.deepEqual(
    freshnessLifetime({ cacheControl: 'Max-Age="60"', expires: "Sun, 01 Mar 2026 20:00:00 GMT", date: null }, now),
    {
      maxAge: 60_000,
      expiresIn: null,
    },
  );
});

it("no-store and no-cache promise nothing", () => {
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "no-cache, max-age=3600" }, now), {
    maxAge: null,
    expiresIn: null,
  });
  assert.deepEqual(
    freshnessLifetime({ ...none, cacheControl: "no-store", expires: "Sun, 01 Mar 2026 20:00:00 GMT" }, now),
    { maxAge: null, expiresIn: null },
  );
});

it("Expires is read against the server's Date, else our clock; past or invalid ones are no floor", () => {
  const expires = "Sun, 01 Mar 2026 14:00:00 GMT";
  assert.equal(
    freshnessLifetime({ ...none, expires, date: "Sun, 01 Mar 2026 13:00:00 GMT" }, now).expiresIn,
    3_600_000,
  );
  assert.equal(freshnessLifetime({ ...none, expires }, now).expiresIn, 7_200_000);
  assert.equal(freshnessLifetime({ ...none, expires: "0" }, now).expiresIn, null);
  assert.equal(freshnessLifetime({ ...none, expires: "Sat, 01 Jan 2000 00:00:00 GMT" }, now).expiresIn, null);
});

it("without headers, or with ones that say nothing, there is no floor", () => {
  assert.deepEqual(freshnessLifetime(none, now), { maxAge: null, expiresIn: null });
  assert.deepEqual(freshnessLifetime({ ...none, expires: "soon" }, now), { maxAge: null, expiresIn: null });
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "public" }, now), { maxAge: null, expiresIn: null });
});

it("max-age is the directive itself, written whole: spaces around = are fine, anything else is no max-age", () => {
  assert.equal(freshnessLifetime({ ...none, cacheControl: "max-age = 60" }, now).maxAge, 60_000);
  assert.equal(freshnessLifetime({ ...none, cacheControl: "max-age=999999999999" }, now).maxAge, 999_999_999_999_000);
  for (const cacheControl of ["x-max-age=60", "max-age=60x", "max-age=1234567890123", "max-age=-60", "max-age="]) {
    assert.equal(freshnessLifetime({ ...none, cacheControl }, now).maxAge, null, cacheControl);
  }
});

it("an Expires equal to the server's Date is no floor", () => {
  const at = "Sun, 01 Mar 2026 13:00:00 GMT";
  assert.equal(freshnessLifetime({ ...none, expires: at, date: at }, now).expiresIn, null);
  assert.equal(freshnessLifetime({ ...none, expires: "Sun, 01 Mar 2026 13:00:01 GMT", date: at }, now).expiresIn, 1000);
});
