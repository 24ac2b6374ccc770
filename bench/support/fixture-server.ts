/**
 * The benchmarks' feed fixture: serves N generated feeds (bench/support/
 * feeds.ts) over HTTP on 127.0.0.1, each response held back by a fixed delay
 * (a remote server's latency), spread over host names h0.bench.test …
 * h{hosts-1}.bench.test that the client maps to loopback (see
 * `loopbackDispatcher`), so per-host limits apply as they would on the web.
 * Answers 304 to a matching If-None-Match or If-Modified-Since, gzips when
 * asked, and counts requests and bytes written per status and per kind
 * (feed, home page, favicon).
 *
 * With `homePages`, feeds carry no image and link to a home page of their
 * own on the fixture (`/blog<index>/`, about 20 KB), which declares a
 * `<link rel="icon">` for even-numbered blogs only; `/favicon.ico` is 404
 * on every host. That is the common case the site-icon lookup meets.
 *
 * It runs in a child process so that serving 100+ MB of feeds never shows up
 * in the measured process's CPU time, event loop or memory.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gunzipSync, gzipSync } from "node:zlib";
import { createGuardedAgent } from "../../lib/http/guarded-agent.js";
import { generateFeed, generateHomePage, type GeneratedFeed } from "./feeds.js";

export interface FixtureOptions {
  /** Feeds served (default 1000). */
  feeds?: number;
  /** Host names they are spread over (default 100). */
  hosts?: number;
  /** Milliseconds every response is held back (default 200). */
  delayMs?: number;
  /** Feeds without images, each linking to a home page served here (default false). */
  homePages?: boolean;
  /** With home pages: odd-numbered blogs announce a blogroll (`<link rel="blogroll">`) of 20 other fixture blogs (default false). */
  blogrolls?: boolean;
}

/** What a request was for, by path. */
export type RequestKind = "feed" | "home page" | "favicon" | "blogroll" | "well-known" | "other";

export interface FixtureStats {
  requests: number;
  /** Responses by status code. */
  byStatus: Record<string, number>;
  /** Requests by what they asked for. */
  byKind: Partial<Record<RequestKind, number>>;
  /** Bytes written to sockets (headers and bodies, as on the wire). */
  bytesSent: number;
  /** Uncompressed feed bytes served with status 200. */
  feedBytes: number;
}

export interface FeedFixture {
  port: number;
  /** Feed URL of feed `index`. */
  urlOf(index: number): string;
  /** Format and size of feed `index`, as served. */
  describe(index: number): { format: string; bytes: number; items: number };
  stats(): Promise<FixtureStats>;
  /** From now on: responses held back `delayMs`; feeds sent with `Cache-Control: max-age` when `maxAgeSeconds` is set. */
  configure(settings: { delayMs?: number; maxAgeSeconds?: number | null }): Promise<void>;
  close(): Promise<void>;
}

export function hostName(index: number, hosts: number): string {
  return `h${index % hosts}.bench.test`;
}

function feedPath(feed: Pick<GeneratedFeed, "index" | "format">): string {
  return `/feeds/${feed.index}.${feed.format === "json" ? "json" : "xml"}`;
}

/** An undici dispatcher that resolves every name to 127.0.0.1 through the guarded lookup (private networks allowed). */
export function loopbackDispatcher(connections = 8) {
  return createGuardedAgent({
    allowPrivateNetworks: true,
    connections,
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
  });
}

/** Starts the fixture in a child process and waits until it listens. */
export async function startFeedFixture(options: FixtureOptions = {}): Promise<FeedFixture> {
  const settings = {
    feeds: options.feeds ?? 1000,
    hosts: options.hosts ?? 100,
    delayMs: options.delayMs ?? 200,
    homePages: options.homePages ?? false,
    blogrolls: options.blogrolls ?? false,
  };
  const child = fork(new URL(import.meta.url), ["--fixture-child", JSON.stringify(settings)], {
    execArgv: import.meta.url.endsWith(".ts") ? ["--import", "tsx"] : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await nextMessage<{ port: number; feeds: Array<{ format: string; bytes: number; items: number }> }>(
    child,
  );
  return {
    port: ready.port,
    urlOf: (index) => {
      const format = ready.feeds[index].format;
      return `http://${hostName(index, settings.hosts)}:${ready.port}${feedPath({ index, format: format as GeneratedFeed["format"] })}`;
    },
    describe: (index) => ready.feeds[index],
    stats: async () => {
      child.send("stats");
      return nextMessage<FixtureStats>(child);
    },
    configure: async (changes) => {
      child.send({ configure: changes });
      await nextMessage<string>(child);
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send("close");
      await exited;
    },
  };
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`fixture server exited (${code})`));
    child.once("exit", onExit);
    child.once("message", (message) => {
      child.off("exit", onExit);
      resolve(message as T);
    });
  });
}

interface Served {
  contentType: string;
  /** Uncompressed length; the body itself is kept gzipped only (10 000 feeds are 1 GB uncompressed). */
  length: number;
  gzip: Buffer;
  etag: string;
  lastModified: string;
}

function kindOf(path: string): RequestKind {
  if (path.startsWith("/feeds/")) return "feed";
  if (/^\/blog\d+\/$/.test(path)) return "home page";
  if (/^\/blog\d+\/blogroll\.opml$/.test(path)) return "blogroll";
  if (path === "/.well-known/recommendations.opml") return "well-known";
  return path === "/favicon.ico" ? "favicon" : "other";
}

/** The child process: listen, generate, serve, report. */
async function runChild(settings: Required<FixtureOptions>): Promise<void> {
  const now = new Date();
  const lastModified = new Date(now.getTime() - 60_000).toUTCString();
  const served = new Map<string, Served>();
  const described: Array<{ format: string; bytes: number; items: number }> = [];
  const serve = (path: string, contentType: string, text: string) => {
    const body = Buffer.from(text);
    const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
    // Compressed up front: gzip during the run would take CPU from the process being measured.
    served.set(path, { contentType, length: body.length, gzip: gzipSync(body), etag, lastModified });
    return body.length;
  };

  const stats: FixtureStats = { requests: 0, byStatus: {}, byKind: {}, bytesSent: 0, feedBytes: 0 };
  const sockets = new Set<Socket>();
  let closedSocketBytes = 0;

  const respond = (request: IncomingMessage, response: ServerResponse) => {
    stats.requests++;
    const kind = kindOf(request.url ?? "");
    stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
    const entry = served.get(request.url ?? "");
    const finish = (status: number) => (stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1);
    if (!entry) {
      finish(404);
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const validators = {
      etag: entry.etag,
      "last-modified": entry.lastModified,
      ...(maxAgeSeconds !== null && kind === "feed" ? { "cache-control": `max-age=${maxAgeSeconds}` } : {}),
    };
    if (
      request.headers["if-none-match"] === entry.etag ||
      (!request.headers["if-none-match"] && request.headers["if-modified-since"] === entry.lastModified)
    ) {
      finish(304);
      response.writeHead(304, validators).end();
      return;
    }
    const gzip = /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
    const body = gzip ? entry.gzip : gunzipSync(entry.gzip);
    finish(200);
    if (kind === "feed") stats.feedBytes += entry.length;
    response.writeHead(200, {
      "content-type": entry.contentType,
      "content-length": body.length,
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      ...validators,
    });
    response.end(body);
  };

  let delayMs = settings.delayMs;
  let maxAgeSeconds: number | null = null;
  const server = createServer((request, response) => {
    if (delayMs > 0) setTimeout(() => respond(request, response), delayMs);
    else respond(request, response);
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      closedSocketBytes += socket.bytesWritten;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  for (let index = 0; index < settings.feeds; index++) {
    const host = hostName(index, settings.hosts);
    const site = settings.homePages ? `http://${host}:${port}/blog${index}/` : undefined;
    const feed = generateFeed(index, host, now, { url: site, images: !settings.homePages });
    const bytes = serve(feedPath(feed), feed.contentType, feed.body);
    described.push({ format: feed.format, bytes, items: feed.items });
    const announces = settings.blogrolls && index % 2 === 1;
    if (site)
      serve(
        `/blog${index}/`,
        "text/html; charset=utf-8",
        generateHomePage(index, site, index % 2 === 0, announces ? `${site}blogroll.opml` : undefined),
      );
  }
  if (settings.blogrolls) {
    // Each announcing blog recommends the 20 blogs after it: every blog is recommended by up to 10 announcing ones.
    for (let index = 1; index < settings.feeds; index += 2) {
      const outlines = Array.from({ length: 20 }, (_, step) => {
        const other = (index + step + 1) % settings.feeds;
        const host = hostName(other, settings.hosts);
        const url = `http://${host}:${port}${feedPath({ index: other, format: described[other].format as GeneratedFeed["format"] })}`;
        return `<outline type="rss" text="Blog number ${other}" xmlUrl="${url}" htmlUrl="http://${host}:${port}/blog${other}/"/>`;
      });
      serve(
        `/blog${index}/blogroll.opml`,
        "text/x-opml",
        `<?xml version="1.0"?><opml version="2.0"><head><title>Blogroll of ${index}</title></head><body>${outlines.join("")}</body></opml>`,
      );
    }
  }

  process.on("message", (message) => {
    if (message === "stats") {
      let open = 0;
      for (const socket of sockets) open += socket.bytesWritten;
      process.send!({ ...stats, bytesSent: closedSocketBytes + open });
    } else if (typeof message === "object" && message !== null && "configure" in message) {
      const changes = message.configure as { delayMs?: number; maxAgeSeconds?: number | null };
      if (changes.delayMs !== undefined) delayMs = changes.delayMs;
      if (changes.maxAgeSeconds !== undefined) maxAgeSeconds = changes.maxAgeSeconds;
      process.send!("configured");
    } else if (message === "close") {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ port, feeds: described });
}

if (process.argv[2] === "--fixture-child") {
  void runChild(JSON.parse(process.argv[3]) as Required<FixtureOptions>);
}
