import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffDelay, nextAttemptAt } from "../../lib/sync/backoff.js";

const MINUTE = 60_000;

test("back-off doubles from 5 minutes and stops at one day", () => {
  assert.deepEqual([1, 2, 3, 4].map(backoffDelay), [5 * MINUTE, 10 * MINUTE, 20 * MINUTE, 40 * MINUTE]);
  assert.equal(backoffDelay(9), 5 * MINUTE * 256); // 21 h 20 min
  assert.equal(backoffDelay(10), 24 * 60 * MINUTE); // 42 h 40 min, capped
  assert.equal(backoffDelay(500), 24 * 60 * MINUTE);
});

test("a future Retry-After wins over the back-off; a past or absurd one does not", () => {
  const now = new Date("2025-01-01T00:00:00Z");
  const later = new Date("2025-01-01T02:00:00Z");
  assert.deepEqual(nextAttemptAt(now, 1, later), later);
  assert.deepEqual(nextAttemptAt(now, 1, new Date("2024-12-31T00:00:00Z")), new Date(now.getTime() + 5 * MINUTE));
  assert.deepEqual(nextAttemptAt(now, 3, null), new Date(now.getTime() + 20 * MINUTE));
  const farAway = nextAttemptAt(now, 1, new Date("2026-01-01T00:00:00Z"));
  assert.deepEqual(farAway, new Date(now.getTime() + 24 * 60 * MINUTE), "never more than a day, like the back-off");
});
