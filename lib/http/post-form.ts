import { request, type Dispatcher } from "undici";
import { FetchError, toFetchError, type AbortState } from "./errors.js";
import { agentFor, checkUrl, outboundUrl, USER_AGENT } from "./fetch.js";
import { readBody } from "./read-body.js";

export interface PostFormOptions {
  /** Milliseconds for the whole exchange, every redirect hop included. */
  timeout: number;
  allowPrivateNetworks: boolean;
  /** Bytes of the answer kept (the rest is not read); 16 KiB by default. */
  maxAnswer?: number;
  /** Hops followed (307/308 only) before giving up; 5 by default. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Overrides the shared guarded agent (tests, benchmarks). */
  dispatcher?: Dispatcher;
}

export interface PostFormResult {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  /** True when every hop was a 308: the first URL has moved for good to `url`. */
  movedPermanently: boolean;
  /** The start of the answer's body as text (at most `maxAnswer` bytes). */
  text: string;
}

/** Statuses after which a POST is repeated, body and method unchanged, at the new address (RFC 9110 15.4.8, 15.4.9). */
const REPEAT = new Set([307, 308]);

/**
 * POSTs an application/x-www-form-urlencoded body (WebSub subscription
 * requests, rssCloud registrations) under the same rules as every other
 * outbound request: the private-network guard on each hop, one deadline,
 * a cap on what is read of the answer. 307 and 308 are followed with the
 * same body, never from https to http; any other status, a 301/302/303
 * included, is returned.
 */
export async function postForm(
  input: string,
  fields: Record<string, string>,
  options: PostFormOptions,
): Promise<PostFormResult> {
  let url = outboundUrl(input);
  // The deadline covers every hop; an outside stop (options.signal) ends the exchange too.
  const deadline = AbortSignal.timeout(options.timeout);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const state = (): AbortState => ({ timedOut: deadline.aborted, aborted: options.signal?.aborted ?? false });
  const body = new URLSearchParams(fields).toString();
  const dispatcher = options.dispatcher ?? agentFor(options.allowPrivateNetworks);
  const maxRedirects = options.maxRedirects ?? 5;
  let hops = 0;
  let permanent = true;
  for (;;) {
    checkUrl(url, options.allowPrivateNetworks);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": USER_AGENT, accept: "*/*" },
        dispatcher,
        signal,
      });
    } catch (error) {
      throw toFetchError(error, url.hostname, state());
    }
    const location = response.headers.location;
    if (REPEAT.has(response.statusCode) && typeof location === "string") {
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (++hops > maxRedirects) throw new FetchError("too_many_redirects", `more than ${maxRedirects} redirects`);
      permanent &&= response.statusCode === 308;
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchError("bad_url", "the server redirected to an invalid address");
      }
      // A body sent over TLS (a WebSub secret) is never sent again in clear text.
      if (url.protocol === "https:" && next.protocol === "http:")
        throw new FetchError("bad_url", "the server redirected from https to plain http");
      url = next;
      continue;
    }
    let text: string;
    try {
      const encoding = response.headers["content-encoding"];
      const answer = await readBody(
        response.body,
        typeof encoding === "string" ? encoding : null,
        options.maxAnswer ?? 16 * 1024,
        { stopAt: [] },
      );
      text = Buffer.from(answer.bytes).toString("utf8");
    } catch (error) {
      throw toFetchError(error, url.hostname, state());
    }
    return { status: response.statusCode, url: url.href, movedPermanently: hops > 0 && permanent, text };
  }
}
