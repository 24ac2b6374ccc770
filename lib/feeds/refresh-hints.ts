import { DAY, HOUR, WEEK } from "../time/durations.js";

/** What a feed says about how often to read it: RSS `<ttl>` and the Syndication module (`sy:`). */

/** sy:updatePeriod values (RSS 1.0 Syndication module) and their lengths. */
const UPDATE_PERIODS: Record<string, number> = {
  hourly: HOUR,
  daily: DAY,
  weekly: WEEK,
  monthly: 30 * DAY,
  yearly: 365 * DAY,
};

/** RSS `<ttl>` (whole minutes), or null when absent or not a positive number. */
export function ttlMinutes(text: string | null | undefined): number | null {
  const value = text?.trim();
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const minutes = Number(value);
  return minutes > 0 ? minutes : null;
}

/**
 * The interval sy:updatePeriod and sy:updateFrequency describe ("updated
 * `frequency` times per `period`"; the frequency defaults to 1), in
 * milliseconds, or null when no valid period is given.
 */
export function syndicationInterval(
  period: string | null | undefined,
  frequency: string | null | undefined,
): number | null {
  const length = period ? UPDATE_PERIODS[period.trim().toLowerCase()] : undefined;
  if (length === undefined) return null;
  const text = frequency?.trim();
  const times = text && /^\d{1,9}$/.test(text) ? Number(text) : 1;
  return times > 0 ? length / times : length;
}
