import { isIP } from "node:net";
import { request, type Dispatcher } from "undici";
import { packageJson } from "../package-root.js";
import { blockedAddressMessage, isBlockedAddress } from "./address-policy.js";
import type { ContentCoding } from "./content-coding.js";
import { FetchError, toFetchError, type AbortState } from "./errors.js";
import { createGuardedAgent } from "./guarded-agent.js";
import { readBody, type PartialRead } from "./read-body.js";
import { parseRetryAfter } from "./retry-after.js";

export { FetchError, type FetchErrorCode } from "./errors.js";

/**
 * Names the software, its version and what it does, as polite crawlers do, and where to learn
 * about it when the package names a homepage: a site owner who sees it in their log can find us.
 */
export function userAgentOf(manifest: { name: string; version: string; homepage?: string }): string {
  return `${manifest.name}/${manifest.version} (blogroll aggregator${manifest.homepage ? `; +${manifest.homepage}` : ""})`;
}

export const USER_AGENT = userAgentOf(packageJson);

/** Feed types first; generic XML/JSON a little lower so a negotiating server picks the feed; HTML for discovery. */
export const FEED_ACCEPT =
  "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5";

export interface FetchOptions {
  /** Milliseconds for the whole exchange: connect, every redirect hop, headers and body (waits for a `hostGate` slot excepted). */
  timeout: number;
  /** Largest body accepted, counted after decompression. */
  maxBodySize: number;
  /** When false, loopback, private, link-local and other reserved addresses are refused. */
  allowPrivateNetworks: boolean;
  /** Sent as If-None-Match. */
  etag?: string | null;
  /** Sent as If-Modified-Since. */
  lastModified?: string | null;
  /** Accept header; FEED_ACCEPT by default. */
  accept?: string;
  /**
   * Read only the start of the body (a page's head, say): at most
   * `maxBodySize` bytes, cut there rather than refused, and no further than
   * the first of `stopAt`. The rest of the body is never read.
   */
  partial?: PartialRead;
  /**
   * Whether a compressed body of this Content-Type is left compressed, for a
   * reader that decodes it elsewhere (decodeBody in a parse worker): see
   * readBody's `leaveEncoded`. Never with `partial`.
   */
  leaveEncoded?: (contentType: string | null) => boolean;
  /** Hops followed before giving up; 5 by default. */
  maxRedirects?: number;
  /** Ask https addresses only, redirects included (WebFinger never falls back to http). */
  httpsOnly?: boolean;
  /** External abort (scheduler stop). */
  signal?: AbortSignal;
  /**
   * Runs each hop (request and body read) when the hop's host has a free
   * slot, e.g. `HostLimiter.run`: a redirect to another host then waits for
   * that host's slot, so the per-host limit holds wherever redirects lead.
   * Time spent waiting for a slot does not count against `timeout`.
   */
  hostGate?: <T>(host: string, task: () => Promise<T>) => Promise<T>;
  /**
   * Overrides the shared guarded agent (tests, benchmarks). IP literals are
   * still checked here, but host names are only checked if this dispatcher
   * resolves them through the guard (see createGuardedAgent).
   */
  dispatcher?: Dispatcher;
}

export interface FetchResult {
  /** Final URL after redirects. */
  url: string;
  /** Final status; any status is returned, the caller decides. */
  status: number;
  /** True on 304 (the body is then empty). */
  notModified: boolean;
  /** Target of a chain made only of 301/308 hops, else null. */
  permanentRedirect: string | null;
  redirects: Array<{ from: string; to: string; status: number }>;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
  /** From Retry-After, clamped to [now, now + 1 day]. */
  retryAfter: Date | null;
  /** Content-Location as sent (a feed's base for relative URLs, see parseFeed). */
  contentLocation: string | null;
  /** Content-Language as sent (a feed's language when it declares none). */
  contentLanguage: string | null;
  /** The Link header(s), joined with ", " when repeated; null when absent. */
  link: string | null;
  /** Headers saying how long the response stays fresh (the schedule reads them as floors). */
  caching: { cacheControl: string | null; expires: string | null; date: string | null };
  /** The body, decompressed unless `encoding` says otherwise. */
  body: Uint8Array;
  /** Set when the body was left compressed (`leaveEncoded`): the codings still to undo, in order. */
  encoding?: ContentCoding[];
  /** Bytes of the final body on the wire (before decompression). */
  bytesReceived: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PERMANENT = new Set([301, 308]);

// One agent per policy, shared by every caller so connections are pooled.
const sharedAgents = new Map<boolean, Dispatcher>();
/** The shared guarded agent of a private-network policy (every outbound request goes through one). */
export function agentFor(allowPrivateNetworks: boolean): Dispatcher {
  let agent = sharedAgents.get(allowPrivateNetworks);
  if (!agent) {
    agent = createGuardedAgent({ allowPrivateNetworks, connections: 8 });
    sharedAgents.set(allowPrivateNetworks, agent);
  }
  return agent;
}

/**
 * Checks scheme and credentials and, for IP literals (which never reach the
 * guarded lookup), the address itself. The WHATWG parser has already turned
 * odd spellings such as 127.1, 2130706433 or 0x7f000001 into 127.0.0.1.
 */
export function checkUrl(url: URL, allowPrivateNetworks: boolean): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchError("bad_url", `unsupported address scheme ${url.protocol}`);
  }
  if (url.username || url.password) throw new FetchError("bad_url", "addresses with credentials are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivateNetworks && isIP(host) && isBlockedAddress(host)) {
    throw new FetchError("blocked_address", blockedAddressMessage(url.hostname));
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** A header that may be repeated (Link, Cache-Control), as one comma-separated value. */
function joinedHeader(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") || null : (value ?? null);
}

function requestHeaders(options: FetchOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": USER_AGENT,
    accept: options.accept ?? FEED_ACCEPT,
    "accept-encoding": "gzip, deflate, br",
  };
  if (options.etag) headers["if-none-match"] = options.etag;
  if (options.lastModified) headers["if-modified-since"] = options.lastModified;
  return headers;
}

/** Discards a body nobody reads; a short one is read out so the connection can be reused. */
async function drain(response: Dispatcher.ResponseData): Promise<void> {
  await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/** The next URL of a redirect, refusing loops and chains longer than the limit. */
function nextHop(url: URL, location: string, redirects: FetchResult["redirects"], maxRedirects: number): URL {
  if (redirects.length >= maxRedirects)
    throw new FetchError("too_many_redirects", `more than ${maxRedirects} redirects`);
  let next: URL;
  try {
    next = new URL(location, url);
  } catch {
    throw new FetchError("bad_url", "the server redirected to an invalid address");
  }
  if (next.href === url.href || redirects.some((hop) => hop.from === next.href)) {
    throw new FetchError("too_many_redirects", "redirect loop");
  }
  return next;
}

/** The URL of an outbound request, or a FetchError ("bad_url") when the text is not one. */
export function outboundUrl(input: string): URL {
  try {
    return new URL(input);
  } catch {
    throw new FetchError("bad_url", "not a valid address");
  }
}

/**
 * The one outbound request function: GET with a deadline covering the whole
 * exchange, manual redirects (each hop re-checked), conditional headers,
 * decompression under a size cap and the private-network guard. Any HTTP
 * status is returned; transport problems throw FetchError.
 */
export async function fetchUrl(input: string, options: FetchOptions): Promise<FetchResult> {
  let url = outboundUrl(input);
  const controller = new AbortController();
  const state: AbortState = { timedOut: false, aborted: false };
  const deadline = new Deadline(options.timeout, () => {
    state.timedOut = true;
    controller.abort();
  });
  const onAbort = () => {
    state.aborted = true;
    controller.abort();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const dispatcher = options.dispatcher ?? agentFor(options.allowPrivateNetworks);
  const gate = options.hostGate ?? ((_host, task) => task());
  const maxRedirects = options.maxRedirects ?? 5;
  const headers = requestHeaders(options);
  const redirects: FetchResult["redirects"] = [];

  /** One request; a redirect gives the next URL, anything else the result. */
  const hop = async (): Promise<URL | FetchResult> => {
    checkUrl(url, options.allowPrivateNetworks);
    if (options.httpsOnly && url.protocol !== "https:")
      throw new FetchError("bad_url", "only https addresses are asked");
    let response: Dispatcher.ResponseData;
    try {
      // undici's request() never follows redirects itself: each hop comes back here to be checked.
      response = await request(url, { method: "GET", headers, dispatcher, signal: controller.signal });
    } catch (error) {
      throw toFetchError(error, url.hostname, state);
    }
    const status = response.statusCode;
    const location = header(response.headers, "location");
    if (REDIRECTS.has(status) && location) {
      await drain(response);
      const next = nextHop(url, location, redirects, maxRedirects);
      redirects.push({ from: url.href, to: next.href, status });
      return next;
    }
    const common = {
      url: url.href,
      status,
      permanentRedirect: redirects.length > 0 && redirects.every((hop) => PERMANENT.has(hop.status)) ? url.href : null,
      redirects,
      contentType: header(response.headers, "content-type"),
      etag: header(response.headers, "etag"),
      lastModified: header(response.headers, "last-modified"),
      retryAfter: parseRetryAfter(header(response.headers, "retry-after")),
      contentLocation: header(response.headers, "content-location"),
      contentLanguage: header(response.headers, "content-language"),
      link: joinedHeader(response.headers, "link"),
      caching: {
        cacheControl: joinedHeader(response.headers, "cache-control"),
        expires: header(response.headers, "expires"),
        date: header(response.headers, "date"),
      },
    };
    if (status === 304) {
      await drain(response);
      return { ...common, notModified: true, body: new Uint8Array(0), bytesReceived: 0 };
    }
    try {
      const { bytes, wire, encoding } = await readBody(
        response.body,
        header(response.headers, "content-encoding"),
        options.maxBodySize,
        options.partial,
        options.leaveEncoded?.(common.contentType) ?? false,
      );
      return {
        ...common,
        notModified: false,
        body: bytes,
        bytesReceived: wire,
        ...(encoding.length > 0 ? { encoding } : {}),
      };
    } catch (error) {
      throw toFetchError(error, url.hostname, state);
    }
  };

  try {
    for (;;) {
      const outcome = await gate(url.hostname.toLowerCase(), async () => {
        deadline.resume();
        try {
          return await hop();
        } finally {
          deadline.pause();
        }
      });
      if (!(outcome instanceof URL)) return outcome;
      url = outcome;
    }
  } finally {
    deadline.pause();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** A time budget that runs only while resumed (a hop in progress), and fires once when spent. */
class Deadline {
  private timer: NodeJS.Timeout | null = null;
  private resumedAt = 0;

  constructor(
    private remaining: number,
    private readonly onExpire: () => void,
  ) {}

  resume(): void {
    if (this.timer) return;
    this.resumedAt = Date.now();
    this.timer = setTimeout(this.onExpire, Math.max(0, this.remaining));
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.remaining -= Date.now() - this.resumedAt;
  }
}
