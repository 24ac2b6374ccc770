import { randomBytes } from "node:crypto";
import type { Dispatcher } from "undici";
import type { Logger } from "../context.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import { HostLimiter } from "../http/host-limiter.js";
import { postForm, type PostFormResult } from "../http/post-form.js";
import type { BlogrollOptions } from "../options.js";
import { newId } from "../storage/id.js";
import { isListed } from "../storage/provenance.js";
import type { Blog, PushKind, PushSubscription, Storage } from "../storage/types.js";
import { describeFailure, errorText } from "../sync/failure-message.js";
import { syncBlog, type FeedRead } from "../sync/fetch-blog.js";
import { parseFeedInWorker } from "../sync/parse-pool.js";
import { storeItems } from "../sync/store-items.js";
import { pushAddress, type PushAddress } from "./address.js";
import { pushTargets, type CloudTarget, type WebSubTarget } from "./discover.js";
import { validSignature } from "./signature.js";
import {
  CLOUD_LIFETIME_MS,
  DISTRUST_MS,
  pushActive,
  REQUESTED_LEASE_SECONDS,
  requestDue,
  UNSUBSCRIBE_WAIT_MS,
} from "./timing.js";

export interface PushManagerDeps {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  /** The public URL offered to hubs, read at each use (inside Indiekit the host's address may be known late). */
  publicUrl(): string | null;
  log: Logger;
  now?: () => Date;
  /** undici dispatcher for hub requests and notification fetches (tests). */
  dispatcher?: Dispatcher;
  /** Feed parser; the worker pool by default. */
  parse?: (body: string | Uint8Array, options: ParseFeedOptions) => Promise<ParsedFeed>;
}

/** The answer a callback route gives. */
export interface CallbackAnswer {
  status: number;
  body?: string;
}

/** A WebSub content distribution as the route received it. */
export interface Delivery {
  /** X-Hub-Signature. */
  signature: string | undefined;
  contentType: string | null;
  /** The raw body; null when the host had already parsed it (its bytes, and so the signature, are lost). */
  body: Uint8Array | null;
}

const NOT_FOUND: CallbackAnswer = { status: 404, body: "Not found" };
/** A callback token: 192 random bits, URL-safe. */
const newToken = () => randomBytes(24).toString("base64url");
/** Notification-triggered fetches of one blog are at least this far apart (a flood of notices costs one request per period). */
const NOTIFIED_FETCH_SPACING_MS = 2_000;
/** Longest hub.lease_seconds believed (ten years); a larger or unreadable value keeps the requested lease. */
const MAX_LEASE_SECONDS = 10 * 365 * 24 * 3600;
/** How often subscriptions are renewed and tidied while the plugin runs. */
const MAINTAIN_INTERVAL_MS = 10 * 60_000;

/** Blogs whose posts are worth pushing: listed, visible, fetched by us. */
export function eligibleForPush(blog: Blog | null): blog is Blog {
  return blog !== null && !blog.hidden && !blog.skipItemFetch && isListed(blog) && !["deleted", "gone"].includes(blog.status);
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

/**
 * WebSub subscriber and rssCloud client: subscribes blogs that announce a
 * hub or a cloud (from what each fetch of their feed tells), answers the
 * hubs' callbacks, stores pushed posts through the same parse-and-store path
 * as a fetch, renews leases before they end and lets go of blogs that are
 * deleted, hidden or dropped. Subscription records live in storage, so a
 * restart keeps them and their callbacks.
 */
export class PushManager {
  private readonly now: () => Date;
  private readonly parse: NonNullable<PushManagerDeps["parse"]>;
  private readonly limiter: HostLimiter;
  private readonly pending = new Set<Promise<unknown>>();
  /** Blogs with a notification-triggered fetch running or waiting, and whether another is wanted after it. */
  private readonly fetching = new Map<string, { again: boolean }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: PushManagerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.parse = deps.parse ?? parseFeedInWorker;
    this.limiter = new HostLimiter(deps.options.perHostConcurrency);
  }

  /** The public URL in use: the `publicUrl` option, else the host's address. */
  offeredUrl(): string | null {
    return this.deps.options.publicUrl ?? this.deps.publicUrl();
  }

  /** Where callbacks are offered, or why there are none (shown in the admin). */
  address(): PushAddress {
    const { options } = this.deps;
    return pushAddress({ push: options.push, publicUrl: this.offeredUrl(), mountPath: options.mountPath, allowPrivateNetworks: options.allowPrivateNetworks });
  }

  /** The callback URL of a subscription, or null without a public address. */
  callbackUrl(subscription: Pick<PushSubscription, "kind" | "callbackToken">): string | null {
    const address = this.address();
    return address.ok ? `${address.callbackBase}/push/${subscription.kind}/${subscription.callbackToken}` : null;
  }

  /**
   * Renews and tidies subscriptions every ten minutes (the timer does not
   * keep the process alive). Not at once: inside Indiekit the database and
   * the host's address may only be known after the first requests.
   */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.track(this.maintain()), MAINTAIN_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer and waits for work in flight. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.idle();
  }

  /** Resolves when no subscription request, notification fetch or tidy-up is in flight. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Ids of the blogs whose posts are pushed now (the schedule's "push active"). */
  async pushedBlogIds(): Promise<Set<string>> {
    const storage = await this.deps.getStorage();
    const now = this.now();
    return new Set((await storage.push.list()).filter((subscription) => pushActive(subscription, now)).map((subscription) => subscription.blogId));
  }

  /** True when a verified, unexpired, trusted subscription pushes this blog's posts (the schedule's input). */
  async isActive(blog: Pick<Blog, "id">): Promise<boolean> {
    const storage = await this.deps.getStorage();
    const now = this.now();
    return (await storage.push.listByBlog(blog.id)).some((subscription) => pushActive(subscription, now));
  }

  /**
   * A poll of a pushed blog found posts the push never brought: the push is
   * not trusted for DISTRUST_MS (the blog goes back to its schedule), then
   * subscribed afresh.
   */
  async missed(blog: Pick<Blog, "id" | "feedUrl">): Promise<void> {
    const storage = await this.deps.getStorage();
    const now = this.now();
    for (const subscription of await storage.push.listByBlog(blog.id)) {
      if (!pushActive(subscription, now)) continue;
      this.deps.log.info(`a poll of ${blog.feedUrl} found posts its ${subscription.kind} push did not bring: scheduled until it is renewed`);
      await storage.push.put({ ...subscription, distrustedUntil: new Date(now.getTime() + DISTRUST_MS), updatedAt: now });
    }
  }

  /**
   * Told of each fetch of a blog's feed (SyncBlogDeps.onFeedRead): subscribes
   * to the hub or cloud it announces, follows a change of hub, lets go of a
   * hub it no longer names, and, when this was a safety poll of a pushed blog
   * that found new posts, stops trusting the push for a while.
   */
  readonly observe = (blog: Blog, read: FeedRead): void => {
    this.track(this.afterRead(blog, read));
  };

  /** Subscribes, renews and lets go as due; run by the timer (and by tests). */
  async maintain(): Promise<void> {
    try {
      const storage = await this.deps.getStorage();
      const address = this.address();
      for (const subscription of await storage.push.list()) {
        const blog = await storage.blogs.get(subscription.blogId);
        if ((!address.ok && address.reason === "disabled") || !eligibleForPush(blog)) {
          await this.end(storage, subscription);
          continue;
        }
        // Without a usable address (Indiekit may not know its own yet) nothing can be renewed; nothing is ended either.
        if (!address.ok) continue;
        if (subscription.state === "unsubscribing") {
          if (this.now().getTime() - subscription.updatedAt.getTime() >= UNSUBSCRIBE_WAIT_MS) await storage.push.delete(subscription.id);
          continue;
        }
        if (!requestDue(subscription, this.now())) continue;
        const target = { hub: subscription.hub, topic: subscription.topic };
        if (subscription.kind === "websub") await this.subscribe(storage, blog, target, subscription);
        else await this.register(storage, blog, { endpoint: subscription.hub, feedUrl: subscription.topic }, subscription);
      }
    } catch (error) {
      this.deps.log.warn(`push subscriptions could not be renewed: ${errorText(error)}`);
    }
  }

  /**
   * Lets go of a blog's subscriptions now, in the background (the owner
   * deleted or hid it): hubs are asked to unsubscribe. The ten-minute tidy-up
   * would do it too; this spares the hub's notifications meanwhile.
   */
  release(blogId: string): void {
    this.track(
      (async () => {
        const storage = await this.deps.getStorage();
        for (const subscription of await storage.push.listByBlog(blogId)) await this.end(storage, subscription);
      })(),
    );
  }

  /** True when a callback token names a subscription of this kind (checked before a body is read). */
  async knows(kind: PushKind, token: string): Promise<boolean> {
    const storage = await this.deps.getStorage();
    return (await storage.push.getByToken(token))?.kind === kind;
  }

  /** A hub's or cloud server's verification GET. */
  async verify(kind: PushKind, token: string, query: Record<string, unknown>): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== kind) return NOT_FOUND;
    return kind === "websub" ? this.verifyWebSub(storage, subscription, query) : this.verifyCloud(subscription, query);
  }

  /** A WebSub content distribution POST. */
  async deliver(token: string, delivery: Delivery): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== "websub") return NOT_FOUND;
    const blog = await storage.blogs.get(subscription.blogId);
    // Known callback, but nothing we want now: 2xx, and nothing changes.
    if (subscription.state !== "active" || !eligibleForPush(blog)) return { status: 202 };
    if (delivery.body === null) {
      // The host parsed the body before us: its signature cannot be checked, so only a fetch of the real feed may follow.
      this.fetchSoon(blog);
      return { status: 202 };
    }
    if (subscription.secret && !validSignature(delivery.signature, delivery.body, subscription.secret)) {
      this.deps.log.info(`ignored a WebSub notification for ${subscription.topic} without a valid signature`);
      return { status: 202 };
    }
    const at = this.now();
    await storage.push.put({ ...subscription, lastNotifiedAt: at, updatedAt: at });
    let parsed: ParsedFeed | null = null;
    if (delivery.body.length > 0) {
      parsed = await this.parse(delivery.body, { url: subscription.topic, contentType: delivery.contentType, maxItems: this.deps.options.maxItemsPerBlog }).catch(() => null);
    }
    if (!parsed || parsed.items.length === 0) {
      // An empty or thin notification (or one that is not a feed) says only "changed": read the feed itself.
      this.fetchSoon(blog);
      return { status: 202 };
    }
    await storeItems(storage, blog.id, parsed.items, at, this.deps.options);
    return { status: 200 };
  }

  /** An rssCloud notification POST: `url` names the feed that changed. */
  async cloudNotify(token: string, url: unknown): Promise<CallbackAnswer> {
    const storage = await this.deps.getStorage();
    const subscription = await storage.push.getByToken(token);
    if (!subscription || subscription.kind !== "rsscloud") return NOT_FOUND;
    // A feed that is not the one registered here is ignored (2xx: the server did nothing wrong by asking).
    if (!sameUrl(url, subscription.topic) || subscription.state !== "active") return { status: 200, body: "ignored" };
    const blog = await storage.blogs.get(subscription.blogId);
    if (!eligibleForPush(blog)) return { status: 200, body: "ignored" };
    const at = this.now();
    await storage.push.put({ ...subscription, lastNotifiedAt: at, updatedAt: at });
    this.fetchSoon(blog);
    return { status: 200, body: "thanks" };
  }

  private track<T>(work: Promise<T>): void {
    const tracked = work.catch((error: unknown) => this.deps.log.warn(`push: ${errorText(error)}`)).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async afterRead(blog: Blog, read: FeedRead): Promise<void> {
    if (!eligibleForPush(blog) || !this.address().ok) return;
    const storage = await this.deps.getStorage();
    const now = this.now();
    if (read.itemsAdded > 0) await this.missed(blog);
    const existing = await storage.push.listByBlog(blog.id);
    const targets = pushTargets(read);
    const websub = existing.find((subscription) => subscription.kind === "websub") ?? null;
    const cloud = existing.find((subscription) => subscription.kind === "rsscloud") ?? null;
    if (targets.websub) {
      const same = websub && websub.hub === targets.websub.hub && websub.topic === targets.websub.topic;
      if (websub && !same) await this.end(storage, websub);
      if (!same || requestDue(websub, now)) await this.subscribe(storage, blog, targets.websub, same ? websub : null);
    } else if (websub) {
      await this.end(storage, websub);
    }
    // A blog with a hub is pushed by it alone; rssCloud serves the feeds that only have a <cloud>.
    const cloudTarget = targets.websub ? null : targets.cloud;
    if (cloudTarget) {
      const same = cloud && cloud.hub === cloudTarget.endpoint && cloud.topic === cloudTarget.feedUrl;
      if (!same || requestDue(cloud, now)) await this.register(storage, blog, cloudTarget, same ? cloud : null);
    } else if (cloud) {
      await this.end(storage, cloud);
    }
  }

  /** A subscription record to (re)request: a renewal keeps its callback and secret (the hub keys on topic + callback). */
  private requestRecord(blog: Blog, kind: PushKind, hub: string, topic: string, previous: PushSubscription | null): PushSubscription {
    const now = this.now();
    // A renewal (also after a spell of distrust) keeps the callback, so the hub updates its one subscription; a denied one starts anew.
    const renewal = previous !== null && previous.state !== "denied";
    return {
      id: renewal ? previous.id : newId(now.getTime()),
      blogId: blog.id,
      kind,
      hub,
      topic,
      callbackToken: renewal ? previous.callbackToken : newToken(),
      secret: kind === "websub" ? (renewal ? previous.secret : newToken()) : null,
      // A renewal of a trusted lease stays active meanwhile (the old lease still runs); a distrusted one waits for the hub's verification.
      state: renewal && previous.state === "active" && !previous.distrustedUntil ? "active" : "requested",
      leaseSeconds: renewal ? previous.leaseSeconds : null,
      expiresAt: renewal ? previous.expiresAt : null,
      lastError: null,
      requestedAt: now,
      verifiedAt: renewal ? previous.verifiedAt : null,
      lastNotifiedAt: renewal ? previous.lastNotifiedAt : null,
      distrustedUntil: null,
      createdAt: renewal ? previous.createdAt : now,
      updatedAt: now,
    };
  }

  private async subscribe(storage: Storage, blog: Blog, target: WebSubTarget, previous: PushSubscription | null): Promise<void> {
    const record = this.requestRecord(blog, "websub", target.hub, target.topic, previous);
    const callback = this.callbackUrl(record);
    if (!callback) return;
    // Stored first: the hub may verify before it answers the request.
    await storage.push.put(record);
    await this.send(storage, record, {
      "hub.callback": callback,
      "hub.mode": "subscribe",
      "hub.topic": record.topic,
      "hub.lease_seconds": String(REQUESTED_LEASE_SECONDS),
      "hub.secret": record.secret ?? "",
    }, () => undefined);
  }

  private async register(storage: Storage, blog: Blog, target: CloudTarget, previous: PushSubscription | null): Promise<void> {
    const record = this.requestRecord(blog, "rsscloud", target.endpoint, target.feedUrl, previous);
    const callback = this.callbackUrl(record);
    if (!callback) return;
    const url = new URL(callback);
    await storage.push.put(record);
    await this.send(storage, record, {
      notifyProcedure: "",
      port: url.port || (url.protocol === "https:" ? "443" : "80"),
      path: `${url.pathname}${url.search}`,
      // rssCloud calls back at <protocol>://domain:port/path; https-post is the same protocol over TLS.
      protocol: url.protocol === "https:" ? "https-post" : "http-post",
      domain: url.hostname,
      url1: record.topic,
    }, async (result) => {
      // <notifyResult success="false" msg="..."/> is a refusal even with a 200.
      const refused = /success\s*=\s*["']?false/i.exec(result.text);
      if (refused) return /msg\s*=\s*"([^"]*)"/i.exec(result.text)?.[1] ?? "The cloud server refused the registration";
      const at = this.now();
      const current = (await storage.push.get(record.id)) ?? record;
      await storage.push.put({ ...current, state: "active", verifiedAt: at, expiresAt: new Date(at.getTime() + CLOUD_LIFETIME_MS), lastError: null, updatedAt: at });
      return undefined;
    });
  }

  /**
   * Sends a subscription request or registration. A 2xx is handed to
   * `accepted` (which may still call it a refusal, by returning why); any
   * other answer or a failure marks the record failed, with the reason.
   */
  private async send(
    storage: Storage,
    record: PushSubscription,
    fields: Record<string, string>,
    accepted: (result: PostFormResult) => Promise<string | undefined> | string | undefined,
  ): Promise<void> {
    const { options } = this.deps;
    let problem: string | undefined;
    try {
      const result = await this.post(record.hub, fields);
      if (result.status >= 200 && result.status <= 299) {
        problem = await accepted(result);
        if (!problem && result.movedPermanently) {
          // A 308: the hub lives at its new address from now on.
          const current = await storage.push.get(record.id);
          if (current) await storage.push.put({ ...current, hub: result.url, updatedAt: this.now() });
        }
      } else {
        const said = result.text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim().slice(0, 160);
        problem = `The ${record.kind === "websub" ? "hub" : "cloud server"} answered HTTP ${result.status}${said ? `: ${said}` : ""}`;
      }
    } catch (error) {
      problem = describeFailure(error, options);
    }
    if (problem === undefined) return;
    const current = (await storage.push.get(record.id)) ?? record;
    // The hub may have verified meanwhile; a failed request only fails a subscription that is not verified.
    if (current.state === "active" && current.requestedAt?.getTime() !== record.requestedAt?.getTime()) return;
    await storage.push.put({ ...current, state: current.state === "active" ? "active" : "failed", lastError: problem, updatedAt: this.now() });
  }

  /** A request to a hub or cloud server, at most `perHostConcurrency` at a time per host (hundreds of blogs may share one hub). */
  private post(url: string, fields: Record<string, string>): Promise<PostFormResult> {
    const { options } = this.deps;
    const request = () => postForm(url, fields, { timeout: options.fetchTimeout, allowPrivateNetworks: options.allowPrivateNetworks, dispatcher: this.deps.dispatcher });
    return URL.canParse(url) ? this.limiter.run(new URL(url).hostname, request) : request();
  }

  /** Ends a subscription: WebSub hubs are asked to unsubscribe (and verify it); anything else is just forgotten. */
  private async end(storage: Storage, subscription: PushSubscription): Promise<void> {
    const callback = this.callbackUrl(subscription);
    if (subscription.kind !== "websub" || subscription.state === "failed" || subscription.state === "denied" || subscription.state === "unsubscribing" || !callback) {
      if (subscription.state !== "unsubscribing") await storage.push.delete(subscription.id);
      return;
    }
    const at = this.now();
    await storage.push.put({ ...subscription, state: "unsubscribing", updatedAt: at });
    try {
      const result = await this.post(subscription.hub, { "hub.callback": callback, "hub.mode": "unsubscribe", "hub.topic": subscription.topic });
      if (result.status < 200 || result.status > 299) await storage.push.delete(subscription.id);
    } catch {
      await storage.push.delete(subscription.id);
    }
  }

  private async verifyWebSub(storage: Storage, subscription: PushSubscription, query: Record<string, unknown>): Promise<CallbackAnswer> {
    const mode = param(query, "hub.mode");
    const challenge = param(query, "hub.challenge");
    // Only for the topic we asked about: anything else is not ours to confirm.
    if (!sameUrl(param(query, "hub.topic"), subscription.topic)) return NOT_FOUND;
    const at = this.now();
    if (mode === "denied") {
      if (subscription.state === "unsubscribing") return NOT_FOUND;
      const reason = param(query, "hub.reason")?.slice(0, 200);
      this.deps.log.info(`the hub ${subscription.hub} denied the subscription to ${subscription.topic}${reason ? `: ${reason}` : ""}`);
      await storage.push.put({ ...subscription, state: "denied", lastError: reason ? `The hub denied the subscription: ${reason}` : "The hub denied the subscription", updatedAt: at });
      return { status: 200, body: "" };
    }
    if (!challenge) return NOT_FOUND;
    if (mode === "subscribe" && (subscription.state === "requested" || subscription.state === "active")) {
      const granted = Number(param(query, "hub.lease_seconds"));
      const leaseSeconds = Number.isInteger(granted) && granted > 0 && granted <= MAX_LEASE_SECONDS ? granted : REQUESTED_LEASE_SECONDS;
      await storage.push.put({
        ...subscription,
        state: "active",
        leaseSeconds,
        expiresAt: new Date(at.getTime() + leaseSeconds * 1000),
        verifiedAt: at,
        lastError: null,
        updatedAt: at,
      });
      return { status: 200, body: challenge };
    }
    if (mode === "unsubscribe" && subscription.state === "unsubscribing") {
      await storage.push.delete(subscription.id);
      return { status: 200, body: challenge };
    }
    return NOT_FOUND;
  }

  private verifyCloud(subscription: PushSubscription, query: Record<string, unknown>): CallbackAnswer {
    const challenge = param(query, "challenge");
    if (!challenge || !sameUrl(param(query, "url"), subscription.topic)) return NOT_FOUND;
    if (subscription.state !== "requested" && subscription.state !== "active") return NOT_FOUND;
    return { status: 200, body: challenge };
  }

  /**
   * Fetches a blog because its hub or cloud said it changed. Notices that
   * arrive while a fetch runs or waits ask for one more fetch after it, and
   * fetches of one blog are NOTIFIED_FETCH_SPACING_MS apart: a flood of
   * notices (forged ones included) costs a request per period at most.
   */
  private fetchSoon(blog: Blog): void {
    const running = this.fetching.get(blog.id);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.fetching.set(blog.id, state);
    this.track(
      (async () => {
        try {
          do {
            state.again = false;
            const started = Date.now();
            await this.fetchNow(blog.id);
            if (state.again) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + NOTIFIED_FETCH_SPACING_MS - Date.now())));
          } while (state.again);
        } finally {
          this.fetching.delete(blog.id);
        }
      })(),
    );
  }

  private async fetchNow(blogId: string): Promise<void> {
    const storage = await this.deps.getStorage();
    const blog = await storage.blogs.get(blogId);
    if (!eligibleForPush(blog)) return;
    await syncBlog(storage, blog, this.deps.options, new AbortController().signal, {
      limiter: this.limiter,
      parse: this.parse,
      now: this.now,
      dispatcher: this.deps.dispatcher,
      log: (message) => this.deps.log.warn(message),
      // Pushed blogs stay on their safety poll; what this fetch finds is what the notification announced.
      pushSignal: this,
      answersPush: true,
    });
  }
}
