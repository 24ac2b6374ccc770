import { isIP } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { request, type Dispatcher } from "undici";
import { packageJson } from "../package-root.js";
import { isBlockedAddress } from "./address-policy.js";
import { BlockedAddressError, createGuardedAgent } from "./guarded-agent.js";
import { parseRetryAfter } from "./retry-after.js";

/** Names the software, its version and where to learn about it, as polite crawlers do. */
export const USER_AGENT = `indiekit-endpoint-blogroll/${packageJson.version} (+https://github.com/getindiekit/indiekit; blogroll aggregator)`;

export const FEED_ACCEPT =
  "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5";

export interface FetchOptions {
  /** Milliseconds for the whole exchange: every hop, headers and body. */
  timeout: number;
  /** Largest body accepted, counted after decompression. */
  maxBodySize: number;
  allowPrivateNetworks: boolean;
  etag?: string | null;
  lastModified?: string | null;
  accept?: string;
  maxRedirects?: number;
  /** External abort (scheduler stop). */
  signal?: AbortSignal;
  /** Overrides the shared guarded agent (tests, benchmarks). */
  dispatcher?: Dispatcher;
}

export interface FetchResult {
  url: string;
  status: number;
  notModified: boolean;
  /** Target of a chain made only of 301/308 hops, else null. */
  permanentRedirect: string | null;
  redirects: Array<{ from: string; to: string; status: number }>;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
  retryAfter: Date | null;
  body: Uint8Array;
  /** Bytes on the wire (before decompression). */
  bytesReceived: number;
}

export type FetchErrorCode = "timeout" | "too_large" | "blocked_address" | "bad_url" | "too_many_redirects" | "network" | "aborted";

/** The one error outbound requests throw; its message is short, human and never names a resolved address. */
export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "FetchError";
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PERMANENT = new Set([301, 308]);

const sharedAgents = new Map<boolean, Dispatcher>();
function agentFor(allowPrivateNetworks: boolean): Dispatcher {
  let agent = sharedAgents.get(allowPrivateNetworks);
  if (!agent) {
    agent = createGuardedAgent({ allowPrivateNetworks, connections: 8 });
    sharedAgents.set(allowPrivateNetworks, agent);
  }
  return agent;
}

/** Checks scheme and, for IP literals (which skip name lookup), the address itself. */
function checkUrl(url: URL, allowPrivateNetworks: boolean): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchError("bad_url", `unsupported address scheme ${url.protocol}`);
  }
  if (url.username || url.password) throw new FetchError("bad_url", "addresses with credentials are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivateNetworks && isIP(host) && isBlockedAddress(host)) {
    throw new FetchError("blocked_address", `address not allowed: ${url.hostname} is on a private or reserved network`);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** Decompresses per Content-Encoding (gzip, deflate, br; stacked codings in reverse order). */
function decoded(body: Readable, encoding: string | null): Readable {
  let stream: Readable = body;
  const codings = (encoding ?? "").toLowerCase().split(",").map((coding) => coding.trim()).filter((coding) => coding && coding !== "identity");
  for (const coding of codings.reverse()) {
    if (coding === "gzip" || coding === "x-gzip") stream = stream.pipe(zlib.createGunzip());
    else if (coding === "deflate") stream = stream.pipe(zlib.createInflate());
    else if (coding === "br") stream = stream.pipe(zlib.createBrotliDecompress());
    else throw new FetchError("network", `unsupported content encoding ${coding}`);
  }
  return stream;
}

/** Reads a body up to the cap; larger answers are aborted, never buffered whole. */
async function readCapped(body: Readable, encoding: string | null, cap: number): Promise<{ bytes: Uint8Array; wire: number }> {
  let wire = 0;
  body.on("data", (chunk: Buffer) => (wire += chunk.length));
  const stream = decoded(body, encoding);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) throw new FetchError("too_large", `response larger than ${cap} bytes`);
      chunks.push(chunk);
    }
  } finally {
    if (size > cap) {
      body.destroy();
      stream.destroy();
    }
  }
  return { bytes: new Uint8Array(Buffer.concat(chunks, size)), wire };
}

function translate(error: unknown, hostname: string, timedOut: () => boolean, aborted: () => boolean): FetchError {
  if (error instanceof FetchError) return error;
  if (timedOut()) return new FetchError("timeout", "the server took too long to answer");
  if (aborted()) return new FetchError("aborted", "the request was stopped");
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 5; depth++) {
    if (cause instanceof BlockedAddressError) return new FetchError("blocked_address", cause.message);
    const code = (cause as { code?: unknown }).code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new FetchError("network", `cannot resolve ${hostname}`);
    if (code === "ECONNREFUSED") return new FetchError("network", `connection to ${hostname} refused`);
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return new FetchError("network", `connection to ${hostname} was reset`);
    if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return new FetchError("timeout", "the server took too long to answer");
    }
    if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH" || code === "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH") {
      return new FetchError("network", "the response was cut short");
    }
    if (typeof code === "string" && code.startsWith("Z_")) return new FetchError("network", "the response could not be decompressed");
    if (typeof code === "string" && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
      return new FetchError("network", `secure connection to ${hostname} failed`);
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return new FetchError("network", `request to ${hostname} failed`);
}

/**
 * The one outbound request function: GET with a deadline covering the whole
 * exchange, manual redirects (each hop re-checked), conditional headers,
 * decompression under a size cap and the private-network guard. Any HTTP
 * status is returned; transport problems throw FetchError.
 */
export async function fetchUrl(input: string, options: FetchOptions): Promise<FetchResult> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchError("bad_url", "not a valid address");
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeout);
  const onAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const dispatcher = options.dispatcher ?? agentFor(options.allowPrivateNetworks);
  const maxRedirects = options.maxRedirects ?? 5;
  const redirects: FetchResult["redirects"] = [];
  let bytesReceived = 0;

  try {
    for (;;) {
      checkUrl(url, options.allowPrivateNetworks);
      const headers: Record<string, string> = {
        "user-agent": USER_AGENT,
        accept: options.accept ?? FEED_ACCEPT,
        "accept-encoding": "gzip, deflate, br",
      };
      if (options.etag) headers["if-none-match"] = options.etag;
      if (options.lastModified) headers["if-modified-since"] = options.lastModified;
      let response: Dispatcher.ResponseData<unknown>;
      try {
        response = await request(url, { method: "GET", headers, dispatcher, signal: controller.signal, maxRedirections: 0 } as Parameters<typeof request>[1]);
      } catch (error) {
        throw translate(error, url.hostname, () => timedOut, () => controller.signal.aborted);
      }
      const status = response.statusCode;
      const location = header(response.headers, "location");
      if (REDIRECTS.has(status) && location) {
        await response.body.dump().catch(() => undefined);
        if (redirects.length >= maxRedirects) throw new FetchError("too_many_redirects", `more than ${maxRedirects} redirects`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchError("bad_url", "the server redirected to an invalid address");
        }
        if (redirects.some((hop) => hop.from === next.href) || next.href === url.href) {
          throw new FetchError("too_many_redirects", "redirect loop");
        }
        redirects.push({ from: url.href, to: next.href, status });
        url = next;
        continue;
      }
      const permanentRedirect = redirects.length > 0 && redirects.every((hop) => PERMANENT.has(hop.status)) ? url.href : null;
      const common = {
        url: url.href,
        status,
        permanentRedirect,
        redirects,
        contentType: header(response.headers, "content-type"),
        etag: header(response.headers, "etag"),
        lastModified: header(response.headers, "last-modified"),
        retryAfter: parseRetryAfter(header(response.headers, "retry-after")),
      };
      if (status === 304) {
        await response.body.dump().catch(() => undefined);
        return { ...common, notModified: true, body: new Uint8Array(0), bytesReceived };
      }
      let read: { bytes: Uint8Array; wire: number };
      try {
        read = await readCapped(response.body, header(response.headers, "content-encoding"), options.maxBodySize);
      } catch (error) {
        response.body.destroy();
        throw translate(error, url.hostname, () => timedOut, () => controller.signal.aborted);
      }
      bytesReceived += read.wire;
      return { ...common, notModified: false, body: read.bytes, bytesReceived };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
