/** Back-off between fetches of a failing blog: 5 min, 10 min, 20 min, ... capped at one day. */
import { MAX_RETRY_AFTER } from "../http/retry-after.js";

const BASE_DELAY = 5 * 60_000;
const MAX_DELAY = 24 * 60 * 60_000;

/** Milliseconds to wait after the `failureCount`-th consecutive failure (1 = first failure). */
export function backoffDelay(failureCount: number): number {
  const exponent = Math.max(0, failureCount - 1);
  // 2^9 × 5 min already exceeds a day: no need to compute larger powers.
  return Math.min(MAX_DELAY, BASE_DELAY * 2 ** Math.min(exponent, 10));
}

/**
 * When to fetch next after a failure: the server's Retry-After if it gave
 * one (at most a day ahead, like the back-off and the HTTP layer's own
 * clamp), else the back-off.
 */
export function nextAttemptAt(now: Date, failureCount: number, retryAfter: Date | null = null): Date {
  if (retryAfter && retryAfter.getTime() > now.getTime()) {
    return new Date(Math.min(retryAfter.getTime(), now.getTime() + MAX_RETRY_AFTER));
  }
  return new Date(now.getTime() + backoffDelay(failureCount));
}
