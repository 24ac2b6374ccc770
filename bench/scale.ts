/**
 * The product at 1 000, 5 000 and 10 000 blogs, side by side in one run.
 * Each size runs in a process of its own (so its memory and CPU are its own),
 * one after another, on the fixture web of bench/sync.ts scaled: N feeds on
 * N / 10 host names, 200 ms per response, every blog with a home page and no
 * feed image (scenario 1b: every site icon is looked up). For each size:
 *
 * - the first sync ("Sync now" through the scheduler, as the admin asks it):
 *   wall time, time to all posts stored, CPU, peak RSS, requests by kind;
 * - the API meanwhile, from another process: `/api/items?limit=50` and
 *   `/api/blogs` back to back, p50 / p99 / max, during the first sync, idle
 *   after it, and during the all-304 re-sync that follows;
 * - the admin's blogs pages (list, a middle page, search, filters) and
 *   dashboard, idle, five times each; at the end a bulk hide of every blog
 *   that matches a search (1 111 of 10 000) in one request;
 * - a day of scheduled runs on a virtual clock (one run per `syncInterval`,
 *   only the blogs that are due, through the plugin's own run), the fixture
 *   answering at once and with `Cache-Control: max-age` (default 4 h, a
 *   floor the schedule honours), so a day costs some 10 000s of requests and
 *   takes seconds: requests per blog per day, CPU for the day. (The API is
 *   not probed then: the runs follow one another without their minute.)
 *
 *   node --import tsx bench/scale.ts [--sizes 1000,5000,10000] [--delay 200] [--day-max-age 14400] [--idle-seconds 10] [--skip-day] [--cpu-prof]
 *
 * `--cpu-prof` writes a V8 CPU profile per size to bench/results/profiles/.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Scheduler, type RunContext } from "../lib/sync/scheduler.js";
import type { SyncStats } from "../lib/sync/status-record.js";
import { createScheduledRun } from "../lib/sync/run.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { ADMIN_TOKEN, startTestServer } from "../test/support/server.js";
import { startApiProber, type ProbeReport } from "./support/api-prober.js";
import { loopbackDispatcher, startFeedFixture, type FixtureStats } from "./support/fixture-server.js";
import {
  cpuSeconds,
  percentile,
  report,
  RESULTS_FOLDER,
  round,
  sampleRss,
  target,
  watchEventLoop,
  watchGc,
  type BenchResult,
} from "./support/measure.js";
import { addBlogs } from "./support/stores.js";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,5000,10000" },
    delay: { type: "string", default: "200" },
    "day-max-age": { type: "string", default: "14400" },
    "idle-seconds": { type: "string", default: "10" },
    "cpu-prof": { type: "boolean", default: false },
    // For profiling the syncs alone.
    "skip-day": { type: "boolean", default: false },
    child: { type: "string" },
  },
});

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** What one size measured (a child's answer). */
interface SizeResult {
  blogs: number;
  hosts: number;
  load: { start: string; end: string };
  addSeconds: number;
  first: Measured;
  resync: Measured;
  day: {
    runs: number;
    requests: Record<string, number>;
    feedRequestsPerBlog: number;
    cpuSeconds: number;
    wallSeconds: number;
    peakRssMb: number;
  };
  api: ProbeReport;
  admin: AdminFigures;
  maxRssMb: number;
  withIcon: number;
}

interface Measured {
  seconds: number;
  contentSeconds: number;
  cpuSeconds: number;
  rss: { startMb: number; peakMb: number; endMb: number; atPeak: string };
  loop: { p50: number; p99: number; max: number };
  gc: ReturnType<ReturnType<typeof watchGc>["stop"]>;
  requests: Record<string, number>;
  blogs: SyncStats["blogs"];
  itemsAdded: number;
}

const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");

function grown(before: FixtureStats["byKind"], after: FixtureStats["byKind"]): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([kind, count]) => [kind, (count ?? 0) - (before[kind as keyof typeof before] ?? 0)] as const)
      .filter(([, count]) => count !== 0),
  );
}

/** One size, in this process: the fixture, the plugin on SQLite, the measured syncs and day. */
async function measureSize(size: number): Promise<SizeResult> {
  const load = { start: loadNow(), end: "" };
  const hosts = Math.max(1, Math.round(size / 10));
  const fixture = await startFeedFixture({ feeds: size, hosts, delayMs: Number(args.delay), homePages: true });
  const server = await startTestServer("sqlite", { mongodbUrl: null });
  const addStarted = performance.now();
  await addBlogs(
    server.storage,
    Array.from({ length: size }, (_, index) => fixture.urlOf(index)),
  );
  const addSeconds = round((performance.now() - addStarted) / 1000, 1);

  const settings = server.plugin.settings;
  const push = server.plugin.context.push;
  const dispatcher = loopbackDispatcher(settings.perHostConcurrency);
  let clock: Date | null = null;
  // The plugin's own run (index.ts), but for the dispatcher that maps the fixture's host names to loopback.
  const runner = createScheduledRun(
    { options: settings, dispatcher, onFeedRead: push.observe, pushSignal: push, now: () => clock ?? new Date() },
    (message) => console.error(message),
  );
  let contentAt = 0;
  const scheduler = new Scheduler({
    getStorage: () => server.plugin.getStorage(),
    run: (storage, context: RunContext) =>
      runner(storage, {
        ...context,
        contentDone: (at) => ((contentAt = performance.now()), context.contentDone?.(at)),
      }),
    interval: DAY,
    initialDelay: DAY,
  });
  const prober = await startApiProber(
    { "/api/items?limit=50": `${server.api}/items?limit=50`, "/api/blogs": `${server.api}/blogs` },
    "before the first sync",
  );

  const syncNow = async (): Promise<Measured> => {
    const before = (await fixture.stats()).byKind;
    const itemsBefore = await server.storage.items.count();
    const rss = sampleRss();
    const loop = watchEventLoop();
    const gc = watchGc();
    const cpu = process.cpuUsage();
    const started = performance.now();
    contentAt = Number.NaN;
    if (!(await scheduler.syncNow())) throw new Error("the sync did not run");
    const seconds = (performance.now() - started) / 1000;
    const cpuUsed = cpuSeconds(cpu);
    const status = await scheduler.getStatus();
    return {
      seconds: round(seconds, 2),
      contentSeconds: round((contentAt - started) / 1000, 2),
      cpuSeconds: cpuUsed,
      rss: rss.stop(),
      loop: loop.stop(),
      gc: gc.stop(),
      requests: grown(before, (await fixture.stats()).byKind),
      blogs: status.lastSyncStats!.blogs,
      itemsAdded: (await server.storage.items.count()) - itemsBefore,
    };
  };

  await prober.phase("first sync");
  const first = await syncNow();
  console.log(
    `[${size}] first sync: ${first.seconds} s (posts ${first.contentSeconds} s), CPU ${first.cpuSeconds} s, peak RSS ${first.rss.peakMb} MB, ${JSON.stringify(first.requests)}`,
  );
  await prober.phase("idle");
  await new Promise((resolve) => setTimeout(resolve, Number(args["idle-seconds"]) * 1000));
  await prober.phase("re-sync");
  const resync = await syncNow();
  console.log(`[${size}] re-sync: ${resync.seconds} s, CPU ${resync.cpuSeconds} s, ${JSON.stringify(resync.requests)}`);

  const api = await prober.stop();
  const admin = await measureAdmin(server, size);
  console.log(
    `[${size}] admin pages: ${Object.entries(admin.pages)
      .map(([page, ms]) => `${page} ${ms.median}/${ms.max}`)
      .join(", ")} ms`,
  );

  // A day of scheduled runs on a virtual clock, the fixture answering at once. The runs follow one
  // another without the minute between them, so the API is not probed meanwhile.
  await fixture.configure({ delayMs: 0, maxAgeSeconds: Number(args["day-max-age"]) });
  const dayBefore = (await fixture.stats()).byKind;
  const dayRss = sampleRss();
  const dayCpu = process.cpuUsage();
  const dayStarted = performance.now();
  const start = Date.now();
  let runs = 0;
  for (let at = start + settings.syncInterval; !args["skip-day"] && at <= start + DAY; at += settings.syncInterval) {
    clock = new Date(at);
    await runner(server.storage, { signal: new AbortController().signal, progress: () => undefined });
    runs++;
  }
  clock = null;
  const dayRequests = grown(dayBefore, (await fixture.stats()).byKind);
  const day = {
    runs,
    requests: dayRequests,
    feedRequestsPerBlog: round((dayRequests.feed ?? 0) / size, 2),
    cpuSeconds: cpuSeconds(dayCpu),
    wallSeconds: round((performance.now() - dayStarted) / 1000, 1),
    peakRssMb: dayRss.stop().peakMb,
  };
  console.log(`[${size}] scheduled day: ${runs} runs, ${JSON.stringify(dayRequests)}, CPU ${day.cpuSeconds} s`);

  const { items: blogs } = await server.storage.blogs.list({ limit: size, offset: 0, visibility: "admin" });
  const withIcon = blogs.filter((blog) => blog.iconUrl).length;
  admin.bulk = await measureBulk(server);
  console.log(`[${size}] bulk hide of every blog matching "blog 1": ${admin.bulk.blogs} blogs in ${admin.bulk.ms} ms`);
  await scheduler.stop();
  await server.close();
  await closeParsePool();
  await dispatcher.close();
  await fixture.close();
  load.end = loadNow();
  return {
    blogs: size,
    hosts,
    load,
    addSeconds,
    first,
    resync,
    day,
    api,
    admin,
    maxRssMb: round(process.resourceUsage().maxRSS / 1024),
    withIcon,
  };
}

/** The admin's pages a blogroll of this size is managed with, each asked ADMIN_ROUNDS times in a row (request time on loopback, ms). */
const ADMIN_ROUNDS = 5;

async function measureAdmin(server: Awaited<ReturnType<typeof startTestServer>>, size: number): Promise<AdminFigures> {
  const base = `${server.plugin.mountPath}/blogs`;
  const pages: Record<string, string> = {
    dashboard: server.plugin.mountPath,
    "blogs, page 1": base,
    "blogs, middle page": `${base}?page=${Math.ceil(size / 100)}`,
    "search 'blog 12'": `${base}?q=blog+12`,
    category: `${base}?category=Category+7`,
    "status error": `${base}?status=error`,
    "health dormant": `${base}?health=dormant`,
    "health moved": `${base}?health=moved`,
    "source manual": `${base}?source=manual`,
  };
  const figures: AdminFigures = { pages: {}, bulk: null };
  for (const [name, path] of Object.entries(pages)) {
    const times: number[] = [];
    for (let round = 0; round < ADMIN_ROUNDS; round++) {
      const started = performance.now();
      const response = await server.get(path, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: "text/html" },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      times.push(performance.now() - started);
    }
    figures.pages[name] = { median: round(percentile(times, 50)), max: round(Math.max(...times)) };
  }
  return figures;
}

/**
 * "Apply to all that match" on the blogs matching "blog 1" (the list names them "Blog N", which
 * their feeds' own titles do not replace: 1 + 10 + 100 + 1 000 of 10 000): hidden in one request.
 */
async function measureBulk(
  server: Awaited<ReturnType<typeof startTestServer>>,
): Promise<{ blogs: number; ms: number }> {
  const base = `${server.plugin.mountPath}/blogs`;
  const back = `${base}?q=blog+1`;
  const blogs = (await server.storage.blogs.list({ visibility: "admin", search: "blog 1", limit: 0, offset: 0 })).total;
  if (blogs === 0) throw new Error("bulk hide: no blog matches 'blog 1'");
  const started = performance.now();
  const response = await server.get(`${base}/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action: "hide", all: "1", back }),
    redirect: "manual",
  });
  const ms = round(performance.now() - started);
  const hidden = (
    await server.storage.blogs.list({ visibility: "admin", search: "blog 1", status: "hidden", limit: 0, offset: 0 })
  ).total;
  if (response.status !== 303 || hidden !== blogs)
    throw new Error(`bulk hide: ${response.status}, ${hidden} of ${blogs} hidden`);
  return { blogs, ms };
}

interface AdminFigures {
  pages: Record<string, { median: number; max: number }>;
  bulk: { blogs: number; ms: number } | null;
}

/**
 * The product as it runs for its users is compiled JavaScript, not TypeScript
 * through tsx (whose compiler would add some 45 MB to the measured process and
 * to every parse worker): this script and what it imports are compiled once
 * into bench/results/build, and each size runs there under plain `node`.
 */
function compile(): string {
  const out = path.join(RESULTS_FOLDER, "build");
  rmSync(out, { recursive: true, force: true });
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  const flags = ["--outDir", out, "--rootDir", fileURLToPath(new URL("..", import.meta.url))];
  // The parse worker's entry is loaded by path, not imported: named too.
  const entries = [
    fileURLToPath(import.meta.url),
    fileURLToPath(new URL("../lib/sync/parse-worker.ts", import.meta.url)),
  ];
  const compiler = spawnSync(process.execPath, [tsc, ...COMPILER_OPTIONS, ...flags, ...entries], { stdio: "inherit" });
  if (compiler.status !== 0) throw new Error("compiling bench/scale.ts failed");
  return path.join(out, "bench", "scale.js");
}

/** tsconfig.json's options, given on the command line (tsc takes either a project or files). */
const COMPILER_OPTIONS = [
  "--target",
  "ES2022",
  "--module",
  "NodeNext",
  "--moduleResolution",
  "NodeNext",
  "--strict",
  "--esModuleInterop",
  "--skipLibCheck",
  "--resolveJsonModule",
  "--types",
  "node",
];

/** Runs one size in a child process (the compiled script) and reads its result. */
async function runSize(script: string, size: number): Promise<SizeResult> {
  const file = path.join(RESULTS_FOLDER, `scale-${size}.json`);
  rmSync(file, { force: true });
  const profiles = path.join(RESULTS_FOLDER, "profiles");
  if (args["cpu-prof"]) mkdirSync(profiles, { recursive: true });
  const execArgv = [
    ...(args["cpu-prof"]
      ? ["--cpu-prof", "--cpu-prof-dir", profiles, "--cpu-prof-name", `scale-${size}.cpuprofile`]
      : []),
  ];
  const forwarded = [
    "--delay",
    args.delay!,
    "--day-max-age",
    args["day-max-age"]!,
    "--idle-seconds",
    args["idle-seconds"]!,
    ...(args["skip-day"] ? ["--skip-day"] : []),
  ];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [...execArgv, script, "--child", String(size), ...forwarded], {
      stdio: "inherit",
      env: { ...process.env, BENCH_SCALE_RESULT: file },
    });
    child.on("exit", resolve);
  });
  if (code !== 0) throw new Error(`the run at ${size} blogs failed (exit ${code})`);
  return JSON.parse(readFileSync(file, "utf8")) as SizeResult;
}

if (args.child) {
  const result = await measureSize(Number(args.child));
  const { writeFileSync } = await import("node:fs");
  mkdirSync(RESULTS_FOLDER, { recursive: true });
  writeFileSync(
    process.env.BENCH_SCALE_RESULT ?? path.join(RESULTS_FOLDER, `scale-${args.child}.json`),
    JSON.stringify(result),
  );
} else {
  const sizes = args.sizes!.split(",").map(Number);
  const started = performance.now();
  console.log(`bench/scale.ts: ${sizes.join(", ")} blogs, ${args.delay} ms per response; load average ${loadNow()}`);
  const script = compile();
  const results: SizeResult[] = [];
  for (const size of sizes) results.push(await runSize(script, size));
  printSideBySide(results, (performance.now() - started) / 1000);
}

function printSideBySide(results: SizeResult[], seconds: number): void {
  const base = results[0];
  const api = (result: SizeResult, phase: string, label: string) => {
    const figures = result.api[phase]?.[label];
    return figures ? `${figures.p50} / ${figures.p99} / ${figures.max} (${figures.count})` : "-";
  };
  const perThousand = (value: number, result: SizeResult) => round((value / result.blogs) * 1000, 2);
  const rows: Array<[string, (result: SizeResult) => string | number]> = [
    ["hosts", (r) => r.hosts],
    ["load average at start / end", (r) => `${r.load.start} / ${r.load.end}`],
    ["blogs added s", (r) => r.addSeconds],
    ["first sync: all posts stored s", (r) => r.first.contentSeconds],
    ["first sync: whole run s", (r) => r.first.seconds],
    ["first sync: s per 1 000 blogs", (r) => perThousand(r.first.seconds, r)],
    ["first sync: CPU s", (r) => r.first.cpuSeconds],
    ["first sync: CPU s per 1 000 blogs", (r) => perThousand(r.first.cpuSeconds, r)],
    [
      "first sync: RSS start / peak / end MB",
      (r) => `${r.first.rss.startMb} / ${r.first.rss.peakMb} / ${r.first.rss.endMb}`,
    ],
    ["first sync: at peak", (r) => r.first.rss.atPeak],
    ["first sync: requests", (r) => JSON.stringify(r.first.requests)],
    [
      "first sync: blogs ok / failed, items",
      (r) => `${r.first.blogs.success} / ${r.first.blogs.failed}, ${r.first.itemsAdded}`,
    ],
    ["first sync: event-loop delay p99 / max ms", (r) => `${r.first.loop.p99} / ${r.first.loop.max}`],
    [
      "first sync: GC pauses by kind, count / total / max ms / over 20 ms",
      (r) =>
        Object.entries(r.first.gc)
          .map(([kind, gc]) => `${kind} ${gc.count} / ${gc.totalMs} / ${gc.maxMs} / ${gc.over20}`)
          .join(", "),
    ],
    ["blogs with an icon", (r) => r.withIcon],
    ["re-sync (all 304): s", (r) => r.resync.seconds],
    ["re-sync: s per 1 000 blogs", (r) => perThousand(r.resync.seconds, r)],
    ["re-sync: CPU s", (r) => r.resync.cpuSeconds],
    ["re-sync: CPU s per 1 000 blogs", (r) => perThousand(r.resync.cpuSeconds, r)],
    ["re-sync: requests", (r) => JSON.stringify(r.resync.requests)],
    ["re-sync: peak RSS MB", (r) => r.resync.rss.peakMb],
    ["/api/items?limit=50 p50 / p99 / max ms (n), first sync", (r) => api(r, "first sync", "/api/items?limit=50")],
    ["/api/blogs p50 / p99 / max ms (n), first sync", (r) => api(r, "first sync", "/api/blogs")],
    ["/api/items?limit=50 idle", (r) => api(r, "idle", "/api/items?limit=50")],
    ["/api/blogs idle", (r) => api(r, "idle", "/api/blogs")],
    ["/api/items?limit=50 re-sync", (r) => api(r, "re-sync", "/api/items?limit=50")],
    ["/api/blogs re-sync", (r) => api(r, "re-sync", "/api/blogs")],
    ["scheduled day: runs", (r) => r.day.runs],
    ["scheduled day: requests", (r) => JSON.stringify(r.day.requests)],
    ["scheduled day: feed requests per blog", (r) => r.day.feedRequestsPerBlog],
    ["scheduled day: CPU s (per 1 000 blogs)", (r) => `${r.day.cpuSeconds} (${perThousand(r.day.cpuSeconds, r)})`],
    ["scheduled day: wall s, peak RSS MB", (r) => `${r.day.wallSeconds}, ${r.day.peakRssMb}`],
    ["process peak RSS MB (whole run)", (r) => r.maxRssMb],
    ...Object.keys(base.admin.pages).map((page): [string, (result: SizeResult) => string] => [
      `admin ${page}: median / max ms`,
      (r) => `${r.admin.pages[page]?.median} / ${r.admin.pages[page]?.max}`,
    ]),
    [
      "admin bulk hide of every blog matching 'blog 1': blogs, ms",
      (r) => `${r.admin.bulk?.blogs}, ${r.admin.bulk?.ms}`,
    ],
  ];
  const figures: Record<string, string> = {};
  for (const [name, value] of rows)
    figures[name] = results.map((result) => `${result.blogs}: ${value(result)}`).join(" | ");
  const largest = results[results.length - 1];
  const scale = largest.blogs / base.blogs;
  const syncP99 = Math.max(
    ...["first sync", "re-sync"].flatMap((phase) =>
      ["/api/items?limit=50", "/api/blogs"].map((label) => largest.api[phase]?.[label]?.p99 ?? Number.NaN),
    ),
  );
  // The median of each page's requests: one slow request on a loaded machine is not the page's cost.
  const slowestAdmin = Math.max(...Object.values(largest.admin.pages).map((page) => page.median));
  const targets = [
    target(`slowest admin page at ${largest.blogs} (median of ${ADMIN_ROUNDS})`, slowestAdmin, "<=", 200, "ms"),
    target(
      `first sync time ${largest.blogs} / ${base.blogs} over linear`,
      largest.first.seconds / base.first.seconds / scale,
      "<=",
      1.1,
      "x",
    ),
    target(
      `first sync CPU ${largest.blogs} / ${base.blogs} over linear`,
      largest.first.cpuSeconds / base.first.cpuSeconds / scale,
      "<=",
      1.1,
      "x",
    ),
    target(
      `re-sync time ${largest.blogs} / ${base.blogs} over linear`,
      largest.resync.seconds / base.resync.seconds / scale,
      "<=",
      1.1,
      "x",
    ),
    target(
      `re-sync CPU ${largest.blogs} / ${base.blogs} over linear`,
      largest.resync.cpuSeconds / base.resync.cpuSeconds / scale,
      "<=",
      1.1,
      "x",
    ),
    target(`API p99 during either sync at ${largest.blogs}`, syncP99, "<=", 50, "ms"),
    target(`first sync at ${base.blogs}: all posts stored`, base.first.contentSeconds, "<=", 15, "s"),
    target(`first sync at ${base.blogs}: whole run`, base.first.seconds, "<=", 25, "s"),
    target(`peak RSS of the first sync at ${base.blogs}`, base.first.rss.peakMb, "<=", 200, "MB"),
    target(`peak RSS of the first sync at ${largest.blogs}`, largest.first.rss.peakMb, "<=", 400, "MB"),
    target(
      `feed requests per blog in a day, ${largest.blogs} over ${base.blogs}`,
      largest.day.feedRequestsPerBlog / base.day.feedRequestsPerBlog,
      "<=",
      1.05,
      "x",
    ),
  ];
  report({
    scenario: `Scale: ${results.map((result) => result.blogs).join(", ")} blogs side by side`,
    figures: { ...figures, "bench run time s": round(seconds, 0) },
    targets,
    notes: [
      "each size in its own process; the fixture and the API prober in processes of their own",
      `linear: the largest size's figure divided by the smallest's, over their ratio of blogs (${scale})`,
    ],
  } satisfies BenchResult);
}
