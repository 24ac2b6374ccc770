import assert from "node:assert/strict";
import { it } from "node:test";
import { freshnessOf, healthQuery, healthState } from "../../lib/schedule/health.js";
import { freshFetchState } from "../../lib/storage/fresh.js";
import { OWNER_ORIGIN, type Blog } from "../../lib/storage/types.js";
import { DAY } from "../../lib/time/durations.js";

const now = new Date("2026-03-01T00:00:00Z");
const ago = (days: number) => new Date(now.getTime() - days * DAY);
const listed = [{ id: OWNER_ORIGIN, kind: "manual", since: now, values: {} }];
const blog = (fields: Partial<Blog>) =>
  ({ ...freshFetchState(), status: "active", skipItemFetch: false, origins: listed, ...fields }) as Blog;
const query = healthQuery({ dormantAfterDays: 180 }, now);

it("a blog's health: dormant after dormantAfterDays without a post, failing after a week of errors", () => {
  assert.deepEqual(query, { dormantBefore: ago(180), failingSince: ago(7) });
  assert.equal(healthState(blog({ lastPostAt: ago(10) }), query), "healthy");
  assert.equal(healthState(blog({ lastPostAt: ago(181) }), query), "dormant");
  assert.equal(
    healthState(blog({ status: "error", failingSince: ago(8), lastPostAt: ago(181) }), query),
    "failing",
    "failing comes first",
  );
  assert.equal(healthState(blog({ status: "error", failingSince: ago(2) }), query), "erroring");
  assert.equal(healthState(blog({ status: "gone" }), query), "gone");
  assert.equal(healthState(blog({ status: "pending" }), query), "pending");
  assert.equal(healthState(blog({ skipItemFetch: true }), query), "external");
  assert.equal(
    healthState(blog({ origins: [], lastPostAt: ago(181) }), query),
    "unlisted",
    "no one lists it: nothing else matters",
  );
});

it("how a blog is kept fresh: its schedule's reason, or why it is not fetched", () => {
  assert.equal(freshnessOf(blog({ fetchReason: "posting-rate" })), "posting-rate");
  assert.equal(freshnessOf(blog({ fetchReason: "push" })), "push");
  assert.equal(freshnessOf(blog({ status: "pending" })), "pending");
  assert.equal(freshnessOf(blog({ status: "error", nextFetchAt: ago(-0.1) })), "backoff");
  assert.equal(freshnessOf(blog({ status: "error", nextFetchAt: ago(-0.1), waitUntil: ago(-0.1) })), "retry-after");
  assert.equal(freshnessOf(blog({ status: "gone" })), "gone");
  assert.equal(freshnessOf(blog({ skipItemFetch: true })), "external");
  assert.equal(freshnessOf(blog({ origins: [], fetchReason: "posting-rate" })), "unlisted");
});

it("health at the edges: an unlisted blog is unlisted even when failing, failing from exactly a week, dormant only past dormantAfterDays", () => {
  assert.equal(healthState(blog({ origins: [], status: "error", failingSince: ago(8) }), query), "unlisted");
  assert.equal(healthState(blog({ status: "error", failingSince: ago(7) }), query), "failing");
  assert.equal(healthState(blog({ status: "error", failingSince: ago(6.99) }), query), "erroring");
  assert.equal(healthState(blog({ status: "error", failingSince: null }), query), "erroring");
  assert.equal(
    healthState(blog({ lastPostAt: ago(180) }), query),
    "healthy",
    "dormant after, not at, dormantAfterDays",
  );
  assert.equal(healthState(blog({ lastPostAt: null }), query), "healthy");
});

it("a failing blog waits for the server's Retry-After only when that wait is what sets its next try", () => {
  assert.equal(
    freshnessOf(blog({ status: "error", waitUntil: ago(-0.1), nextFetchAt: ago(-0.5) })),
    "backoff",
    "the back-off ends later",
  );
  assert.equal(freshnessOf(blog({ status: "error", waitUntil: ago(-0.1), nextFetchAt: null })), "backoff");
  assert.equal(freshnessOf(blog({ status: "error", waitUntil: ago(-0.5), nextFetchAt: ago(-0.1) })), "retry-after");
});
