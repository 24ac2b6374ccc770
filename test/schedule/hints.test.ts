import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { HINT_BURST, HINT_INTERVAL, takeHint } from "../../lib/schedule/hints.js";

const T0 = new Date("2026-05-01T12:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

/** Takes `count` hints arriving at `arrivals`, each acted on (its budget stored), and returns when each may fetch. */
function actOn(arrivals: Date[], waitUntil: Date | null = null): Date[] {
  let budget: Date | null = null;
  return arrivals.map((arrival) => {
    const decision = takeHint(budget, arrival, waitUntil);
    budget = decision.budgetAt;
    return decision.at;
  });
}

describe("push hints: a budget per blog", () => {
  it("lets a burst through at once, then one every interval", () => {
    const times = actOn([T0, T0, T0, T0]);
    assert.deepEqual(
      times.map((time) => time.getTime() - T0.getTime()),
      [0, 0, HINT_INTERVAL, 2 * HINT_INTERVAL],
    );
    assert.equal(HINT_BURST, 2);
  });

  it("is whole again after a quiet spell", () => {
    const times = actOn([T0, T0, at(HINT_BURST * HINT_INTERVAL), at(HINT_BURST * HINT_INTERVAL)]);
    assert.deepEqual(
      times.map((time) => time.getTime() - T0.getTime()),
      [0, 0, 2 * HINT_INTERVAL, 2 * HINT_INTERVAL],
    );
  });

  it("never brings a fetch inside a server's Retry-After", () => {
    const waitUntil = at(6 * 3_600_000);
    const decision = takeHint(null, T0, waitUntil);
    assert.equal(decision.at.getTime(), waitUntil.getTime());
    assert.equal(decision.budgetAt.getTime(), waitUntil.getTime() + HINT_INTERVAL);
  });

  it("allows at most the burst plus one per interval, whatever the arrivals", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 * 3_600_000 }), { minLength: 1, maxLength: 200 }), (offsets) => {
        const arrivals = offsets.sort((a, b) => a - b).map(at);
        const times = actOn(arrivals).map((time) => time.getTime() - T0.getTime());
        for (let k = 0; k < times.length; k++) {
          // The k-th fetch (from 0) never comes before the budget allows it, nor before its notice.
          assert.ok(times[k] >= (k + 1 - HINT_BURST) * HINT_INTERVAL);
          assert.ok(times[k] >= offsets[k]);
        }
      }),
    );
  });
});
