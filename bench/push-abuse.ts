/**
 * The push door under attack, side by side with a quiet baseline in one run.
 * For each attack a fresh plugin runs standalone in a child process (SQLite,
 * its own RSS measured), following 41 blogs that a local https WebSub hub
 * pushes. One of them, the target, has a hostile hub: it knows the target's
 * callback and secret. After a quiet phase of `--seconds`, it sends for as
 * long one of:
 *
 *   notices   1 000 signed, empty notifications a second at the callback;
 *   trickle   50 bodies at once, each sent a byte a second (one answered is opened again a second later);
 *   heavy     100 signed notifications of 4.8 MB (a feed of big posts), 4 at a time.
 *
 * In both phases the honest hub publishes a post every 500 ms on the 40 other
 * blogs in turn (the whole feed, signed), and /api/items is asked every 20 ms from a process of its own.
 * Reported per attack: feed requests it caused at the target (target: within
 * the blog's hint budget), the other blogs' delivery delay (hub starts
 * notifying → the post listed by /api/items; target: p95 within 1 s of the
 * quiet phase's), /api/items p99 (target ≤ 50 ms) and the child's peak RSS
 * (target ≤ 64 MB above the quiet phase's peak).
 *
 *   node --import tsx bench/push-abuse.ts [--seconds 15] [--attack notices|trickle|heavy ...]
 *     [--child-flag --trace-gc ...] [--child-log file]   (flags for the plugin's process; its output to a file)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest, type ClientRequest } from "node:http";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { HINT_BURST, HINT_INTERVAL } from "../lib/schedule/hints.js";
import { startLocalHub, type LocalHub } from "../test/support/local-push.js";
import { LOOPBACK_CERTIFICATE, trustLoopbackCertificate } from "../test/support/loopback-tls.js";
import { startFeedServer, type FeedServer } from "../test/sync/feed-server.js";
import { startApiProber, type LatencyFigures } from "./support/api-prober.js";
import { MB, percentile, report, round, target, type BenchResult } from "./support/measure.js";
import { freePort } from "../test/support/free-port.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    attack: { type: "string", multiple: true },
    "child-flag": { type: "string", multiple: true },
    "child-log": { type: "string" },
  },
});
const SECONDS = Number(values.seconds);
const OTHERS = 40;
const REPO = path.resolve(import.meta.dirname, "..");

interface Entry {
  id: string;
  published: Date;
}

interface Followed {
  path: string;
  feedUrl: string;
  entries: Entry[];
  id: string;
}

function atom(feedUrl: string, hubUrl: string, entries: Entry[], content = ""): string {
  return (
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${feedUrl}</title><id>urn:${feedUrl}</id><updated>2026-01-01T00:00:00Z</updated>` +
    `<link rel="hub" href="${hubUrl}"/><link rel="self" href="${feedUrl}"/>` +
    entries
      .slice(0, 10)
      .map(
        (entry) =>
          `<entry><id>urn:${entry.id}</id><title>${entry.id}</title><updated>${entry.published.toISOString()}</updated>${content}</entry>`,
      )
      .join("") +
    `</feed>`
  );
}

/** The child's resident memory (all its threads), from /proc. */
function childRss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : 0;
}

/** A full collection of the plugin's main heap, as bench/support/gc-watch.ts reports it (asked: by SIGUSR2). */
interface FullCollection {
  at: number;
  asked: boolean;
  liveMb: number;
}

async function startPlugin(
  folder: string,
  opmlUrl: string,
): Promise<{ child: ChildProcess; base: string; collections: FullCollection[]; stop(): Promise<void> }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const configFile = path.join(folder, "config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      allowPrivateNetworks: true,
      initialSyncDelay: 0,
      syncInterval: 3_600_000,
      sources: [{ type: "opml_url", name: "Followed", url: opmlUrl }],
    }),
  );
  const child = spawn(
    process.execPath,
    [
      ...(values["child-flag"] ?? []),
      "--import",
      "tsx",
      "--import",
      "./bench/support/gc-watch.ts",
      "lib/standalone/cli.ts",
    ],
    {
      cwd: REPO,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        BLOGROLL_DATABASE: path.join(folder, "blogroll.db"),
        BLOGROLL_CONFIG: configFile,
        BLOGROLL_ADMIN_TOKEN: "push-abuse-benchmark-token",
        BLOGROLL_PUBLIC_URL: base,
        MONGODB_URL: "",
        // The hub's test certificate, trusted by the plugin's process only.
        NODE_EXTRA_CA_CERTS: LOOPBACK_CERTIFICATE,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const collections: FullCollection[] = [];
  let partial = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^gc-watch: (full collection|asked), heap in use ([\d.]+) MB/.exec(line);
      if (match) collections.push({ at: performance.now(), asked: match[1] === "asked", liveMb: Number(match[2]) });
    }
  });
  let output = "";
  const log = values["child-log"] ? createWriteStream(values["child-log"], { flags: "a" }) : null;
  const onOutput = (chunk: Buffer) => {
    // Only the start is looked for; with a log file every line goes there.
    if (output.length < 64 * 1024) output += chunk;
    log?.write(chunk);
  };
  child.stdout!.on("data", onOutput);
  child.stderr!.on("data", onOutput);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const check = () => (/listening on/.test(output) ? resolve() : undefined);
    child.stdout!.on("data", check);
    void exited.then(() => reject(new Error(`the plugin exited:\n${output}`)));
  });
  return {
    child,
    base,
    collections,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The honest side: a post every 500 ms on the other blogs in turn; each post's delay until /api/items lists it. */
function publishHonestly(hub: LocalHub, others: Followed[], api: string) {
  const delays: number[] = [];
  let missed = 0;
  let running = true;
  const waits: Promise<void>[] = [];
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const blog = others[n % others.length];
      const post = { id: `${blog.path}-post-${Date.now()}-${n}`, published: new Date() };
      blog.entries.unshift(post);
      const sent = performance.now();
      const notified = hub.publish(blog.feedUrl, atom(blog.feedUrl, hub.url, blog.entries));
      waits.push(
        (async () => {
          await notified.catch(() => undefined);
          for (;;) {
            const body = (await (await fetch(`${api}/items?blog=${blog.id}&limit=5`)).json()) as {
              items: Array<{ title: string }>;
            };
            if (body.items.some((item) => item.title === post.id)) return void delays.push(performance.now() - sent);
            if (performance.now() - sent > 30_000) return void missed++;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        })(),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await Promise.all(waits);
      return {
        count: delays.length,
        missed,
        p50: round(percentile(delays, 50)),
        p95: round(percentile(delays, 95)),
        max: round(Math.max(...delays)),
      };
    },
  };
}

interface Attack {
  /** Requests sent and the statuses answered (by class). */
  sent: number;
  statuses: Record<string, number>;
}

/** Signed empty notifications, `perSecond` a second over `connections` kept-alive connections. */
async function notices(callback: string, secret: string, perSecond: number, until: number): Promise<Attack> {
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  const signature = `sha256=${createHmac("sha256", secret).update("").digest("hex")}`;
  const result: Attack = { sent: 0, statuses: {} };
  const started = performance.now();
  const one = () =>
    new Promise<void>((resolve) => {
      const request = httpRequest(
        callback,
        {
          method: "POST",
          agent,
          headers: { "content-type": "application/atom+xml", "content-length": "0", "x-hub-signature": signature },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            result.statuses[String(response.statusCode)] = (result.statuses[String(response.statusCode)] ?? 0) + 1;
            resolve();
          });
        },
      );
      request.on("error", () => resolve());
      request.end();
    });
  const inFlight = new Set<Promise<void>>();
  while (performance.now() < until) {
    // Keep to the rate: as many sent as the elapsed time allows.
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (result.sent < due && inFlight.size < 200) {
      result.sent++;
      const sending = one().finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return result;
}

/** `count` bodies at once, each announcing 1 MB and sending a byte a second; each answered one is opened again. */
async function trickle(callback: string, secret: string, count: number, until: number): Promise<Attack> {
  const result: Attack = { sent: 0, statuses: {} };
  const body = Buffer.alloc(1024 * 1024, 0x20);
  const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const open = new Set<ClientRequest>();
  const start = (): void => {
    if (performance.now() >= until) return;
    result.sent++;
    const request = httpRequest(
      callback,
      {
        method: "POST",
        headers: {
          "content-type": "application/atom+xml",
          "content-length": String(body.length),
          "x-hub-signature": signature,
        },
      },
      (response) => {
        result.statuses[String(response.statusCode)] = (result.statuses[String(response.statusCode)] ?? 0) + 1;
        response.resume();
        done();
      },
    );
    let sentBytes = 0;
    const timer = setInterval(() => void request.write(body.subarray(sentBytes, ++sentBytes)), 1000);
    const done = () => {
      clearInterval(timer);
      request.destroy();
      if (open.delete(request)) setTimeout(start, 1000);
    };
    request.on("error", done);
    open.add(request);
    request.write(body.subarray(0, ++sentBytes));
  };
  for (let n = 0; n < count; n++) start();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now())));
  for (const request of open) request.destroy();
  open.clear();
  return result;
}

/** `count` signed notifications of a 4.8 MB feed, `parallel` at a time. */
async function heavy(
  callback: string,
  secret: string,
  feedUrl: string,
  hubUrl: string,
  count: number,
  parallel: number,
  until: number,
): Promise<Attack> {
  const result: Attack = { sent: 0, statuses: {} };
  const content = `<content type="text">${"x".repeat(480 * 1024)}</content>`;
  const entries = Array.from({ length: 10 }, (_, n) => ({ id: `heavy-${n}`, published: new Date() }));
  const body = Buffer.from(atom(feedUrl, hubUrl, entries, content));
  const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const send = async (): Promise<void> => {
    while (result.sent < count && performance.now() < until) {
      result.sent++;
      const response = await fetch(callback, {
        method: "POST",
        headers: { "content-type": "application/atom+xml", "x-hub-signature": signature },
        body,
      }).catch(() => null);
      await response?.arrayBuffer().catch(() => undefined);
      const key = response ? String(response.status) : "error";
      result.statuses[key] = (result.statuses[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, send));
  return result;
}

interface PhaseFigures {
  name: string;
  attack: Attack | null;
  targetRequests: number;
  delivery: Awaited<ReturnType<ReturnType<typeof publishHonestly>["stop"]>>;
  api: LatencyFigures;
  peakRssMb: number;
  /** Full collections of the main heap V8 chose to run during the phase. */
  fullCollections: number;
  /** The main heap in use after a full collection asked for at the end of the phase: what the phase left retained. */
  keptMb: number;
  load: string;
}

/** Asks the plugin's process for a full collection (SIGUSR2, see gc-watch.ts); the heap in use after it, in MB. */
async function keptHeap(plugin: { child: ChildProcess; collections: FullCollection[] }): Promise<number> {
  const seen = plugin.collections.length;
  plugin.child.kill("SIGUSR2");
  const asked = performance.now();
  for (;;) {
    const answer = plugin.collections.slice(seen).find((one) => one.asked);
    if (answer) return answer.liveMb;
    if (performance.now() - asked > 30_000)
      throw new Error("the plugin did not report its heap after a full collection");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs the quiet phase and then `attack` against a fresh plugin; the figures of both. */
async function againstFreshPlugin(
  name: string,
  attack: (
    target: { callback: string; secret: string; feedUrl: string; hubUrl: string },
    until: number,
  ) => Promise<Attack>,
): Promise<[PhaseFigures, PhaseFigures]> {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-push-abuse-"));
  const hub = await startLocalHub({ tls: true, leaseSeconds: 86_400 });
  const feeds: FeedServer = await startFeedServer();
  const followed: Followed[] = [];
  for (let n = 0; n <= OTHERS; n++) {
    const feedPath = n === OTHERS ? "/target.atom" : `/other-${n}.atom`;
    const blog: Followed = {
      path: feedPath,
      feedUrl: `${feeds.origins[0]}${feedPath}`,
      entries: [{ id: `${feedPath}-old`, published: new Date(Date.now() - 3_600_000) }],
      id: "",
    };
    feeds.route(
      feedPath,
      (_request, response) =>
        void response
          .writeHead(200, { "content-type": "application/atom+xml" })
          .end(atom(blog.feedUrl, hub.url, blog.entries)),
    );
    followed.push(blog);
  }
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>Followed</title></head><body>${followed.map((blog) => `<outline type="rss" text="${blog.path}" xmlUrl="${blog.feedUrl}"/>`).join("")}</body></opml>`;
  feeds.route(
    "/followed.opml",
    (_request, response) => void response.writeHead(200, { "content-type": "text/x-opml" }).end(opml),
  );
  const plugin = await startPlugin(folder, `${feeds.origins[0]}/followed.opml`);
  const api = `${plugin.base}/blogrollapi/api`;
  try {
    const subscribing = performance.now();
    while (hub.subscriptions.size < followed.length) {
      if (performance.now() - subscribing > 120_000)
        throw new Error(`only ${hub.subscriptions.size} of ${followed.length} blogs subscribed after 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const listed = (await (await fetch(`${api}/blogs?limit=100`)).json()) as {
      items: Array<{ id: string; feedUrl: string }>;
    };
    for (const blog of followed) blog.id = listed.items.find((item) => item.feedUrl === blog.feedUrl)?.id ?? "";
    const targetBlog = followed[OTHERS];
    const others = followed.slice(0, OTHERS);
    const subscription = [...hub.subscriptions.values()].find((entry) => entry.topic === targetBlog.feedUrl)!;
    const target = {
      callback: subscription.callback,
      secret: subscription.secret!,
      feedUrl: targetBlog.feedUrl,
      hubUrl: hub.url,
    };

    const phase = async (label: string, run: ((until: number) => Promise<Attack>) | null): Promise<PhaseFigures> => {
      const hitsBefore = feeds.hits(targetBlog.path);
      let peak = childRss(plugin.child.pid!);
      const sampler = setInterval(() => (peak = Math.max(peak, childRss(plugin.child.pid!))), 50);
      const delivery = publishHonestly(hub, others, api);
      // From a process of its own, so the attackers' sending (100 bodies of 4.8 MB) never delays the probe.
      const probe = await startApiProber({ items: `${api}/items` }, "phase", 20);
      const started = performance.now();
      const until = started + SECONDS * 1000;
      const attacked = run ? await run(until) : null;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now())));
      const figures = { delivery: await delivery.stop(), api: (await probe.stop()).phase.items };
      // Work the attack started (a fetch, a parse) counts for it too.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      clearInterval(sampler);
      const collected = plugin.collections.filter((one) => one.at >= started && !one.asked);
      return {
        fullCollections: collected.length,
        keptMb: await keptHeap(plugin),
        name: label,
        attack: attacked,
        targetRequests: feeds.hits(targetBlog.path) - hitsBefore,
        ...figures,
        peakRssMb: round(peak / MB),
        load: os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(" "),
      };
    };
    return [await phase(`quiet, before: ${name}`, null), await phase(name, (until) => attack(target, until))];
  } finally {
    await plugin.stop();
    await feeds.close();
    await hub.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

trustLoopbackCertificate();
type Target = { callback: string; secret: string; feedUrl: string; hubUrl: string };
const ATTACKS: Record<string, [string, (target: Target, until: number) => Promise<Attack>]> = {
  notices: [
    "1 000 notices a second at the target's callback",
    (target, until) => notices(target.callback, target.secret, 1000, until),
  ],
  trickle: [
    "50 trickling bodies at once at the target's callback",
    (target, until) => trickle(target.callback, target.secret, 50, until),
  ],
  heavy: [
    "100 signed 4.8 MB notifications at the target's callback",
    (target, until) => heavy(target.callback, target.secret, target.feedUrl, target.hubUrl, 100, 4, until),
  ],
};
const runs: [PhaseFigures, PhaseFigures][] = [];
for (const key of values.attack ?? Object.keys(ATTACKS)) {
  if (!ATTACKS[key]) throw new Error(`unknown attack ${key} (one of ${Object.keys(ATTACKS).join(", ")})`);
  runs.push(await againstFreshPlugin(...ATTACKS[key]));
}
const budget = HINT_BURST + Math.floor((SECONDS * 1000) / HINT_INTERVAL);
const figuresOf = (one: PhaseFigures) => ({
  "attack requests sent": one.attack?.sent ?? 0,
  "attack answers": one.attack
    ? Object.entries(one.attack.statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(", ")
    : "-",
  "feed requests at the target": one.targetRequests,
  "other blogs' delivery delay p50 / p95 / max (ms)": `${one.delivery.p50} / ${one.delivery.p95} / ${one.delivery.max} (n=${one.delivery.count}, missed ${one.delivery.missed})`,
  "/api/items p50 / p99 / max (ms)": `${one.api.p50} / ${one.api.p99} / ${one.api.max} (n=${one.api.count}, failures ${one.api.failures})`,
  "plugin peak RSS (MB)": one.peakRssMb,
  "main heap kept at the end, after a full collection (MB)": one.keptMb,
  "full collections during the phase": one.fullCollections,
});
const results: BenchResult[] = runs.flatMap(([quiet, attacked]) => [
  {
    scenario: `push abuse: ${quiet.name} (${SECONDS} s, load average ${quiet.load})`,
    figures: figuresOf(quiet),
    targets: [target("/api/items p99", quiet.api.p99, "<=", 50, "ms")],
    notes: [],
  },
  {
    scenario: `push abuse: ${attacked.name} (${SECONDS} s, load average ${attacked.load})`,
    figures: figuresOf(attacked),
    targets: [
      target("feed requests caused at the target (its hint budget)", attacked.targetRequests, "<=", budget, "requests"),
      target(
        "other blogs' delivery p95 above the quiet phase's",
        attacked.delivery.p95 - quiet.delivery.p95,
        "<=",
        1000,
        "ms",
      ),
      target("other blogs' posts not delivered", attacked.delivery.missed, "<=", 0, "posts"),
      target("/api/items p99", attacked.api.p99, "<=", 50, "ms"),
      target("plugin peak RSS above the quiet phase's", attacked.peakRssMb - quiet.peakRssMb, "<=", 64, "MB"),
    ],
    notes: [
      `hint budget: a burst of ${HINT_BURST}, one more every ${HINT_INTERVAL / 60_000} min (lib/schedule/hints.ts)`,
      "the plugin is a child process (standalone, SQLite): its RSS is its own; the hub, the feeds and the attackers share this machine's loopback and CPUs",
    ],
  },
]);
report(...results);
