import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import type { BlogrollOptions } from "../options.js";
import type { PushKind, PushSubscription, Storage } from "../storage/types.js";
import { storeItems } from "../sync/store-items.js";
import { eligibleForPush, type NotifiedFetches } from "./notified-fetches.js";
import { printable, type RemoteLog } from "./remote-log.js";
import { FAT_PING_MAX_BYTES, type SenderLimits } from "./sender-limits.js";
import { signatureCheck } from "./signature.js";
import type { SubscriptionKeeper } from "./subscriptions.js";
import { dueAt, REQUESTED_LEASE_SECONDS, UNSUBSCRIBE_WAIT_MS, verificationOpen } from "./timing.js";

/** The answer a callback route gives. */
export interface CallbackAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A notification POST as the route received it. */
export interface Inbound {
  header(name: string): string | undefined;
  /** The body still to be read; null when the host had already read it (Indiekit's body parsers). */
  stream: Readable | null;
  /** What the host parsed from the body, when it did. */
  parsed: unknown;
  /** The sender's address: the client a trusted proxy names, else the socket's peer. */
  address: string;
}

export interface PushCallbacksDeps {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  now: () => Date;
  /** Parses a fat ping's body, which is not used afterwards (the worker pool takes it over). */
  parse: (body: Uint8Array, options: ParseFeedOptions) => Promise<ParsedFeed>;
  keeper: SubscriptionKeeper;
  notified: NotifiedFetches;
  limits: SenderLimits;
  remoteLog: RemoteLog;
}

const NOT_FOUND: CallbackAnswer = { status: 404, body: "Not found" };
/** An unknown or ended callback: WebSub hubs may end a subscription on 410 (Recommendation, section 7). */
const GONE: CallbackAnswer = { status: 410, body: "No such subscription" };
/** An answer given without reading the body: the connection is closed after it, so an unread body costs nothing more. */
const unread = (answer: CallbackAnswer): CallbackAnswer => ({
  ...answer,
  headers: { ...answer.headers, Connection: "close" },
});
/** An rssCloud notification is one short form field. */
const CLOUD_BODY_CAP = 8 * 1024;
/** How long a cloud server's resolved addresses are believed. */
const ADDRESS_TTL_MS = 5 * 60_000;
const MAX_CACHED_HOSTS = 1000;

/** A subscription we ended or the hub refused: its callback is gone (with an ineligible blog, see eligibleForPush). */
function ended(subscription: PushSubscription): boolean {
  return subscription.state === "unsubscribing" || subscription.state === "denied" || subscription.state === "failed";
}

/** Two spellings of one URL (a hub may normalise the topic it echoes). */
function sameUrl(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false;
  if (a === b) return true;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** A query parameter as one string (repeated or nested parameters are not accepted). */
function param(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  return typeof value === "string" ? value : null;
}

/** An address as compared: IPv4-mapped IPv6 as plain IPv4, lower case. */
function plainAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith("::ffff:") && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/**
 * The callbacks hubs and cloud servers call: verification of intent (GET)
 * exactly as the WebSub Recommendation (section 5.3) and rssCloud say, and
 * notifications (POST), checked before they count: a WebSub body counts only
 * when its signature checks (with a secret) and an rssCloud notice only when
 * it comes from the cloud server we registered with and names our feed.
 * Each subscription is its own sender, bounded by SenderLimits; what a
 * verified notice may make us fetch is NotifiedFetches' rule.
 */
export class PushCallbacks {
  private readonly addresses = new Map<string, { addresses: Set<string>; until: number }>();

  constructor(private readonly deps: PushCallbacksDeps) {}

  /** A hub's or cloud server's verification GET. */
  async verify(kind: PushKind, token: string, query: Record<string, unknown>): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== kind) return NOT_FOUND;
    return kind === "websub" ? this.verifyWebSub(storage, subscription, query) : this.verifyCloud(subscription, query);
  }

  /** A WebSub content distribution POST. */
  async receiveWebSub(token: string, inbound: Inbound): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== "websub" || ended(subscription)) return unread(GONE);
    // Past the budget a notice changes nothing: answered before its body is read, unless it may be a fat ping to store.
    const quiet = subscription.state === "active" && this.deps.notified.quiet(subscription.blogId);
    if (quiet && inbound.stream !== null && !this.mayStore(subscription, inbound)) return unread({ status: 202 });
    if (!eligibleForPush(await storage.blogs.get(subscription.blogId))) return unread(GONE);
    // Not verified yet: nothing we asked for is being delivered.
    if (subscription.state !== "active") return unread({ status: 202 });
    if (inbound.stream === null) return this.refuseParsed(storage, subscription, inbound);
    const release = this.deps.limits.take(subscription.id);
    if (!release) return unread({ status: 503, body: "Busy, try again later", headers: { "Retry-After": "30" } });
    try {
      return await this.receiveBody(storage, subscription, inbound, inbound.stream, quiet);
    } finally {
      release();
    }
  }

  /** True when a body sent to this subscription could be a fat ping we would parse: signed, not empty, small enough, within the rate. */
  private mayStore(subscription: PushSubscription, inbound: Inbound): boolean {
    const length = Number(inbound.header("content-length") ?? Number.NaN);
    return (
      subscription.secret !== null &&
      length !== 0 &&
      !(length > FAT_PING_MAX_BYTES) &&
      this.deps.limits.fatPingAvailable(subscription.id)
    );
  }

  /** An rssCloud notification POST: `url` names the feed that changed. */
  async receiveCloud(token: string, inbound: Inbound): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== "rsscloud" || ended(subscription)) return unread(GONE);
    if (!eligibleForPush(await storage.blogs.get(subscription.blogId))) return unread(GONE);
    if (subscription.state !== "active") return unread({ status: 200, body: "ignored" });
    if (!(await this.fromCloudServer(subscription.hub, inbound.address))) {
      this.deps.remoteLog.note(
        subscription.id,
        "address",
        `ignored rssCloud notifications for ${subscription.topic} from ${inbound.address}, not its cloud server`,
      );
      return unread({ status: 403, body: "Not from the cloud server this feed was registered with" });
    }
    // Past the budget a notice from the cloud server changes nothing, whatever feed it names: its body is not read.
    if (this.deps.notified.quiet(subscription.blogId)) return unread({ status: 200, body: "thanks" });
    let url = (inbound.parsed as Record<string, unknown> | undefined)?.url;
    if (inbound.stream) {
      const release = this.deps.limits.take(subscription.id);
      if (!release) return unread({ status: 503, body: "Busy, try again later", headers: { "Retry-After": "30" } });
      try {
        const body = await this.deps.limits.read(inbound.stream, {
          keep: true,
          check: null,
          contentLength: inbound.header("content-length"),
          contentEncoding: undefined,
          cap: CLOUD_BODY_CAP,
        });
        if (body.outcome !== "read")
          return unread({ status: body.outcome === "too-large" ? 413 : 400, body: "Unreadable notification" });
        url = new URLSearchParams(Buffer.from(body.bytes ?? []).toString("utf8")).get("url") ?? undefined;
        body.release();
      } finally {
        release();
      }
    }
    // A feed that is not the one registered here is ignored (2xx: the server did nothing wrong by asking).
    if (!sameUrl(url, subscription.topic)) return { status: 200, body: "ignored" };
    await this.deps.notified.notice(subscription);
    return { status: 200, body: "thanks" };
  }

  /**
   * A body the host parsed before us (Indiekit reads JSON and form bodies
   * for every route): its bytes, and so its signature, are gone, so it is
   * refused and fetches nothing. Such a hub can never be verified here, so
   * its push is not trusted for a while: the blog goes back to its schedule.
   */
  private async refuseParsed(
    storage: Storage,
    subscription: PushSubscription,
    inbound: Inbound,
  ): Promise<CallbackAnswer> {
    const type = inbound.header("content-type") ?? "no content type";
    this.deps.remoteLog.note(
      subscription.id,
      "parsed",
      `refused WebSub notifications for ${subscription.topic}: the host had parsed the body (${type}), so its signature cannot be checked`,
    );
    if (!(subscription.distrustedUntil && subscription.distrustedUntil > this.deps.now())) {
      await this.deps.keeper.distrust(
        storage,
        subscription,
        "The hub sends a content type the host reads before the plugin can check its signature",
      );
    }
    return { status: 415, body: "This content type cannot be verified here" };
  }

  private async receiveBody(
    storage: Storage,
    subscription: PushSubscription,
    inbound: Inbound,
    stream: Readable,
    quiet: boolean,
  ): Promise<CallbackAnswer> {
    const { limits, remoteLog } = this.deps;
    const check = subscription.secret ? signatureCheck(inbound.header("x-hub-signature"), subscription.secret) : null;
    if (subscription.secret && !check) {
      remoteLog.note(
        subscription.id,
        "signature",
        `ignored WebSub notifications for ${subscription.topic} without a valid signature`,
      );
      return unread({ status: 202 });
    }
    // Only a signed body is ever parsed and stored; an http hub's pings (no secret) are thin hints.
    const length = Number(inbound.header("content-length") ?? Number.NaN);
    const keep =
      check !== null && length !== 0 && !(length > FAT_PING_MAX_BYTES) && limits.takeFatPing(subscription.id);
    const body = await limits.read(stream, {
      keep,
      check,
      contentLength: inbound.header("content-length"),
      contentEncoding: inbound.header("content-encoding"),
      // A quiet blog's notice matters only as a fat ping: no more is read than one may hold.
      cap: quiet ? FAT_PING_MAX_BYTES : undefined,
    });
    if (body.outcome !== "read") {
      if (keep) limits.returnFatPing(subscription.id);
      if (quiet && body.outcome === "too-large") return unread({ status: 202 });
      remoteLog.note(
        subscription.id,
        body.outcome,
        `refused WebSub notifications for ${subscription.topic}: ${body.outcome === "too-large" ? "larger than maxBodySize" : body.outcome === "too-slow" ? "not sent within the read deadline" : "unreadable"}`,
      );
      const status = body.outcome === "too-large" ? 413 : body.outcome === "too-slow" ? 408 : 400;
      return unread({ status, body: "Notification not read" });
    }
    try {
      if (check && !check.valid()) {
        if (keep) limits.returnFatPing(subscription.id);
        remoteLog.note(
          subscription.id,
          "signature",
          `ignored WebSub notifications for ${subscription.topic} without a valid signature`,
        );
        return { status: 202 };
      }
      if (body.bytes && body.bytes.length > 0 && (await this.storeFatPing(storage, subscription, inbound, body.bytes)))
        return { status: 200 };
      if (keep) limits.returnFatPing(subscription.id);
      // An empty or thin notification (or one that is not a feed, or one past the fat-ping rate) says only "changed".
      await this.deps.notified.notice(subscription);
      return { status: 202 };
    } finally {
      body.release();
    }
  }

  /** Parses a signed fat ping and stores its posts; false when it holds no posts (it is then a thin hint). */
  private async storeFatPing(
    storage: Storage,
    subscription: PushSubscription,
    inbound: Inbound,
    bytes: Uint8Array,
  ): Promise<boolean> {
    const { options } = this.deps;
    const parsed = await this.deps
      .parse(bytes, {
        url: subscription.topic,
        contentType: inbound.header("content-type") ?? null,
        maxItems: options.maxItemsPerBlog,
      })
      .catch(() => null);
    if (!parsed || parsed.items.length === 0) return false;
    const blog = await storage.blogs.get(subscription.blogId);
    if (!eligibleForPush(blog)) return true;
    const at = this.deps.now();
    await storeItems(storage, blog.id, parsed.items, at, options);
    await storage.push.noteNotified(subscription.id, at);
    return true;
  }

  /** Verification of intent (Recommendation, 5.3.1): the challenge is echoed only for a pending request of ours. */
  private async verifyWebSub(
    storage: Storage,
    subscription: PushSubscription,
    query: Record<string, unknown>,
  ): Promise<CallbackAnswer> {
    const mode = param(query, "hub.mode");
    const challenge = param(query, "hub.challenge");
    // Only for the topic we asked about: anything else is not ours to confirm.
    if (!sameUrl(param(query, "hub.topic"), subscription.topic)) return NOT_FOUND;
    const at = this.deps.now();
    if (mode === "denied") {
      // A hub may deny at any point, even after accepting (5.2).
      if (subscription.state !== "requested" && subscription.state !== "active") return NOT_FOUND;
      const reason = printable(param(query, "hub.reason") ?? "", 200).trim();
      this.deps.remoteLog.note(
        subscription.id,
        "denied",
        `the hub ${subscription.hub} denied the subscription to ${subscription.topic}${reason ? `: ${reason}` : ""}`,
      );
      const denied: PushSubscription = {
        ...subscription,
        state: "denied",
        lastError: reason ? `The hub denied the subscription: ${reason}` : "The hub denied the subscription",
        updatedAt: at,
      };
      await storage.push.put(denied);
      this.deps.keeper.wake(dueAt(denied));
      return { status: 200, body: "" };
    }
    if (!challenge) return NOT_FOUND;
    if (mode === "subscribe") {
      if (!verificationOpen(subscription, at)) return NOT_FOUND;
      // The hub must say how long the lease is (5.3); a missing or unreadable one is not agreed to.
      const granted = param(query, "hub.lease_seconds");
      if (!granted || !/^\d{1,12}$/.test(granted) || Number(granted) === 0) return NOT_FOUND;
      // A longer lease than asked for is believed as the one asked for: renewing early costs one request.
      const leaseSeconds = Math.min(Number(granted), REQUESTED_LEASE_SECONDS);
      const verified: PushSubscription = {
        ...subscription,
        state: "active",
        leaseSeconds,
        expiresAt: new Date(at.getTime() + leaseSeconds * 1000),
        verifiedAt: at,
        lastError: null,
        updatedAt: at,
      };
      await storage.push.put(verified);
      this.deps.keeper.wake(dueAt(verified));
      return { status: 200, body: challenge };
    }
    if (
      mode === "unsubscribe" &&
      subscription.state === "unsubscribing" &&
      at.getTime() - subscription.updatedAt.getTime() <= UNSUBSCRIBE_WAIT_MS
    ) {
      await storage.push.delete(subscription.id);
      return { status: 200, body: challenge };
    }
    return NOT_FOUND;
  }

  /** rssCloud's check: the challenge is echoed only for the feed registered under this callback, while that registration is pending. */
  private verifyCloud(subscription: PushSubscription, query: Record<string, unknown>): CallbackAnswer {
    const challenge = param(query, "challenge");
    if (!challenge || !sameUrl(param(query, "url"), subscription.topic)) return NOT_FOUND;
    if (!verificationOpen(subscription, this.deps.now())) return NOT_FOUND;
    return { status: 200, body: challenge };
  }

  /** True when `address` is one of the cloud server's (its endpoint's host, resolved; kept a few minutes). */
  private async fromCloudServer(endpoint: string, address: string): Promise<boolean> {
    let host: string;
    try {
      host = new URL(endpoint).hostname.replace(/^\[|\]$/g, "");
    } catch {
      return false;
    }
    const now = Date.now();
    let known = this.addresses.get(host);
    if (!known || known.until < now) {
      const resolved = isIP(host)
        ? [host]
        : (await lookup(host, { all: true }).catch(() => [])).map((entry) => entry.address);
      if (this.addresses.size >= MAX_CACHED_HOSTS) this.addresses.clear();
      known = { addresses: new Set(resolved.map(plainAddress)), until: now + ADDRESS_TTL_MS };
      this.addresses.set(host, known);
    }
    return known.addresses.has(plainAddress(address));
  }
}
