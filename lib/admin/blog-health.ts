import type { BlogrollOptions } from "../options.js";
import { postingInterval } from "../schedule/policy.js";
import { freshnessOf, healthQuery, healthState } from "../schedule/health.js";
import type { Blog } from "../storage/types.js";
import { DAY, HOUR, MINUTE } from "../time/durations.js";

/** A duration as a count of one unit, rounded, for "about every …" texts (`plural("blogroll.duration.<unit>", count)`). */
export function durationParts(ms: number): { unit: "minutes" | "hours" | "days"; count: number } {
  if (ms < 90 * MINUTE) return { unit: "minutes", count: Math.max(1, Math.round(ms / MINUTE)) };
  if (ms < 48 * HOUR) return { unit: "hours", count: Math.round(ms / HOUR) };
  return { unit: "days", count: Math.round(ms / DAY) };
}

/** What the blog's page says about its freshness and health (texts are put together in the view). */
export function healthView(blog: Blog, options: Pick<BlogrollOptions, "dormantAfterDays">, now: Date) {
  const query = healthQuery(options, now);
  const posting = postingInterval(blog.recentPosts, now);
  return {
    freshness: freshnessOf(blog),
    every: blog.fetchInterval === null ? null : durationParts(blog.fetchInterval),
    posting: posting === null ? "unknown" : Number.isFinite(posting) ? "every" : "dormant",
    postingEvery: posting !== null && Number.isFinite(posting) ? durationParts(posting) : null,
    state: healthState(blog, query),
    dormantDays: options.dormantAfterDays,
  };
}
