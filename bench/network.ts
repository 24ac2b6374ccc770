/**
 * The blogroll network's cost on a sync: 1 000 blogs (every one with a home
 * page, no feed images, as in scenario 1b of bench/sync.ts), run side by
 * side on two fixtures in one process: A, where no blog announces a
 * blogroll, and B, where every other blog declares `<link rel="blogroll">`
 * in its page's head (20 other blogs each, so every blog is recommended by
 * up to 10). Reports, for each: the first sync (time to all posts stored,
 * whole run, requests by kind), then B's simulated week: hourly re-syncs
 * until no lookup waits for the run's request budget, then one sync a week
 * later, counting every request made for blogrolls over that week.
 *
 *   node --import tsx bench/network.ts [--feeds 1000] [--delay 200]
 */
import { parseArgs } from "node:util";
import { createSyncRunner } from "../lib/sync/run.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { BLOGROLL_RECHECK, BLOGROLL_REQUESTS_PER_RUN } from "../lib/network/blogroll-lookups.js";
import { resolveOptions } from "../lib/options.js";
import type { Storage } from "../lib/storage/types.js";
import type { SyncStats } from "../lib/sync/status-record.js";
import { loopbackDispatcher, startFeedFixture, type FeedFixture, type FixtureStats } from "./support/fixture-server.js";
import { round } from "./support/measure.js";
import { addBlogs } from "./support/stores.js";
import { openTempStorage } from "../test/sync/harness.js";
import { HOUR } from "../lib/time/durations.js";

const { values: args } = parseArgs({
  options: { feeds: { type: "string", default: "1000" }, delay: { type: "string", default: "200" } },
});
const FEEDS = Number(args.feeds);
const DELAY = Number(args.delay);

const options = resolveOptions({ allowPrivateNetworks: true, mongodbUrl: null });
const dispatcher = loopbackDispatcher(options.perHostConcurrency);

function grown(before: FixtureStats["byKind"], after: FixtureStats["byKind"]): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, count]) => [key, (count ?? 0) - (before[key as keyof typeof before] ?? 0)])
      .filter(([, count]) => count !== 0),
  );
}

interface Measured {
  stats: SyncStats;
  seconds: number;
  contentSeconds: number;
  requests: Record<string, number>;
}

async function syncOnce(storage: Storage, fixture: FeedFixture, now: Date): Promise<Measured> {
  const before = (await fixture.stats()).byKind;
  const started = performance.now();
  let contentSeconds = 0;
  const stats = await createSyncRunner({ options, dispatcher, now: () => now })(storage, {
    signal: new AbortController().signal,
    progress: () => undefined,
    contentDone: () => void (contentSeconds = (performance.now() - started) / 1000),
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    stats,
    seconds: round(seconds, 1),
    contentSeconds: round(contentSeconds, 1),
    requests: grown(before, (await fixture.stats()).byKind),
  };
}

async function scenario(name: string, blogrolls: boolean) {
  const fixture = await startFeedFixture({ feeds: FEEDS, hosts: 100, delayMs: DELAY, homePages: true, blogrolls });
  const store = await openTempStorage();
  await addBlogs(
    store.storage,
    Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index)),
  );
  let clock = new Date("2026-06-01T08:00:00Z");
  const first = await syncOnce(store.storage, fixture, clock);
  console.log(
    `${name} first sync: posts stored ${first.contentSeconds} s, whole ${first.seconds} s, requests ${JSON.stringify(first.requests)}, blogrolls ${JSON.stringify(first.stats.blogrolls)}`,
  );
  // The first week: the first sync and the hourly runs that catch up with what the budget deferred.
  const week = {
    runs: 1,
    requests: first.stats.blogrolls?.requests ?? 0,
    byKind: { ...first.requests } as Record<string, number>,
  };
  const add = (measured: Measured) => {
    week.runs++;
    week.requests += measured.stats.blogrolls?.requests ?? 0;
    for (const [kind, count] of Object.entries(measured.requests)) week.byKind[kind] = (week.byKind[kind] ?? 0) + count;
  };
  const catchUp: Measured[] = [];
  if (blogrolls) {
    // Hourly re-syncs until nothing waits for the run's request budget.
    let last = first;
    while ((last.stats.blogrolls?.deferred ?? 0) > 0 && catchUp.length < 10) {
      clock = new Date(clock.getTime() + HOUR);
      last = await syncOnce(store.storage, fixture, clock);
      catchUp.push(last);
      add(last);
      console.log(
        `${name} +${catchUp.length} h: whole ${last.seconds} s, blogrolls ${JSON.stringify(last.stats.blogrolls)}`,
      );
    }
  }
  // A week after the first sync, everything is due for its weekly look.
  clock = new Date(new Date("2026-06-01T08:00:00Z").getTime() + BLOGROLL_RECHECK);
  const weekly = await syncOnce(store.storage, fixture, clock);
  console.log(
    `${name} a week later: whole ${weekly.seconds} s, requests ${JSON.stringify(weekly.requests)}, blogrolls ${JSON.stringify(weekly.stats.blogrolls)}`,
  );
  let found = 0;
  for (const blog of (await store.storage.blogs.list({ visibility: "admin", limit: FEEDS, offset: 0 })).items) {
    if ((await store.storage.recommendations.getBlogroll(blog.id))?.url) found++;
  }
  await store.cleanup();
  await fixture.close();
  return { first, catchUp, weekly, week, found };
}

console.log(
  `load before: ${(await import("node:os"))
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}; budget ${BLOGROLL_REQUESTS_PER_RUN} blogroll requests per run`,
);
const a = await scenario("A (no blogrolls)", false);
const b = await scenario("B (half announce)", true);
console.log(
  `load after: ${(await import("node:os"))
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
);
console.log(
  JSON.stringify(
    {
      firstSync: {
        A: { postsStored: a.first.contentSeconds, whole: a.first.seconds, requests: a.first.requests },
        B: { postsStored: b.first.contentSeconds, whole: b.first.seconds, requests: b.first.requests },
        ratioPostsStored: round(b.first.contentSeconds / a.first.contentSeconds, 2),
        ratioWhole: round(b.first.seconds / a.first.seconds, 2),
      },
      firstWeek: {
        A: { blogrollRequests: a.week.requests, perBlog: round(a.week.requests / FEEDS, 2), runs: a.week.runs },
        B: {
          blogrollRequests: b.week.requests,
          perBlog: round(b.week.requests / FEEDS, 2),
          runs: b.week.runs,
          byKind: b.week.byKind,
          catchUpRuns: b.catchUp.length,
        },
      },
      blogsWithABlogrollFound: { A: a.found, B: b.found },
      aWeekLater: {
        A: {
          blogrollRequests: a.weekly.stats.blogrolls?.requests,
          perBlog: round((a.weekly.stats.blogrolls?.requests ?? 0) / FEEDS, 2),
          whole: a.weekly.seconds,
          requests: a.weekly.requests,
        },
        B: {
          blogrollRequests: b.weekly.stats.blogrolls?.requests,
          perBlog: round((b.weekly.stats.blogrolls?.requests ?? 0) / FEEDS, 2),
          whole: b.weekly.seconds,
          requests: b.weekly.requests,
        },
      },
    },
    null,
    2,
  ),
);
await closeParsePool();
