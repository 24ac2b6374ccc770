import type { ParsedFeed } from "../feeds/types.js";
import type { FetchResult } from "../http/fetch.js";
import {
  planNextFetch,
  RECENT_POSTS,
  type FetchOutcome,
  type ScheduleLimits,
  type ServerHints,
} from "../schedule/policy.js";
import { freshnessLifetime } from "../schedule/server-hints.js";
import type { Blog, FetchRecord } from "../storage/types.js";

/** What a fetch learned that bears on the schedule. */
export interface FetchFacts {
  outcome: FetchOutcome;
  at: Date;
  /** Consecutive failures including this fetch. */
  failureCount: number;
  response?: FetchResult | null;
  parsed?: ParsedFeed | null;
  /** A verified, unexpired push subscription delivers this blog's posts. */
  pushActive?: boolean;
}

/**
 * The schedule part of a fetch record: when to fetch next, and the state
 * kept for the next decision. The blog's recent post dates are what the
 * feed shows now merged with those already known (a feed may list only its
 * last few posts); a 304 reuses the known ones, and the feed's own floor
 * (`<ttl>`, `sy:`) found by the last full read.
 */
export function nextFetch(
  blog: Blog,
  facts: FetchFacts,
  options: ScheduleLimits,
  random: () => number = Math.random,
): Pick<FetchRecord, "nextFetchAt" | "schedule"> {
  const recentPosts = mergedPosts(blog.recentPosts, facts.parsed, facts.at);
  const hints: ServerHints = {};
  const { response, parsed } = facts;
  if (response) {
    Object.assign(hints, freshnessLifetime(response.caching, facts.at));
    if (response.status === 429 || response.status === 503) hints.retryAfter = response.retryAfter;
  }
  if (parsed) {
    hints.ttlMinutes = parsed.feed.ttlMinutes ?? null;
    hints.updateInterval = parsed.feed.updateInterval ?? null;
  } else if (facts.outcome === "unchanged" && blog.fetchReason === "server" && blog.fetchInterval !== null) {
    // Unchanged content: the floor the feed set last time still holds.
    hints.updateInterval = blog.fetchInterval;
  }
  const decision = planNextFetch(
    {
      now: facts.at,
      outcome: facts.outcome,
      postDates: recentPosts,
      failureCount: facts.failureCount,
      hints,
      pushActive: facts.pushActive,
    },
    options,
    random,
  );
  return {
    nextFetchAt: decision.nextFetchAt,
    schedule: {
      recentPosts,
      fetchInterval: decision.interval,
      fetchReason: decision.reason,
      waitUntil: decision.waitUntil,
    },
  };
}

/** The newest RECENT_POSTS distinct publication dates, known and new, none in the future. */
function mergedPosts(known: Date[], parsed: ParsedFeed | null | undefined, now: Date): Date[] {
  const times = new Set(known.map((date) => date.getTime()));
  for (const item of parsed?.items ?? []) if (item.published) times.add(item.published.getTime());
  return [...times]
    .filter((time) => Number.isFinite(time) && time <= now.getTime())
    .sort((a, b) => b - a)
    .slice(0, RECENT_POSTS)
    .map((time) => new Date(time));
}
