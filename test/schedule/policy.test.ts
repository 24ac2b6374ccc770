import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  GONE_CHECK_INTERVAL,
  planNextFetch,
  postingInterval,
  REFERENCE_INTERVAL,
  serverFloor,
  squareRootInterval,
  type BlogSignals,
  type ScheduleLimits,
} from "../../lib/schedule/policy.js";
import { DAY, HOUR, MINUTE } from "../../lib/time/durations.js";

const limits: ScheduleLimits = { minFetchInterval: 15 * MINUTE, maxFetchInterval: DAY };
const now = new Date("2026-03-01T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
/** Posts every `gap`, the newest `gap` ago. */
const postsEvery = (gap: number, count = 10) => Array.from({ length: count }, (_, index) => ago(gap * (index + 1)));
const middle = () => 0.5; // no jitter
const signals = (patch: Partial<BlogSignals>): BlogSignals => ({
  now,
  outcome: "fetched",
  postDates: [],
  failureCount: 0,
  hints: {},
  ...patch,
});
const waitOf = (decision: { nextFetchAt: Date | null }) => decision.nextFetchAt!.getTime() - now.getTime();

describe("posting rate", () => {
  it("is the time from the oldest of the recent posts to now, per post", () => {
    assert.equal(postingInterval(postsEvery(6 * HOUR), now), 6 * HOUR);
    assert.equal(postingInterval([ago(3 * DAY)], now), 3 * DAY, "one post: its age");
    assert.equal(postingInterval([], now), null);
  });

  it("looks at the newest twenty posts of the last 90 days, ignores future dates, and slows down with every silent day", () => {
    const hourlyLongAgo = postsEvery(HOUR, 40).map((date) => new Date(date.getTime() - 30 * DAY));
    assert.equal(postingInterval(hourlyLongAgo, now), (30 * DAY + 20 * HOUR) / 20);
    assert.equal(postingInterval([new Date(now.getTime() + DAY), ago(2 * DAY)], now), 2 * DAY);
    assert.ok(postingInterval([ago(3 * DAY)], now)! < postingInterval([ago(4 * DAY)], now)!);
  });

  it("a blog without a post in 90 days is dormant", () => {
    assert.equal(
      postingInterval(
        postsEvery(DAY, 20).map((date) => new Date(date.getTime() - 91 * DAY)),
        now,
      ),
      Infinity,
    );
    const decision = planNextFetch(signals({ postDates: [ago(91 * DAY), ago(92 * DAY)] }), limits, middle);
    assert.equal(decision.interval, DAY);
  });
});

describe("posting rate at the edges", () => {
  it("counts a post dated exactly now, and one exactly 90 days old", () => {
    assert.equal(postingInterval([now], now), MINUTE, "at least a minute");
    assert.equal(postingInterval([ago(90 * DAY)], now), 90 * DAY);
    assert.equal(postingInterval([ago(90 * DAY + 1)], now), Infinity);
  });

  it("takes the newest twenty whatever order the dates come in", () => {
    const hourly = postsEvery(HOUR, 20);
    const older = [ago(60 * DAY), ago(61 * DAY), ago(62 * DAY), ago(63 * DAY), ago(64 * DAY)];
    for (const dates of [[...older, ...hourly], [...hourly].reverse().concat(older), [...older, ...hourly].reverse()]) {
      assert.equal(postingInterval(dates, now), HOUR);
    }
  });
});

describe("the square-root rule", () => {
  it("fetches a blog at a rate proportional to the square root of its posting rate", () => {
    // Four times the posting rate, twice the fetch rate.
    assert.equal(squareRootInterval(4 * DAY) / squareRootInterval(DAY), 2);
    assert.equal(squareRootInterval(6 * HOUR), Math.sqrt(6 * HOUR * REFERENCE_INTERVAL));
    const often = planNextFetch(signals({ postDates: postsEvery(6 * HOUR) }), limits, middle);
    const daily = planNextFetch(signals({ postDates: postsEvery(DAY) }), limits, middle);
    assert.equal(often.reason, "posting-rate");
    assert.ok(waitOf(often) < waitOf(daily));
    assert.equal(waitOf(daily), Math.round(Math.sqrt(DAY * REFERENCE_INTERVAL)));
  });

  it("clamps to minFetchInterval and maxFetchInterval", () => {
    const flood = planNextFetch(signals({ postDates: postsEvery(MINUTE) }), limits, middle);
    assert.equal(waitOf(flood), 15 * MINUTE);
    const dormant = planNextFetch(signals({ postDates: [ago(400 * DAY)] }), limits, middle);
    assert.equal(dormant.interval, DAY);
    assert.ok(waitOf(dormant) <= DAY && waitOf(dormant) >= 0.99 * DAY, "a dormant blog costs one request a day");
  });

  it("treats a feed without dated posts as posting daily", () => {
    const decision = planNextFetch(signals({ postDates: [] }), limits, middle);
    assert.equal(decision.reason, "unknown-rate");
    assert.equal(decision.interval, Math.sqrt(DAY * REFERENCE_INTERVAL));
  });

  it("304s are scheduled from the stored post dates like fresh content", () => {
    const fetched = planNextFetch(signals({ postDates: postsEvery(DAY) }), limits, middle);
    const unchanged = planNextFetch(signals({ outcome: "unchanged", postDates: postsEvery(DAY) }), limits, middle);
    assert.deepEqual(unchanged, fetched);
  });
});

describe("server floors", () => {
  const busy = postsEvery(HOUR);
  it("never fetches sooner than max-age, Expires, <ttl> or sy:updatePeriod ask", () => {
    for (const [hints, wait] of [
      [{ maxAge: 3 * HOUR }, 3 * HOUR],
      [{ expiresIn: 2 * HOUR }, 2 * HOUR],
      [{ ttlMinutes: 120 }, 2 * HOUR],
      [{ updateInterval: 4 * HOUR }, 4 * HOUR],
      [{ maxAge: HOUR, ttlMinutes: 300 }, 5 * HOUR],
    ] as const) {
      for (const roll of [0, 0.5, 0.999]) {
        const decision = planNextFetch(signals({ postDates: busy, hints }), limits, () => roll);
        assert.equal(decision.reason, "server");
        assert.ok(waitOf(decision) >= wait, `${JSON.stringify(hints)} roll ${roll}: jitter never goes below the floor`);
        assert.ok(waitOf(decision) <= wait * 1.1 + 1);
      }
    }
  });

  it("caps every floor at maxFetchInterval: a server cannot make us skip a blog for a month", () => {
    assert.equal(serverFloor({ maxAge: 30 * DAY, ttlMinutes: 60 * 24 * 30 }, now, limits), DAY);
    const decision = planNextFetch(signals({ postDates: busy, hints: { maxAge: 30 * DAY } }), limits, () => 0.999);
    assert.ok(waitOf(decision) <= DAY);
  });

  it("reads Retry-After as the wait from now; waits that are not finite or not ahead set no floor", () => {
    assert.equal(serverFloor({ retryAfter: new Date(now.getTime() + 2 * HOUR) }, now, limits), 2 * HOUR);
    assert.equal(serverFloor({ retryAfter: new Date(now.getTime() - HOUR) }, now, limits), 0);
    assert.equal(
      serverFloor({ maxAge: Infinity, expiresIn: Number.NaN, ttlMinutes: null, updateInterval: 0 }, now, limits),
      0,
    );
    assert.equal(serverFloor({ maxAge: -HOUR, expiresIn: 2 * HOUR }, now, limits), 2 * HOUR);
  });

  it("a floor exactly the schedule's interval leaves the reason with the posting rate", () => {
    const interval = Math.sqrt(DAY * REFERENCE_INTERVAL);
    const decision = planNextFetch(
      signals({ postDates: postsEvery(DAY), hints: { maxAge: interval } }),
      limits,
      middle,
    );
    assert.equal(decision.reason, "posting-rate");
    assert.equal(decision.interval, interval);
  });

  it("a floor below the schedule changes nothing", () => {
    const plain = planNextFetch(signals({ postDates: postsEvery(7 * DAY) }), limits, middle);
    const hinted = planNextFetch(
      signals({ postDates: postsEvery(7 * DAY), hints: { maxAge: 5 * MINUTE } }),
      limits,
      middle,
    );
    assert.deepEqual(hinted, plain);
  });
});

describe("failures", () => {
  it("back off as before: 5, 10, 20 minutes ... up to maxFetchInterval", () => {
    const waits = [1, 2, 3, 12].map((failureCount) =>
      waitOf(planNextFetch(signals({ outcome: "failed", failureCount }), limits, middle)),
    );
    assert.deepEqual(waits, [5 * MINUTE, 10 * MINUTE, 20 * MINUTE, DAY]);
    assert.deepEqual(planNextFetch(signals({ outcome: "failed", failureCount: 2 }), limits, middle), {
      nextFetchAt: new Date(now.getTime() + 10 * MINUTE),
      interval: 10 * MINUTE,
      waitUntil: null,
      reason: "backoff",
    });
  });

  it("a Retry-After that is not ahead of now is no wait: the back-off applies", () => {
    for (const retryAfter of [now, new Date(now.getTime() - HOUR)]) {
      const decision = planNextFetch(
        signals({ outcome: "failed", failureCount: 1, hints: { retryAfter } }),
        limits,
        middle,
      );
      assert.equal(decision.reason, "backoff", retryAfter.toISOString());
      assert.equal(decision.waitUntil, null);
      assert.equal(waitOf(decision), 5 * MINUTE);
    }
  });

  it("Retry-After on 429/503 sets the next try (sooner or later than the back-off), remembered as waitUntil, capped at maxFetchInterval", () => {
    const soon = new Date(now.getTime() + 2 * MINUTE);
    assert.deepEqual(
      planNextFetch(signals({ outcome: "failed", failureCount: 3, hints: { retryAfter: soon } }), limits, middle)
        .nextFetchAt,
      soon,
    );
    const retryAfter = new Date(now.getTime() + 3 * HOUR);
    const decision = planNextFetch(
      signals({ outcome: "failed", failureCount: 1, hints: { retryAfter } }),
      limits,
      middle,
    );
    assert.equal(decision.reason, "retry-after");
    assert.deepEqual(decision.nextFetchAt, retryAfter);
    assert.deepEqual(decision.waitUntil, retryAfter);
    assert.equal(decision.interval, 3 * HOUR);
    const far = planNextFetch(
      signals({ outcome: "failed", failureCount: 1, hints: { retryAfter: new Date(now.getTime() + 9 * DAY) } }),
      limits,
      middle,
    );
    assert.equal(waitOf(far), DAY);
    assert.equal(far.waitUntil!.getTime() - now.getTime(), DAY);
  });

  it("a gone feed is checked again a week later, whatever maxFetchInterval says", () => {
    assert.deepEqual(planNextFetch(signals({ outcome: "gone", failureCount: 1 }), limits, middle), {
      nextFetchAt: new Date(now.getTime() + 7 * DAY),
      interval: 7 * DAY,
      waitUntil: null,
      reason: "gone",
    });
    assert.equal(GONE_CHECK_INTERVAL, 7 * DAY);
  });
});

describe("push", () => {
  it("a blog whose hub pushes is only polled at maxFetchInterval, for safety", () => {
    const decision = planNextFetch(signals({ postDates: postsEvery(HOUR), pushActive: true }), limits, middle);
    assert.equal(decision.reason, "push");
    assert.equal(decision.interval, DAY);
  });
});

describe("jitter", () => {
  it("spreads blogs fetched together by ±10 %, within the limits", () => {
    const posts = postsEvery(DAY);
    const base = Math.sqrt(DAY * REFERENCE_INTERVAL);
    const low = waitOf(planNextFetch(signals({ postDates: posts }), limits, () => 0));
    const high = waitOf(planNextFetch(signals({ postDates: posts }), limits, () => 0.999999));
    assert.equal(low, Math.round(base * 0.9));
    assert.ok(Math.abs(high - base * 1.1) < 2);
    const floorLow = waitOf(planNextFetch(signals({ postDates: postsEvery(MINUTE) }), limits, () => 0));
    assert.equal(floorLow, 15 * MINUTE, "never below minFetchInterval");
  });

  it("blogs at the longest interval are spread over its last 1 %", () => {
    const waits = new Set(
      [0, 0.3, 0.7, 0.99].map((roll) =>
        waitOf(planNextFetch(signals({ postDates: [ago(999 * DAY)] }), limits, () => roll)),
      ),
    );
    assert.equal(waits.size, 4);
    for (const wait of waits) assert.ok(wait <= DAY && wait >= 0.99 * DAY);
  });
});
