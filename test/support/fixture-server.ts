/**
 * A local HTTP server for tests that fetch things: routes by path, ready-made
 * responders (static bodies, compression, redirects, validators, delays,
 * trickling bodies) and counters of what reached it (requests per path,
 * TCP connections, simultaneous requests and connections per Host header).
 *
 * It listens on 127.0.0.1 (or another loopback address) on an ephemeral
 * port. Other 127.x addresses are loopback too on Linux, so two servers on
 * 127.0.0.1 and 127.0.0.2 can stand in for two different hosts.
 *
 *   const server = await startFixtureServer();
 *   server.route("/feed.xml", respond.conditional(rss, { etag: '"v1"' }));
 *   server.route("/old", respond.redirect("/feed.xml", 301));
 *   await fetchUrl(`${server.url}/old`, ...);
 *   assert.equal(server.hits("/feed.xml"), 1);
 *   await server.close();
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import zlib from "node:zlib";

export type FixtureHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface FixtureServerOptions {
  /** Loopback address to listen on; 127.0.0.1 by default. */
  address?: string;
  /** Port to listen on; 0 (ephemeral) by default. */
  port?: number;
  /** Serve https with this key and certificate (test/support/tls.ts has a loopback pair). */
  tls?: { key: string; cert: string };
}

/** Per Host header (the name without its port) counts of what is open now and the most seen at once. */
export interface HostCounts {
  /** Requests being answered now. */
  active: number;
  /** Most requests answered at the same time. */
  peak: number;
  /** TCP connections open now that carried a request for this host. */
  connections: number;
  /** Most such connections open at the same time. */
  peakConnections: number;
}

export interface ConnectionStats {
  /** TCP connections accepted since the start (or the last reset). */
  total: number;
  /** TCP connections open now. */
  open: number;
  /** Counts per Host header name. */
  perHost: Map<string, HostCounts>;
}

export interface FixtureServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  port: number;
  /** Serves `path` with `handler`. An exact match on path + query wins over a match on the path alone. */
  route(path: string, handler: FixtureHandler): void;
  /** Requests received for a path (path + query as sent, or the bare path). */
  hits(path: string): number;
  /** Headers of the latest request for a path. */
  lastHeaders(path: string): IncomingHttpHeaders | undefined;
  connections: ConnectionStats;
  /** Counts for one host name (zeros when it was never seen). */
  host(name: string): HostCounts;
  /** Requests whose response the client dropped before it ended. */
  clientAborts(): number;
  /** Forgets hits, headers and counters (routes stay). */
  reset(): void;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

const zeroCounts = (): HostCounts => ({ active: 0, peak: 0, connections: 0, peakConnections: 0 });

/**
 * Starts a fixture server. `fallback` answers requests no route matches
 * (404 "not found" by default).
 */
export async function startFixtureServer(
  fallback?: FixtureHandler,
  options: FixtureServerOptions = {},
): Promise<FixtureServer> {
  const routes = new Map<string, FixtureHandler>();
  const hits = new Map<string, number>();
  const headers = new Map<string, IncomingHttpHeaders>();
  const connections: ConnectionStats = { total: 0, open: 0, perHost: new Map() };
  const socketHosts = new WeakMap<Socket, Set<string>>();
  let aborted = 0;

  const countsFor = (name: string) => {
    let counts = connections.perHost.get(name);
    if (!counts) {
      counts = zeroCounts();
      connections.perHost.set(name, counts);
    }
    return counts;
  };

  const listener: RequestListener = (request, response) => {
    const hostName = (request.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
    const counts = countsFor(hostName);
    counts.active++;
    counts.peak = Math.max(counts.peak, counts.active);
    const seen = socketHosts.get(request.socket);
    if (seen && !seen.has(hostName)) {
      seen.add(hostName);
      counts.connections++;
      counts.peakConnections = Math.max(counts.peakConnections, counts.connections);
    }
    response.on("close", () => {
      counts.active--;
      if (!response.writableFinished) aborted++;
    });

    const full = request.url ?? "/";
    const bare = full.split("?")[0];
    for (const key of new Set([full, bare])) {
      hits.set(key, (hits.get(key) ?? 0) + 1);
      headers.set(key, request.headers);
    }
    const handler = routes.get(full) ?? routes.get(bare) ?? fallback ?? respond.text("not found", { status: 404 });
    Promise.resolve()
      .then(() => handler(request, response))
      .catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" }).end(String(error));
        else response.destroy();
      });
  };
  const server: Server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);

  // Over TLS, requests arrive on the TLS socket, which the secure connection event hands over.
  server.on(options.tls ? "secureConnection" : "connection", (socket: Socket) => {
    connections.total++;
    connections.open++;
    const seen = new Set<string>();
    socketHosts.set(socket, seen);
    socket.on("close", () => {
      connections.open--;
      for (const name of seen) countsFor(name).connections--;
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.address ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const hostPart = address.includes(":") ? `[${address}]` : address;

  return {
    url: `${options.tls ? "https" : "http"}://${hostPart}:${port}`,
    port,
    route: (path, handler) => void routes.set(path, handler),
    hits: (path) => hits.get(path) ?? 0,
    lastHeaders: (path) => headers.get(path),
    connections,
    host: (name) => connections.perHost.get(name.toLowerCase()) ?? zeroCounts(),
    clientAborts: () => aborted,
    reset() {
      hits.clear();
      headers.clear();
      connections.total = 0;
      for (const counts of connections.perHost.values()) {
        counts.peak = counts.active;
        counts.peakConnections = counts.connections;
      }
      aborted = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ResponseInit {
  status?: number;
  headers?: Record<string, string | number>;
}

export type Encoding = "gzip" | "deflate" | "br";

/** Compresses `body` as a Content-Encoding would. */
export function compress(body: string | Uint8Array, encoding: Encoding): Buffer {
  if (encoding === "gzip") return zlib.gzipSync(body);
  if (encoding === "deflate") return zlib.deflateSync(body);
  return zlib.brotliCompressSync(body);
}

/** True when a request's validators match: If-None-Match against `etag`, else If-Modified-Since against `lastModified`. */
export function validatorsMatch(request: IncomingMessage, etag?: string, lastModified?: string): boolean {
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch !== undefined) {
    if (!etag) return false;
    const bare = (tag: string) => tag.trim().replace(/^W\//, "");
    return ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => bare(tag) === bare(etag));
  }
  const ifModifiedSince = request.headers["if-modified-since"];
  if (ifModifiedSince && lastModified) {
    const since = Date.parse(ifModifiedSince);
    return !Number.isNaN(since) && Date.parse(lastModified) <= since;
  }
  return false;
}

/** Ready-made handlers for common fixture responses. */
export const respond = {
  /** A fixed body (string or bytes), 200 unless told otherwise. */
  text(body: string | Uint8Array, init: ResponseInit = {}): FixtureHandler {
    return (_request, response) => {
      response
        .writeHead(init.status ?? 200, { "content-type": "text/plain; charset=utf-8", ...init.headers })
        .end(body);
    };
  },

  /** A body sent compressed with Content-Encoding `encoding` (compressed once, up front). */
  compressed(body: string | Uint8Array, encoding: Encoding, init: ResponseInit = {}): FixtureHandler {
    const bytes = compress(body, encoding);
    return (_request, response) => {
      response
        .writeHead(init.status ?? 200, {
          "content-type": "text/plain; charset=utf-8",
          ...init.headers,
          "content-encoding": encoding,
        })
        .end(bytes);
    };
  },

  /** A redirect to `location` (absolute or relative, sent as given). */
  redirect(location: string, status = 302): FixtureHandler {
    return (_request, response) => void response.writeHead(status, { location }).end();
  },

  /** A body with validators, answering 304 (no body) when the request's validators match. */
  conditional(
    body: string | Uint8Array | (() => string | Uint8Array),
    validators: { etag?: string; lastModified?: string } & ResponseInit,
  ): FixtureHandler {
    const { etag, lastModified, status, headers: extra } = validators;
    const headers: Record<string, string | number> = { ...extra };
    if (etag) headers.etag = etag;
    if (lastModified) headers["last-modified"] = lastModified;
    return (request, response) => {
      if (validatorsMatch(request, etag, lastModified)) return void response.writeHead(304, headers).end();
      response
        .writeHead(status ?? 200, { "content-type": "application/xml; charset=utf-8", ...headers })
        .end(typeof body === "function" ? body() : body);
    };
  },

  /** Waits `ms` before handing over to `handler` (nothing is sent meanwhile; a closed request is not answered). */
  delayed(ms: number, handler: FixtureHandler): FixtureHandler {
    return (request, response) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(handler(request, response)), ms);
        response.on("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
  },

  /** Sends headers at once, then one `chunk` every `intervalMs` until the client goes away (or `count` chunks, then ends). */
  trickle(
    chunk: string | Uint8Array,
    intervalMs: number,
    init: ResponseInit & { count?: number } = {},
  ): FixtureHandler {
    return (_request, response) => {
      response.writeHead(init.status ?? 200, { "content-type": "text/xml", ...init.headers });
      response.flushHeaders();
      let sent = 0;
      const timer = setInterval(() => {
        if (init.count !== undefined && sent >= init.count) {
          clearInterval(timer);
          response.end();
          return;
        }
        sent++;
        response.write(chunk);
      }, intervalMs);
      response.on("close", () => clearInterval(timer));
    };
  },
};
