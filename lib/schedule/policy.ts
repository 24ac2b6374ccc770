import { DAY, MINUTE } from "../time/durations.js";

/**
 * The scheduling policy: from what one fetch of a blog taught us, when to
 * fetch it next. Pure: the clock and the dice are inputs, so tests and the
 * benchmark drive it on a virtual clock.
 *
 * The rule (Cho and Garcia-Molina, "Effective page refresh policies for Web
 * crawlers", 2003): under a fixed request budget, the mean delay between a
 * post and its fetch is lowest when each blog is fetched at a rate
 * proportional to the square root of its posting rate. With posting interval
 * P, the fetch interval is sqrt(P × REFERENCE_INTERVAL), then clamped to the
 * owner's limits and raised to whatever the server asked for.
 */

/** The owner's bounds (options minFetchInterval / maxFetchInterval), in milliseconds. */
export interface ScheduleLimits {
  minFetchInterval: number;
  maxFetchInterval: number;
  /** The square-root rule's constant; REFERENCE_INTERVAL unless a benchmark sweeps it. */
  referenceInterval?: number;
}

/** What a server said about how often to come back. Each is a floor; absent ones are null/undefined. */
export interface ServerHints {
  /** Cache-Control max-age, in milliseconds. */
  maxAge?: number | null;
  /** Expires, as the wait it implies from the fetch (milliseconds; Expires minus the server's Date). */
  expiresIn?: number | null;
  /** RSS `<ttl>`, in minutes. */
  ttlMinutes?: number | null;
  /** sy:updatePeriod / sy:updateFrequency as one interval, in milliseconds. */
  updateInterval?: number | null;
  /** Retry-After of a 429 or 503. */
  retryAfter?: Date | null;
}

/** How the fetch went: new content, a 304 (or the same content), a failure, or 410. */
export type FetchOutcome = "fetched" | "unchanged" | "failed" | "gone";

/** Everything the policy knows about one blog after one fetch. */
export interface BlogSignals {
  now: Date;
  outcome: FetchOutcome;
  /** Publication dates of the blog's recent posts, any order. */
  postDates: readonly Date[];
  /** Consecutive failures including this fetch (0 after a success). */
  failureCount: number;
  hints: ServerHints;
  /** A verified, unexpired push subscription (WebSub or rssCloud) delivers this blog's posts. */
  pushActive?: boolean;
}

/** Why the next fetch is when it is (shown to the owner, counted by /api/status). */
export type ScheduleReason = "posting-rate" | "unknown-rate" | "server" | "push" | "backoff" | "retry-after" | "gone";

export interface ScheduleDecision {
  /** When to fetch next. */
  nextFetchAt: Date | null;
  /** The interval chosen before jitter (ms). */
  interval: number | null;
  /** A server's Retry-After: not even "Sync now" asks before it. */
  waitUntil: Date | null;
  reason: ScheduleReason;
}

/**
 * The constant of the square-root rule: a blog posting every P is fetched
 * every sqrt(P × 2.75 min). So one posting every 6 h is fetched about every
 * 31 min, daily about every 63 min, weekly about every 2.8 h, monthly about
 * every 5.7 h; one without a post in POSTING_WINDOW once every
 * maxFetchInterval. Chosen with bench/freshness.ts (which sweeps it): a
 * typical blogroll then costs under a quarter of hourly polling, with a
 * mean delay per post about hourly polling's.
 */
export const REFERENCE_INTERVAL = 2.75 * MINUTE;

/** A feed without dated posts is treated as posting daily: fetched about every 63 min. */
export const UNKNOWN_POSTING_INTERVAL = DAY;

/** Recent posts the estimate looks at. */
export const RECENT_POSTS = 20;

/** Posts older than this do not count: a blog without a post in 90 days is dormant, fetched at maxFetchInterval. */
export const POSTING_WINDOW = 90 * DAY;

/** Jitter: ±10 % of the interval; a blog at the longest interval comes up to 1 % early instead. */
const JITTER = 0.1;
const JITTER_AT_MAX = 0.01;

/**
 * A gone feed (410, or redirects ending in 404/410 for a week) is checked
 * once a week, whatever the owner's maxFetchInterval: rarely enough to leave
 * a dead site alone, often enough that a feed that comes back is seen.
 */
export const GONE_CHECK_INTERVAL = 7 * DAY;

/** Back-off after consecutive failures: 5 min, 10 min, 20 min, ... */
const BACKOFF_BASE = 5 * MINUTE;

/**
 * The blog's mean time between posts, from its newest RECENT_POSTS dates of
 * the last POSTING_WINDOW: the time from the oldest of them to now, divided
 * by their number. Counting up to now (not to the newest post) makes a blog
 * that stopped posting look slower with every silent day, and one silent for
 * the whole window is dormant (Infinity). Null without any dated post;
 * future dates are left out.
 */
export function postingInterval(postDates: readonly Date[], now: Date): number | null {
  const at = now.getTime();
  const dated = postDates.map((date) => date.getTime()).filter((time) => Number.isFinite(time) && time <= at);
  if (dated.length === 0) return null;
  const recent = dated
    .filter((time) => at - time <= POSTING_WINDOW)
    .sort((a, b) => b - a)
    .slice(0, RECENT_POSTS);
  if (recent.length === 0) return Number.POSITIVE_INFINITY;
  return Math.max(MINUTE, (at - recent[recent.length - 1]) / recent.length);
}

/** The square-root rule, before clamping. */
export function squareRootInterval(posting: number, reference = REFERENCE_INTERVAL): number {
  return Math.sqrt(posting * reference);
}

/** The longest wait any hint asks for (ms), each capped at maxFetchInterval; 0 without hints. */
export function serverFloor(hints: ServerHints, now: Date, limits: ScheduleLimits): number {
  const waits = [
    hints.maxAge,
    hints.expiresIn,
    hints.ttlMinutes == null ? null : hints.ttlMinutes * MINUTE,
    hints.updateInterval,
    hints.retryAfter ? hints.retryAfter.getTime() - now.getTime() : null,
  ];
  let floor = 0;
  for (const wait of waits) {
    if (wait == null || !Number.isFinite(wait) || wait <= 0) continue;
    floor = Math.max(floor, Math.min(wait, limits.maxFetchInterval));
  }
  return floor;
}

/** Milliseconds to wait after the `failureCount`-th consecutive failure, at most maxFetchInterval. */
export function backoffInterval(failureCount: number, limits: ScheduleLimits): number {
  const exponent = Math.min(Math.max(0, failureCount - 1), 30);
  return Math.min(limits.maxFetchInterval, BACKOFF_BASE * 2 ** exponent);
}

/**
 * When to fetch next, and why. `random` returns a number in [0, 1) (the
 * jitter); the result is never before a server's floor, never sooner than
 * minFetchInterval after a success, never later than maxFetchInterval.
 */
export function planNextFetch(
  signals: BlogSignals,
  limits: ScheduleLimits,
  random: () => number = Math.random,
): ScheduleDecision {
  const { now, outcome, hints } = signals;
  const retryAfter = hints.retryAfter && hints.retryAfter.getTime() > now.getTime() ? hints.retryAfter : null;
  const waitUntil = retryAfter
    ? new Date(Math.min(retryAfter.getTime(), now.getTime() + limits.maxFetchInterval))
    : null;
  if (outcome === "gone")
    return {
      nextFetchAt: new Date(now.getTime() + GONE_CHECK_INTERVAL),
      interval: GONE_CHECK_INTERVAL,
      waitUntil: null,
      reason: "gone",
    };

  const floor = serverFloor(hints, now, limits);
  if (outcome === "failed") {
    // As before the schedule existed: the server's Retry-After when it gave one, else exponential back-off.
    if (waitUntil)
      return {
        nextFetchAt: waitUntil,
        interval: waitUntil.getTime() - now.getTime(),
        waitUntil,
        reason: "retry-after",
      };
    const interval = backoffInterval(signals.failureCount, limits);
    return { nextFetchAt: new Date(now.getTime() + interval), interval, waitUntil: null, reason: "backoff" };
  }

  let interval: number;
  let reason: ScheduleReason;
  if (signals.pushActive) {
    // The hub brings the posts; this is only the safety poll.
    interval = limits.maxFetchInterval;
    reason = "push";
  } else {
    const posting = postingInterval(signals.postDates, now);
    const fitted = squareRootInterval(posting ?? UNKNOWN_POSTING_INTERVAL, limits.referenceInterval);
    interval = clamp(fitted, limits.minFetchInterval, limits.maxFetchInterval);
    reason = posting === null ? "unknown-rate" : "posting-rate";
  }
  if (floor > interval) {
    interval = floor;
    reason = "server";
  }
  return {
    nextFetchAt: new Date(now.getTime() + jittered(interval, Math.max(floor, limits.minFetchInterval), limits, random)),
    interval,
    waitUntil,
    reason,
  };
}

/**
 * The interval moved by a little chance, so blogs fetched together do not
 * stay together: ±10 %, kept within [lower, maxFetchInterval]; one at the
 * maximum comes up to 1 % early, never before `lower`.
 */
function jittered(interval: number, lower: number, limits: ScheduleLimits, random: () => number): number {
  const max = limits.maxFetchInterval;
  const value = interval >= max ? max : clamp(interval * (1 + JITTER * (2 * random() - 1)), lower, max);
  return Math.round(value >= max ? Math.max(lower, max * (1 - JITTER_AT_MAX * random())) : value);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
