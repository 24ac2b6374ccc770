/**
 * A blog's health and how it is kept fresh, by the same rules as the
 * storage's health filters and counts (BlogHealthQuery, BlogHealthCounts).
 */
import type { BlogrollOptions } from "../options.js";
import { isListed } from "../storage/provenance.js";
import type { Blog, BlogHealthQuery } from "../storage/types.js";
import { DAY } from "../time/durations.js";

/** Errors for this long make a blog "failing" (shorter runs of errors are "erroring"). */
export const FAILING_AFTER = 7 * DAY;

export type HealthState = "healthy" | "dormant" | "failing" | "erroring" | "gone" | "pending" | "unlisted" | "external";

/** Where health conditions begin, now: no post for dormantAfterDays, errors for FAILING_AFTER. */
export function healthQuery(options: Pick<BlogrollOptions, "dormantAfterDays">, now: Date): BlogHealthQuery {
  return {
    dormantBefore: new Date(now.getTime() - options.dormantAfterDays * DAY),
    failingSince: new Date(now.getTime() - FAILING_AFTER),
  };
}

/** The one health state of a blog (moved is shown beside it). */
export function healthState(blog: Blog, query: BlogHealthQuery): HealthState {
  if (blog.status === "gone") return "gone";
  if (!isListed(blog)) return "unlisted";
  if (blog.status === "error")
    return blog.failingSince && blog.failingSince <= query.failingSince ? "failing" : "erroring";
  if (blog.lastPostAt && blog.lastPostAt < query.dormantBefore) return "dormant";
  if (blog.skipItemFetch) return "external";
  return blog.status === "pending" ? "pending" : "healthy";
}

/** How a blog is kept fresh: the reason its schedule gave (a ScheduleReason), or why it is not fetched. */
export function freshnessOf(blog: Blog): string {
  if (blog.skipItemFetch) return "external";
  if (!isListed(blog)) return "unlisted";
  if (blog.status === "gone") return "gone";
  if (blog.status === "error")
    return blog.waitUntil && blog.nextFetchAt && blog.waitUntil >= blog.nextFetchAt ? "retry-after" : "backoff";
  return blog.fetchReason ?? "pending";
}
