/**
 * Freshness and cost of the per-blog schedule beside fetching everything
 * hourly (the old behaviour), in one run, over a simulated week of 1 000
 * blogs on a virtual clock (manual, not in `npm run bench`):
 *
 *   node --import tsx bench/freshness.ts [blogs=1000] [weeks=5]
 *
 * Each simulated week is another blogroll (seed 1, 2, …): the figures pool
 * them, because one week of 1 000 blogs holds only some 2 000 posts, most
 * from 50 blogs, and its mean delay moves by a few minutes from one draw to
 * the next.
 *
 * The blogs: 5 % post several times a day (2–6), 20 % every day or few days
 * (a mean gap of 1–4 days), 35 % weekly to monthly (7–30 days), 40 % are
 * dormant (last post 90–730 days ago). 20 % announce a WebSub hub and 5 % an
 * rssCloud; 30 % send Cache-Control max-age of 1, 2 or 4 hours. Posts come
 * as a Poisson process; feeds list their newest 10 posts.
 *
 * What runs is the product's own scheduling code: every fetch goes through
 * `nextFetch` (lib/sync/next-fetch.ts), which reads the response's caching
 * headers and the feed's dates and asks the policy (lib/schedule/policy.ts),
 * with the default options; the scheduler looks for due blogs every
 * `syncInterval`. What is simulated is the network: a fetch is answered
 * from the blog's posting history (200 with its newest 10 posts when
 * something changed, else 304). Pushed blogs are modelled: their posts are
 * delivered at publication (then, in real time, the pushing quarter runs end to end against a local hub and cloud server: bench/push.ts),
 * and they get their safety poll. A day of warm-up comes before the
 * measured week, so schedules start in their steady state.
 */
import { defaultOptions } from "../lib/options.js";
import type { ParsedFeed } from "../lib/feeds/types.js";
import type { FetchResult } from "../lib/http/fetch.js";
import type { Blog } from "../lib/storage/types.js";
import { REFERENCE_INTERVAL } from "../lib/schedule/policy.js";
import { nextFetch } from "../lib/sync/next-fetch.js";
import { percentile, report, round, target, type BenchResult } from "./support/measure.js";
import { measurePush, pushResult } from "./push.js";
import { seededRandom } from "./support/feeds.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { DAY, HOUR, MINUTE, WEEK } from "../lib/time/durations.js";

const WARM_UP = DAY;
/** The simulation runs on past the week so its last posts get their chance to be fetched (requests are counted in the week only). */
const GRACE = DAY;
const FEED_SIZE = 10;

const BLOGS = Number(process.argv[2] ?? 1000);
const WEEKS = Number(process.argv[3] ?? 5);
const SWEEP = [2, 3, 4, 5, 7, 10].map((minutes) => minutes * MINUTE);
const options = defaultOptions;

let random = seededRandom(1);
const between = (low: number, high: number) => low + (high - low) * random();
/** An exponential gap of the given mean (a Poisson process). */
const gap = (mean: number) => -Math.log(1 - random()) * mean;

type Kind = "several a day" | "daily to every few days" | "weekly to monthly" | "dormant";
type Push = "websub" | "rsscloud" | null;

interface SimBlog {
  kind: Kind;
  push: Push;
  maxAge: number | null;
  /** Publication times, ascending (virtual ms; 0 is the start of the measured week). */
  posts: number[];
  /** What the schedule keeps of the blog between fetches. */
  state: Blog;
  nextAt: number;
  /** Posts stored so far (by publication time). */
  stored: Set<number>;
}

function postingHistory(kind: Kind): number[] {
  const start = -120 * DAY;
  const end = WEEK;
  if (kind === "dormant") {
    // Silent for 90–730 days; before that a monthly-ish blog.
    const last = -between(90, 730) * DAY;
    const posts = [last];
    for (let n = 1; n < 12; n++) posts.unshift(posts[0] - gap(30 * DAY));
    return posts;
  }
  const mean =
    kind === "several a day"
      ? DAY / between(2, 6)
      : kind === "daily to every few days"
        ? between(1, 4) * DAY
        : between(7, 30) * DAY;
  const posts: number[] = [];
  // Older posts as well, so even a monthly blog has some history at the start.
  for (let at = start - 12 * mean + gap(mean); at < end; at += gap(mean)) posts.push(at);
  return posts;
}

/** Of the blogs that send max-age: 1 hour (the common value) for 70 %, 2 hours for 20 %, 4 hours for 10 %. */
const maxAgeOf = (roll: number) => (roll < 0.7 ? HOUR : roll < 0.9 ? 2 * HOUR : 4 * HOUR);

function makeBlogs(): SimBlog[] {
  const blogs: SimBlog[] = [];
  for (let index = 0; index < BLOGS; index++) {
    const share = index / BLOGS;
    const kind: Kind =
      share < 0.05
        ? "several a day"
        : share < 0.25
          ? "daily to every few days"
          : share < 0.6
            ? "weekly to monthly"
            : "dormant";
    const roll = random();
    const push: Push = roll < 0.2 ? "websub" : roll < 0.25 ? "rsscloud" : null;
    const maxAge = random() < 0.3 ? maxAgeOf(random()) : null;
    const state = { recentPosts: [], fetchReason: null, fetchInterval: null, failureCount: 0 } as unknown as Blog;
    blogs.push({ kind, push, maxAge, posts: postingHistory(kind), state, nextAt: -WARM_UP - 1, stored: new Set() });
  }
  return blogs;
}

/** The blog's feed at `now`: its newest FEED_SIZE posts. */
const feedAt = (blog: SimBlog, now: number) => blog.posts.filter((at) => at <= now).slice(-FEED_SIZE);

interface Delays {
  values: number[];
  missed: number;
  /** Delays by the kind of blog, and by whether it sends Cache-Control max-age. */
  byGroup?: Map<string, number[]>;
}

const groupOf = (blog: SimBlog) => `${blog.kind}${blog.maxAge ? ", max-age" : ""}`;

/** Stores what a fetch at `now` shows; records the delay of each post first seen (posts of the measured week only). */
function store(blog: SimBlog, shown: number[], now: number, delays: Delays): number {
  let added = 0;
  for (const at of shown) {
    if (blog.stored.has(at)) continue;
    blog.stored.add(at);
    added++;
    if (at >= 0 && at < WEEK) {
      delays.values.push(now - at);
      if (delays.byGroup) {
        const list = delays.byGroup.get(groupOf(blog)) ?? [];
        list.push(now - at);
        delays.byGroup.set(groupOf(blog), list);
      }
    }
  }
  return added;
}

/** Posts of the week that were never stored: they left the feed before a fetch saw them. */
function countMissed(blogs: SimBlog[], delays: Delays): void {
  for (const blog of blogs)
    for (const at of blog.posts) if (at >= 0 && at < WEEK && !blog.stored.has(at)) delays.missed++;
}

function simulateSchedule(blogs: SimBlog[], referenceInterval = REFERENCE_INTERVAL) {
  const limits = { ...options, referenceInterval };
  const polled: Delays = { values: [], missed: 0, byGroup: new Map() };
  const pushed: Delays = { values: [], missed: 0 };
  let requests = 0;
  const requestsByGroup = new Map<string, number>();
  const dormantRequests = { count: 0, blogs: blogs.filter((blog) => blog.kind === "dormant").length };
  const reasons = new Map<string, number>();
  for (let now = -WARM_UP; now < WEEK + GRACE; now += options.syncInterval) {
    // Pushed posts arrive as they are published (modelled), before this look for due blogs.
    for (const blog of blogs) {
      if (!blog.push) continue;
      for (const at of blog.posts) if (at > now - options.syncInterval && at <= now) store(blog, [at], at, pushed);
    }
    for (const blog of blogs) {
      if (blog.nextAt > now) continue;
      if (now >= 0 && now < WEEK) {
        requests++;
        requestsByGroup.set(groupOf(blog), (requestsByGroup.get(groupOf(blog)) ?? 0) + 1);
        if (blog.kind === "dormant") dormantRequests.count++;
      }
      const shown = feedAt(blog, now);
      const added = store(blog, shown, now, blog.push ? pushed : polled);
      const changed = added > 0 || blog.state.lastFetchAt === null;
      const response = {
        status: changed ? 200 : 304,
        retryAfter: null,
        caching: {
          cacheControl: blog.maxAge ? `public, max-age=${blog.maxAge / 1000}` : null,
          expires: null,
          date: null,
        },
      } as unknown as FetchResult;
      const parsed = changed
        ? ({ feed: { type: "rss" }, items: shown.map((at) => ({ published: new Date(at) })) } as unknown as ParsedFeed)
        : null;
      const decision = nextFetch(
        blog.state,
        {
          outcome: changed ? "fetched" : "unchanged",
          at: new Date(now),
          failureCount: 0,
          response,
          parsed,
          pushActive: blog.push !== null,
        },
        limits,
        random,
      );
      Object.assign(blog.state, { ...decision.schedule, lastFetchAt: new Date(now) });
      blog.nextAt = decision.nextFetchAt!.getTime();
      if (now >= 0 && now < WEEK)
        reasons.set(decision.schedule!.fetchReason, (reasons.get(decision.schedule!.fetchReason) ?? 0) + 1);
    }
  }
  countMissed(
    blogs.filter((blog) => !blog.push),
    polled,
  );
  countMissed(
    blogs.filter((blog) => blog.push),
    pushed,
  );
  return {
    requests,
    polled,
    pushed,
    dormantPerDay: dormantRequests.count / dormantRequests.blogs / 7,
    reasons,
    requestsByGroup,
  };
}

function simulateHourly(blogs: SimBlog[]) {
  const delays: Delays = { values: [], missed: 0 };
  let requests = 0;
  for (let now = -WARM_UP; now < WEEK + GRACE; now += HOUR) {
    for (const blog of blogs) {
      if (now >= 0 && now < WEEK) requests++;
      store(blog, feedAt(blog, now), now, delays);
    }
  }
  countMissed(blogs, delays);
  return { requests, delays };
}

const minutes = (ms: number) => round(ms / MINUTE, 1);
function summary(delays: Delays) {
  const mean = delays.values.reduce((sum, value) => sum + value, 0) / Math.max(1, delays.values.length);
  return {
    posts: delays.values.length,
    mean: minutes(mean),
    p50: minutes(percentile(delays.values, 50)),
    p95: minutes(percentile(delays.values, 95)),
    max: minutes(Math.max(0, ...delays.values)),
    missed: delays.missed,
  };
}
const line = (s: ReturnType<typeof summary>) =>
  `${s.posts} posts, mean ${s.mean} min, p50 ${s.p50}, p95 ${s.p95}, max ${s.max}, missed ${s.missed}`;

type ScheduleRun = ReturnType<typeof simulateSchedule>;
/** Sums of several weeks' runs of one policy. */
function pool(runs: ScheduleRun[]): ScheduleRun {
  const delays = (pick: (run: ScheduleRun) => Delays): Delays => {
    const byGroup = new Map<string, number[]>();
    for (const run of runs)
      for (const [group, values] of pick(run).byGroup ?? [])
        byGroup.set(group, [...(byGroup.get(group) ?? []), ...values]);
    return {
      values: runs.flatMap((run) => pick(run).values),
      missed: runs.reduce((sum, run) => sum + pick(run).missed, 0),
      byGroup,
    };
  };
  const reasons = new Map<string, number>();
  const requestsByGroup = new Map<string, number>();
  for (const run of runs) {
    for (const [reason, count] of run.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + count);
    for (const [group, count] of run.requestsByGroup)
      requestsByGroup.set(group, (requestsByGroup.get(group) ?? 0) + count);
  }
  return {
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    polled: delays((run) => run.polled),
    pushed: delays((run) => run.pushed),
    dormantPerDay: runs.reduce((sum, run) => sum + run.dormantPerDay, 0) / runs.length,
    reasons,
    requestsByGroup,
  };
}

const started = performance.now();
const weeks = Array.from({ length: WEEKS }, (_, index) => {
  random = seededRandom(index + 1);
  const blogs = makeBlogs();
  // The same blogs and posts for every policy (each run keeps its own record of what it stored and its own schedule).
  const fresh = () => blogs.map((blog) => ({ ...blog, state: { ...blog.state }, stored: new Set<number>() }));
  return { blogs, fresh };
});
const schedule = pool(weeks.map(({ fresh }) => simulateSchedule(fresh())));
const hourlyRuns = weeks.map(({ fresh }) => simulateHourly(fresh()));
const hourly = {
  requests: hourlyRuns.reduce((sum, run) => sum + run.requests, 0),
  delays: {
    values: hourlyRuns.flatMap((run) => run.delays.values),
    missed: hourlyRuns.reduce((sum, run) => sum + run.delays.missed, 0),
  },
};
const seconds = round((performance.now() - started) / 1000, 1);
// How the constant trades requests for delay, to show why REFERENCE_INTERVAL is what it is.
const sweep = SWEEP.map((reference) => {
  const run = pool(weeks.map(({ fresh }) => simulateSchedule(fresh(), reference)));
  const mean = summary({ values: [...run.polled.values, ...run.pushed.values], missed: 0 }).mean;
  return `${reference / MINUTE} min: ${round((run.requests / hourly.requests) * 100, 1)} % of hourly, mean ${mean} min`;
});
const allBlogs = weeks.flatMap((week) => week.blogs);

const polled = summary(schedule.polled);
const pushed = summary(schedule.pushed);
const all = summary({
  values: [...schedule.polled.values, ...schedule.pushed.values],
  missed: schedule.polled.missed + schedule.pushed.missed,
});
const baseline = summary(hourly.delays);
const perDay = (requests: number) => round(requests / 7 / WEEKS, 0);
const ratio = schedule.requests / hourly.requests;

const result: BenchResult = {
  scenario: `freshness: ${BLOGS} blogs, ${WEEKS} simulated weeks (seeds 1-${WEEKS}), schedule vs fetch-everything-hourly`,
  figures: {
    "requests per day, schedule": perDay(schedule.requests),
    "requests per day, hourly": perDay(hourly.requests),
    "requests, schedule / hourly": `${round(ratio * 100, 1)} %`,
    "delay, all posts (schedule)": line(all),
    "delay, polled posts (schedule)": line(polled),
    "delay, pushed posts (schedule; push modelled)": line(pushed),
    "delay, all posts (hourly)": line(baseline),
    "requests per dormant blog per day": round(schedule.dormantPerDay, 2),
    "why the next fetch (share of fetches)": [...schedule.reasons]
      .map(([reason, count]) => `${reason} ${round((count / schedule.requests) * 100, 0)} %`)
      .join(", "),
    ...Object.fromEntries(
      [...schedule.requestsByGroup.keys()].sort().map((group) => {
        const values = schedule.polled.byGroup!.get(group) ?? [];
        const count = allBlogs.filter((blog) => groupOf(blog) === group).length;
        const mean = values.length ? minutes(values.reduce((a, b) => a + b, 0) / values.length) : "-";
        return [
          `  ${group} (${round(count / WEEKS, 0)} blogs a week)`,
          `${round(schedule.requestsByGroup.get(group)! / 7 / count, 2)} requests a day each; polled posts ${values.length}, mean delay ${mean} min`,
        ];
      }),
    ),
    "reference interval of the square-root rule": `${REFERENCE_INTERVAL / MINUTE} min`,
    "sweep of the reference interval": sweep.join("; "),
    "simulation time of both policies, all weeks (s)": seconds,
  },
  targets: [
    target("requests, schedule / hourly", ratio * 100, "<=", 25, "%"),
    target("mean delay per post, all posts (schedule)", all.mean, "<=", baseline.mean, "min (hourly's)"),
    target("posts missed (schedule)", all.missed, "<=", 0, "posts"),
    target("requests per dormant blog per day", schedule.dormantPerDay, "<=", 1.02, "requests"),
  ],
  notes: [
    `options: syncInterval ${options.syncInterval / MINUTE} min, minFetchInterval ${options.minFetchInterval / MINUTE} min, maxFetchInterval ${options.maxFetchInterval / HOUR} h`,
    "pushed posts are delivered at publication in this model; their real hub-to-storage time is measured next, against local hubs",
  ],
};
report(result);

// The pushing quarter of the blogroll end to end, in real time: a local WebSub hub and rssCloud
// server notify, the plugin stores, and /api/items lists the post (bench/push.ts).
const pushInput = { blogs: Math.round(BLOGS / 4), posts: 300, seconds: 60 };
report(pushResult(await measurePush(pushInput), pushInput));
await closeParsePool();
