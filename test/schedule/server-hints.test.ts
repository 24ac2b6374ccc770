import assert from "node:assert/strict";
import { it } from "node:test";
import { freshnessLifetime } from "../../lib/schedule/server-hints.js";

const now = new Date("2026-03-01T12:00:00Z");
const none = { cacheControl: null, expires: null, date: null };

it("Cache-Control max-age is read in seconds and wins over Expires", () => {
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "public, max-age=3600" }, now), { maxAge: 3_600_000, expiresIn: null });
  assert.deepEqual(freshnessLifetime({ cacheControl: "Max-Age=\"60\"", expires: "Sun, 01 Mar 2026 20:00:00 GMT", date: null }, now), {
    maxAge: 60_000,
    expiresIn: null,
  });
});

it("no-store and no-cache promise nothing", () => {
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "no-cache, max-age=3600" }, now), { maxAge: null, expiresIn: null });
  assert.deepEqual(freshnessLifetime({ ...none, cacheControl: "no-store", expires: "Sun, 01 Mar 2026 20:00:00 GMT" }, now), { maxAge: null, expiresIn: null });
});

it("Expires is read against the server's Date, else our clock; past or invalid ones are no floor", () => {
  const expires = "Sun, 01 Mar 2026 14:00:00 GMT";
  assert.equal(freshnessLifetime({ ...none, expires, date: "Sun, 01 Mar 2026 13:00:00 GMT" }, now).expiresIn, 3_600_000);
  assert.equal(freshnessLifetime({ ...none, expires }, now).expiresIn, 7_200_000);
  assert.equal(freshnessLifetime({ ...none, expires: "0" }, now).expiresIn, null);
  assert.equal(freshnessLifetime({ ...none, expires: "Sat, 01 Jan 2000 00:00:00 GMT" }, now).expiresIn, null);
});
