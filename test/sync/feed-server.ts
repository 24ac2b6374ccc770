/**
 * A feed server for the sync tests: one handler table served on one or more
 * loopback addresses (127.0.0.1, 127.0.0.2, ... are all loopback on Linux),
 * counting requests in flight per Host and in total.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface FeedServer {
  /** Base URL per address, e.g. http://127.0.0.2:40123 */
  origins: string[];
  /** Serves `path` (pathname + search) with `handler` on every address. */
  route(path: string, handler: Handler): void;
  /** Requests received per path. */
  hits(path: string): number;
  /** The latest request headers seen for a path. */
  lastHeaders(path: string): IncomingMessage["headers"] | undefined;
  /** Highest number of requests in flight at once, per host name and in total. */
  peak: { total: number; perHost: Map<string, number> };
  /** Requests the client gave up on before the response ended. */
  clientAborts: number;
  close(): Promise<void>;
}

export async function startFeedServer(addresses: string[] = ["127.0.0.1"]): Promise<FeedServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const headers = new Map<string, IncomingMessage["headers"]>();
  const inFlight = new Map<string, number>();
  let total = 0;
  const state: FeedServer = {
    origins: [],
    route: (path, handler) => void routes.set(path, handler),
    hits: (path) => hits.get(path) ?? 0,
    lastHeaders: (path) => headers.get(path),
    peak: { total: 0, perHost: new Map() },
    clientAborts: 0,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const host = (request.headers.host ?? "").replace(/:\d+$/, "");
    const path = request.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    headers.set(path, request.headers);
    total++;
    inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
    state.peak.total = Math.max(state.peak.total, total);
    state.peak.perHost.set(host, Math.max(state.peak.perHost.get(host) ?? 0, inFlight.get(host)!));
    response.on("close", () => {
      total--;
      inFlight.set(host, inFlight.get(host)! - 1);
      if (!response.writableFinished) state.clientAborts++;
    });
    const handler = routes.get(path);
    if (!handler) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    Promise.resolve(handler(request, response)).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  };

  const servers: Server[] = [];
  let port = 0;
  for (const address of addresses) {
    const server = createServer(handle);
    // Same port on every address, so a URL differs only by its host.
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, address, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    servers.push(server);
    state.origins.push(`http://${address}:${port}`);
  }
  return state;
}

export interface TestItem {
  guid: string;
  title?: string;
  published?: Date | null;
}

/** A small RSS 2.0 document. It has a channel image unless `image: null` (then sync looks for a site icon at `link`). */
export function rss(items: TestItem[], channel: { title?: string; link?: string; image?: string | null } = {}): string {
  const entries = items
    .map(
      (item) =>
        `<item><guid isPermaLink="false">${item.guid}</guid><title>${item.title ?? item.guid}</title>` +
        `<link>https://example.org/${item.guid}</link>` +
        (item.published ? `<pubDate>${item.published.toUTCString()}</pubDate>` : "") +
        `<description>Text of ${item.guid}</description></item>`,
    )
    .join("");
  const imageUrl = channel.image === undefined ? "https://example.org/logo.png" : channel.image;
  const image = imageUrl
    ? `<image><url>${imageUrl}</url><title>i</title><link>${channel.link ?? "https://example.org/"}</link></image>`
    : "";
  return (
    `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>${channel.title ?? "Test feed"}</title>` +
    `<link>${channel.link ?? "https://example.org/"}</link><description>A test feed</description>${image}${entries}</channel></rss>`
  );
}

/** Serves `body` as RSS with an ETag, answering 304 to a matching If-None-Match. */
export function conditionalFeed(body: () => string, etag: () => string = () => '"v1"'): Handler {
  return (request, response) => {
    if (request.headers["if-none-match"] === etag()) {
      response.writeHead(304, { etag: etag() }).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8", etag: etag() }).end(body());
  };
}
