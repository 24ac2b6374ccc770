/**
 * Live events (GET {mount}/api/events) at 1 000 connections. The server
 * (standalone, SQLite) runs in a process of its own (bench/support/
 * live-server.ts), so its memory is its own; the clients here are plain TCP
 * sockets speaking HTTP/1.1, from 125 loopback addresses (127.0.1.x), eight
 * each: the per-address limit's default.
 *
 * 1. Memory: the server's RSS after two garbage collections, with no live
 *    client and with 1 000 held (each has had its opening frame), the extra
 *    per connection.
 * 2. Fan-out: posts stored by the server's own process (as a fetch or a push
 *    stores them), the delay from the write's commit to each of the 1 000
 *    clients receiving the event.
 * 3. Another process: posts stored into the same SQLite file by this process
 *    (a second server behind the same database), the delay to the clients.
 * 4. One sender's cost: from one address, 100 connections asked for at once
 *    (how many are held); those held stop reading while 300 posts of 16 KB
 *    flow to 20 honest clients (what the server queues for them, and whether
 *    the honest ones get everything); then they reconnect again and again
 *    with the oldest Last-Event-ID (a replay of up to 1 000 events each) for
 *    10 s while /api/blogs is timed.
 * 5. Hub to page: a blog pushes through a local WebSub hub to the plugin
 *    (this process), and a page in Chromium shows it with `<blogroll-items
 *    live>`: the delay from the hub starting to notify to the post's line in
 *    the page's DOM.
 *
 *   node --import tsx bench/live.ts [--clients 1000] [--posts 20]
 */
import { fork, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CHECKPOINT_DELAY_MS } from "../lib/storage/sqlite/checkpointer.js";
import { createSqliteStorage } from "../lib/storage/sqlite/index.js";
import { item } from "../test/support/seed.js";
import { launchBrowser } from "../test/support/browser.js";
import { respond, startFixtureServer } from "../test/support/fixture-server.js";
import { startLocalHub } from "../test/support/local-push.js";
import { trustLoopbackCertificate } from "../test/support/loopback-tls.js";
import { startTestServer } from "../test/support/server.js";
import { startFeedServer } from "../test/sync/feed-server.js";
import { loadavg, uptime } from "node:os";
import { MB, percentile, probeLatency, report, round, target, type BenchResult } from "./support/measure.js";

const { values } = parseArgs({
  options: { clients: { type: "string", default: "1000" }, posts: { type: "string", default: "20" } },
});
const CLIENTS = Number(values.clients);
const POSTS = Number(values.posts);
const PER_ADDRESS = 8;

/** The server process and a way to ask it things. */
function startServer(): Promise<{
  child: ChildProcess;
  ask: (command: Record<string, unknown>) => Promise<Record<string, unknown>>;
  api: string;
  databasePath: string;
}> {
  const child = fork(fileURLToPath(new URL("./support/live-server.ts", import.meta.url)), {
    execArgv: ["--import", "tsx", "--expose-gc"],
    env: {
      ...process.env,
      LIVE_OPTIONS: JSON.stringify({ liveMaxConnections: CLIENTS, liveMaxPerAddress: PER_ADDRESS }),
    },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  let next = 1;
  const waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  return new Promise((resolve) => {
    child.on("message", (reply: Record<string, unknown> & { id: number }) => {
      if (reply.id === 0) {
        resolve({
          child,
          api: String(reply.api),
          databasePath: String(reply.databasePath),
          ask: (command) =>
            new Promise((answered) => {
              const id = next++;
              waiting.set(id, answered);
              child.send({ id, ...command });
            }),
        });
      } else {
        waiting.get(reply.id)?.(reply);
        waiting.delete(reply.id);
      }
    });
  });
}

/** One live client: a raw socket; notes when each post (by title) arrived. */
interface Client {
  socket: Socket;
  opened: Promise<void>;
  arrivals: Map<string, number>;
}

function openClient(api: string, localAddress: string, lastEventId?: number): Client {
  const url = new URL(`${api}/events`);
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
  const arrivals = new Map<string, number>();
  let tail = "";
  let resolveOpened: () => void = () => undefined;
  let rejectOpened: (error: Error) => void = () => undefined;
  const opened = new Promise<void>((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  socket.setEncoding("utf8");
  const resume = lastEventId === undefined ? "" : `Last-Event-ID: ${lastEventId}\r\n`;
  socket.on("connect", () =>
    socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n${resume}\r\n`),
  );
  socket.on("data", (chunk: string) => {
    const at = Date.now();
    const text = tail + chunk;
    if (text.startsWith("HTTP/1.1 ")) {
      if (!text.startsWith("HTTP/1.1 200")) rejectOpened(new Error(text.split("\r\n")[0]));
      else if (text.includes("\n\n", text.indexOf("\r\n\r\n") + 4)) resolveOpened();
    }
    for (const match of text.matchAll(/event: post\ndata: \{[^\n]*?"title":"([^"]+)"/g))
      if (!arrivals.has(match[1])) arrivals.set(match[1], at);
    tail = text.slice(-2048);
  });
  socket.on("error", (error) => rejectOpened(error));
  return { socket, opened, arrivals };
}

async function main(): Promise<void> {
  const server = await startServer();
  const notes: string[] = [];
  // Warm up: one client, one post, so what the first client costs once (code, caches) is in the baseline.
  const { blogId } = (await server.ask({ cmd: "blog" })) as { blogId: string };
  const warm = openClient(server.api, "127.0.0.1");
  await warm.opened;
  await server.ask({ cmd: "post", blogId, uid: "warm-up" });
  while (!warm.arrivals.has("Post warm-up")) await sleep(20);
  warm.socket.destroy();
  // The first write also starts SQLite's checkpoint worker, a little later: a cost of any server that has stored something, not of the connections.
  await sleep(CHECKPOINT_DELAY_MS * 2);
  while (((await server.ask({ cmd: "memory" })) as { connections: number }).connections > 0) await sleep(50);
  const before = (await server.ask({ cmd: "memory" })) as { rss: number; heapUsed: number };

  const clients: Client[] = [];
  for (let n = 0; n < CLIENTS; n++) {
    clients.push(openClient(server.api, `127.0.1.${1 + Math.floor(n / PER_ADDRESS)}`));
    if (n % 100 === 99) await Promise.all(clients.map((client) => client.opened));
  }
  await Promise.all(clients.map((client) => client.opened));
  const held = (await server.ask({ cmd: "memory" })) as { rss: number; heapUsed: number; connections: number };
  const extraMb = (held.rss - before.rss) / MB;
  console.log(
    `${held.connections} live connections held: RSS ${round(before.rss / MB)} -> ${round(held.rss / MB)} MB (+${round(extraMb)} MB, ${round((held.rss - before.rss) / held.connections / 1024)} KB each); heap +${round((held.heapUsed - before.heapUsed) / MB)} MB`,
  );

  /** Stores POSTS posts one after another with `store`, and the delay of each to each client. */
  async function fanOut(label: string, store: (uid: string) => Promise<number>): Promise<number[]> {
    const delays: number[] = [];
    for (let n = 0; n < POSTS; n++) {
      const uid = `${label}-${n}`;
      const storedAt = await store(uid);
      const deadline = Date.now() + 10_000;
      while (clients.some((client) => !client.arrivals.has(`Post ${uid}`)) && Date.now() < deadline) await sleep(10);
      for (const client of clients) {
        const at = client.arrivals.get(`Post ${uid}`);
        delays.push(at === undefined ? Number.POSITIVE_INFINITY : at - storedAt);
      }
      await sleep(100);
    }
    return delays;
  }

  const own = await fanOut(
    "own",
    async (uid) => ((await server.ask({ cmd: "post", blogId, uid })) as { storedAt: number }).storedAt,
  );
  const writer = createSqliteStorage(server.databasePath);
  await writer.init();
  const other = await fanOut("other", async (uid) => {
    await writer.items.upsertMany(blogId, [item(uid, new Date())], new Date());
    return Date.now();
  });
  await writer.close();
  const missed = [...own, ...other].filter((delay) => !Number.isFinite(delay)).length;
  const stats = (delays: number[]) => ({
    p50: percentile(delays, 50),
    p95: percentile(delays, 95),
    max: Math.max(...delays),
  });
  const ownStats = stats(own);
  const otherStats = stats(other);
  console.log(
    `stored by the server's process: p50 ${ownStats.p50} ms, p95 ${ownStats.p95} ms, max ${ownStats.max} ms over ${own.length} deliveries`,
  );
  console.log(
    `stored by another process: p50 ${otherStats.p50} ms, p95 ${otherStats.p95} ms, max ${otherStats.max} ms over ${other.length} deliveries`,
  );
  if (missed > 0) notes.push(`${missed} deliveries never arrived within 10 s`);

  for (const client of clients) client.socket.destroy();
  while (((await server.ask({ cmd: "memory" })) as { connections: number }).connections > 0) await sleep(50);
  const attack = await oneSender(server, blogId);
  await server.ask({ cmd: "stop" });
  const page = await hubToPage();

  const result: BenchResult = {
    scenario: `Live events: ${CLIENTS} connections held, ${POSTS} posts stored by the server's process and ${POSTS} by another on the same SQLite file`,
    figures: {
      rssBeforeMb: round(before.rss / MB),
      rssHeldMb: round(held.rss / MB),
      extraRssMb: round(extraMb),
      extraKbPerConnection: round((held.rss - before.rss) / held.connections / 1024),
      ownP50Ms: ownStats.p50,
      ownP95Ms: ownStats.p95,
      ownMaxMs: ownStats.max,
      otherP50Ms: otherStats.p50,
      otherP95Ms: otherStats.p95,
      otherMaxMs: otherStats.max,
      missed,
    },
    targets: [
      target(`extra RSS for ${CLIENTS} live connections`, extraMb, "<=", 32, "MB"),
      target(`stored post to all ${CLIENTS} clients, p95`, ownStats.p95, "<=", 1000, "ms"),
      target(`post stored by another process to all ${CLIENTS} clients, p95`, otherStats.p95, "<=", 2000, "ms"),
    ],
    notes: [...notes, uptimeNote()],
  };
  report(result, attack, page);
}

/**
 * Scenario 5: posts pushed by a local WebSub hub, to the DOM of a page with the live widget. Each
 * post comes from a blog of its own, as honest pushes do: one blog pushing 20 posts a few tenths
 * of a second apart is past the push door's per-blog budget and rightly folded into one fetch.
 */
async function hubToPage(): Promise<BenchResult> {
  // An https hub: the plugin sends its secret, and so stores pushed posts, to https hubs only.
  trustLoopbackCertificate();
  const hub = await startLocalHub({ tls: true });
  const feeds = await startFeedServer();
  const feedUrl = (n: number) => `${feeds.origins[0]}/pushed-${n}.atom`;
  const entries = Array.from({ length: POSTS }, () => [{ id: "older", at: new Date(Date.now() - 3_600_000) }]);
  const atom = (n: number) =>
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Pushed ${n}</title><id>urn:bench:pushed-${n}</id><updated>2026-01-01T00:00:00Z</updated>` +
    `<link rel="hub" href="${hub.url}"/><link rel="self" href="${feedUrl(n)}"/>` +
    entries[n]
      .map(
        (entry) =>
          `<entry><id>urn:bench:${n}-${entry.id}</id><title>${entry.id}</title><link href="https://pushed.example/${n}/${entry.id}"/><updated>${entry.at.toISOString()}</updated></entry>`,
      )
      .join("") +
    `</feed>`;
  for (let n = 0; n < POSTS; n++)
    feeds.route(
      `/pushed-${n}.atom`,
      (_request, response) => void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom(n)),
    );
  const server = await startTestServer("sqlite");
  (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
  const verified: Promise<unknown>[] = [];
  for (let n = 0; n < POSTS; n++) {
    await server.storage.blogs.upsertFromSource({ feedUrl: feedUrl(n), title: `Pushed ${n}`, source: "manual" });
    verified.push(hub.verified(feedUrl(n)));
  }
  await server.plugin.context.scheduler.syncNow();
  await server.plugin.context.push.idle();
  await Promise.all(verified);
  const site = await startFixtureServer();
  const mount = `${server.baseUrl}${server.plugin.mountPath}`;
  site.route(
    "/live.html",
    respond.text(
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Live</title><script type="module" src="${mount}/widget.js"></script></head>` +
        `<body><blogroll-items live limit="10"></blogroll-items></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
  );
  const browser = await launchBrowser();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.goto(`${site.url}/live.html`);
  await page.waitForFunction(() => document.querySelector("blogroll-items")?.getAttribute("aria-busy") === "false");
  while (server.plugin.context.live.connections < 1) await sleep(20);
  // The page notes when each post's line appears.
  await page.evaluate(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { seen: Record<string, number> }).seen = seen;
    new MutationObserver(() => {
      for (const link of document.querySelectorAll("blogroll-items a.blogroll__title"))
        seen[link.textContent ?? ""] ??= Date.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  const delays: number[] = [];
  for (let n = 0; n < POSTS; n++) {
    const id = `pushed-${n}`;
    entries[n] = [{ id, at: new Date() }, ...entries[n]];
    const started = Date.now();
    await hub.publish(feedUrl(n), atom(n));
    let shownAt: number | undefined;
    const deadline = Date.now() + 10_000;
    while (shownAt === undefined && Date.now() < deadline) {
      shownAt = await page.evaluate((title) => (window as unknown as { seen: Record<string, number> }).seen[title], id);
      if (shownAt === undefined) await sleep(20);
    }
    delays.push(shownAt === undefined ? Number.POSITIVE_INFINITY : shownAt - started);
    await sleep(300);
  }
  await browser.close();
  await server.close();
  await site.close();
  await feeds.close();
  await hub.close();
  const p95 = percentile(delays, 95);
  console.log(
    `hub notification to the page's DOM: p50 ${percentile(delays, 50)} ms, p95 ${p95} ms, max ${Math.max(...delays)} ms over ${delays.length} posts`,
  );
  return {
    scenario: "Live events: posts pushed by a local WebSub hub (one per blog), to a live widget's DOM in Chromium",
    figures: { posts: delays.length, p50Ms: percentile(delays, 50), p95Ms: p95, maxMs: Math.max(...delays) },
    targets: [target("hub notification to the widget's DOM, p95", p95, "<=", 1000, "ms")],
    notes: [uptimeNote()],
  };
}

/** Scenario 4: what one address can make the server hold and do. */
async function oneSender(server: Awaited<ReturnType<typeof startServer>>, blogId: string): Promise<BenchResult> {
  const attacker = "127.0.2.1";
  const tries = Array.from({ length: 100 }, () => openClient(server.api, attacker));
  const outcomes = await Promise.all(
    tries.map((client) =>
      client.opened.then(
        () => "held",
        () => "refused",
      ),
    ),
  );
  const held = tries.filter((_, index) => outcomes[index] === "held");
  for (const [index, client] of tries.entries()) if (outcomes[index] === "refused") client.socket.destroy();
  for (const client of held) client.socket.pause();
  const honest = Array.from({ length: 20 }, (_, n) => openClient(server.api, `127.0.3.${n + 1}`));
  await Promise.all(honest.map((client) => client.opened));
  const before = (await server.ask({ cmd: "memory" })) as { rss: number; heapUsed: number; unreadBytes: number };
  const posts = 300;
  await server.ask({ cmd: "bulk", blogId, count: posts, size: 16 * 1024 });
  const deadline = Date.now() + 60_000;
  while (
    honest.some(
      (client) => [...client.arrivals.keys()].filter((title) => title.startsWith("Post bulk-")).length < posts,
    ) &&
    Date.now() < deadline
  )
    await sleep(50);
  const delivered = honest.every(
    (client) => [...client.arrivals.keys()].filter((title) => title.startsWith("Post bulk-")).length === posts,
  );
  const during = (await server.ask({ cmd: "memory" })) as {
    rss: number;
    heapUsed: number;
    unreadBytes: number;
    connections: number;
  };
  console.log(
    `one sender: ${held.length} of 100 held, ${100 - held.length} refused; its stalled streams queue ${round(during.unreadBytes / 1024)} KB in all; ` +
      `heap ${round(before.heapUsed / MB)} -> ${round(during.heapUsed / MB)} MB, RSS ${round(before.rss / MB)} -> ${round(during.rss / MB)} MB; honest clients got every post: ${delivered}`,
  );
  for (const client of [...held, ...honest]) client.socket.destroy();
  while (((await server.ask({ cmd: "memory" })) as { connections: number }).connections > 0) await sleep(50);

  // Replays: eight connections reconnecting for 10 s, each asking for the last 1 000 events again
  // (posts with summaries of 300 characters, the most a feed's summary is kept to).
  await server.ask({ cmd: "bulk", blogId, count: 1000, size: 300 });
  const { newest } = (await server.ask({ cmd: "memory" })) as { newest: number };
  const idle = probeLatency(`${server.api}/blogs`);
  await sleep(3000);
  const idleLatency = await idle.stop();
  const probe = probeLatency(`${server.api}/blogs`);
  let replays = 0;
  const until = Date.now() + 10_000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < until) {
        const client = openClient(server.api, attacker, newest - 1000);
        await client.opened.catch(() => undefined);
        await new Promise<void>((resolve) => {
          client.socket.on("data", () => {
            if (client.arrivals.size >= 1000 || Date.now() >= until) resolve();
          });
          client.socket.on("close", () => resolve());
          setTimeout(resolve, 5000);
        });
        client.socket.destroy();
        replays++;
      }
    }),
  );
  const loaded = await probe.stop();
  console.log(
    `replays by one sender: ${replays} in 10 s; /api/blogs p99 ${idleLatency.p99} ms idle, ${loaded.p99} ms meanwhile`,
  );
  return {
    scenario: "Live events: what one sender (one address) can make the server hold and do",
    figures: {
      connectionsAsked: 100,
      connectionsHeld: held.length,
      stalledUnreadKb: round(during.unreadBytes / 1024),
      heapBeforeMb: round(before.heapUsed / MB),
      heapDuringMb: round(during.heapUsed / MB),
      rssBeforeMb: round(before.rss / MB),
      rssDuringMb: round(during.rss / MB),
      honestGotEverything: String(delivered),
      replaysIn10s: replays,
      apiP99IdleMs: idleLatency.p99,
      apiP99DuringReplaysMs: loaded.p99,
    },
    targets: [
      target("connections one address holds", held.length, "<=", PER_ADDRESS, "connections"),
      target("bytes queued for its stalled streams", during.unreadBytes / 1024, "<=", PER_ADDRESS * 64, "KB"),
    ],
    notes: [`${uptimeNote()}`],
  };
}

function uptimeNote(): string {
  return `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(", ")} (uptime ${round(uptime() / 60)} min)`;
}

await main();
