import { DAY, SECOND } from "../time/durations.js";

/** Longest wait a server may ask for; longer requests are clamped to this. */
export const MAX_RETRY_AFTER = DAY;

/**
 * Reads Retry-After (seconds or an HTTP date) as a time, clamped to
 * [now, now + 1 day]: a date in the past means "now", an absurd one a day.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): Date | null {
  if (!value) return null;
  const text = value.trim();
  let at: number;
  if (/^\d+$/.test(text)) at = now + Math.min(Number(text), MAX_RETRY_AFTER / SECOND) * SECOND;
  else {
    if (!/^[a-z]{3},? /i.test(text)) return null; // an HTTP date starts with the day name
    at = Date.parse(text);
    if (Number.isNaN(at)) return null;
  }
  return new Date(Math.min(Math.max(at, now), now + MAX_RETRY_AFTER));
}
