import { randomBytes, randomUUID } from "node:crypto";
import type { Logger } from "../context.js";
import type { PostFormResult } from "../http/post-form.js";
import type { BlogrollOptions } from "../options.js";
import { newId } from "../storage/id.js";
import type { Blog, PushKind, PushSubscription, Storage } from "../storage/types.js";
import { describeFailure, errorText } from "../sync/failure-message.js";
import type { FeedRead } from "../sync/fetch-blog.js";
import type { PushAddress } from "./address.js";
import { pushTargets, type CloudTarget, type WebSubTarget } from "./discover.js";
import { eligibleForPush } from "./notified-fetches.js";
import { printable } from "./remote-log.js";
import { CLOUD_LIFETIME_MS, DISTRUST_MS, dueAction, dueAt, pushActive, REQUESTED_LEASE_SECONDS } from "./timing.js";

/** A callback token: 192 random bits, URL-safe (32 characters). */
const newToken = () => randomBytes(24).toString("base64url");
/** Longest a timer waits before the subscriptions are looked at again (setTimeout's own limit is under 25 days). */
const MAX_TIMER_MS = 24 * 3_600_000;
/** Changes made elsewhere (a blog dropped, hidden, deleted) are looked at this soon; several in a row make one pass. */
const SOON_MS = 250;
/** Without a public address (Indiekit may learn its own only from its first request), it is looked for again this often. */
const ADDRESS_RETRY_MS = 60_000;
/** A pass over the subscriptions holds this lease, so two processes on one database never renew the same one twice. */
const LEASE = "push-subscriptions";
const LEASE_TTL_MS = 60_000;

export interface SubscriptionKeeperDeps {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  now: () => Date;
  log: Logger;
  /** Where callbacks are offered, or why there are none. */
  address(): PushAddress;
  /** The callback URL of a subscription, or null without a public address. */
  callbackUrl(subscription: Pick<PushSubscription, "kind" | "callbackToken">): string | null;
  /** A request to a hub or cloud server (the per-host limit and outbound rules applied). */
  post(url: string, fields: Record<string, string>): Promise<PostFormResult>;
  track(work: Promise<unknown>): void;
}

/**
 * The subscriptions: asks hubs (WebSub) and cloud servers (rssCloud) to push
 * the blogs that announce one, renews them when they are due, ends them when
 * their blog is dropped, hidden, deleted or gone, and tells the schedule
 * which blogs are pushed. Nothing waits for a tick: a timer is set at the
 * earliest time something is due (a renewal before a lease ends, a retry, a
 * request given up), and changes to blogs are looked at within a second of
 * `reconcileSoon()`. Records live in storage, so a restart keeps them.
 */
export class SubscriptionKeeper {
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;

  constructor(private readonly deps: SubscriptionKeeperDeps) {}

  /** Starts the timer: a first pass soon (inside Indiekit the database and the address may be known only later). */
  start(): void {
    this.started = true;
    this.wake(new Date(this.deps.now().getTime() + SOON_MS));
  }

  /** Stops the timer (work in flight is the manager's to wait for). */
  stop(): void {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Makes sure a pass runs at `at` at the latest (the timer only ever moves earlier here). */
  wake(at: Date): void {
    if (!this.started) return;
    const when = at.getTime();
    if (when >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = when;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, when - this.deps.now().getTime()));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.deps.track(this.maintain());
    }, delay);
    this.timer.unref();
  }

  /** Looks at every subscription soon: a blog may have been dropped, hidden or deleted. */
  reconcileSoon(): void {
    this.wake(new Date(this.deps.now().getTime() + SOON_MS));
  }

  /**
   * One pass: ends the subscriptions of blogs no longer pushed, does what is
   * due (renew, retry, give up, forget), then sets the timer at the next due
   * time. A pass asked for while one runs follows it.
   */
  async maintain(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass().catch((error: unknown) =>
          this.deps.log.warn(`push subscriptions could not be renewed: ${errorText(error)}`),
        );
      } while (this.again);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /** Ids of the blogs whose posts are pushed now (the schedule's "push active"). */
  async pushedBlogIds(): Promise<Set<string>> {
    const storage = await this.deps.getStorage();
    const now = this.deps.now();
    return new Set(
      (await storage.push.list())
        .filter((subscription) => pushActive(subscription, now))
        .map((subscription) => subscription.blogId),
    );
  }

  /** True when a verified, unexpired, trusted subscription pushes this blog's posts. */
  async isActive(blog: Pick<Blog, "id">): Promise<boolean> {
    const storage = await this.deps.getStorage();
    const now = this.deps.now();
    return (await storage.push.listByBlog(blog.id)).some((subscription) => pushActive(subscription, now));
  }

  /** True when a verified notification came since the blog's last fetch: the posts a fetch finds now were announced. */
  async announced(blog: Pick<Blog, "id" | "lastFetchAt">): Promise<boolean> {
    const storage = await this.deps.getStorage();
    return (await storage.push.listByBlog(blog.id)).some(
      (subscription) =>
        subscription.state === "active" &&
        subscription.lastNotifiedAt !== null &&
        (blog.lastFetchAt === null || subscription.lastNotifiedAt > blog.lastFetchAt),
    );
  }

  /**
   * A poll of a pushed blog found posts the push never brought: the push is
   * not trusted for DISTRUST_MS (the blog goes back to its schedule), then
   * subscribed afresh.
   */
  async missed(blog: Pick<Blog, "id" | "feedUrl">): Promise<void> {
    const storage = await this.deps.getStorage();
    const now = this.deps.now();
    for (const subscription of await storage.push.listByBlog(blog.id)) {
      if (!pushActive(subscription, now)) continue;
      this.deps.log.info(
        `a poll of ${blog.feedUrl} found posts its ${subscription.kind} push did not bring: scheduled until it is renewed`,
      );
      await this.distrust(storage, subscription, null);
    }
  }

  /** Stops trusting a subscription for DISTRUST_MS (the blog is scheduled meanwhile), with the reason shown to the owner. */
  async distrust(storage: Storage, subscription: PushSubscription, reason: string | null): Promise<void> {
    const now = this.deps.now();
    const until = new Date(now.getTime() + DISTRUST_MS);
    await storage.push.put({
      ...subscription,
      distrustedUntil: until,
      lastError: reason ?? subscription.lastError,
      updatedAt: now,
    });
    this.wake(until);
  }

  /** Told of each fetch of a blog's feed (SyncBlogDeps.onFeedRead): subscribes, follows a change of hub, lets go of one no longer named. */
  readonly observe = (blog: Blog, read: FeedRead): void => {
    this.deps.track(this.afterRead(blog, read));
  };

  /** Lets go of a blog's subscriptions now, in the background (the owner deleted or hid it): hubs are asked to unsubscribe. */
  release(blogId: string): void {
    this.deps.track(
      (async () => {
        const storage = await this.deps.getStorage();
        for (const subscription of await storage.push.listByBlog(blogId)) await this.end(storage, subscription);
      })(),
    );
  }

  private async pass(): Promise<void> {
    const storage = await this.deps.getStorage();
    const address = this.deps.address();
    const disabled = !address.ok && address.reason === "disabled";
    // Without a usable address (Indiekit may not know its own yet) nothing can be renewed or ended: look again later.
    if (!address.ok && !disabled) return this.wake(new Date(this.deps.now().getTime() + ADDRESS_RETRY_MS));
    if (!(await storage.meta.acquireLease(LEASE, this.holder, LEASE_TTL_MS)))
      return this.wake(new Date(this.deps.now().getTime() + LEASE_TTL_MS));
    try {
      const subscriptions = await storage.push.list();
      const blogs = new Map(
        (await storage.blogs.getMany([...new Set(subscriptions.map((subscription) => subscription.blogId))])).map(
          (blog) => [blog.id, blog],
        ),
      );
      for (const subscription of subscriptions) {
        const blog = blogs.get(subscription.blogId) ?? null;
        if (disabled || !eligibleForPush(blog)) {
          await this.end(storage, subscription);
          continue;
        }
        await this.act(storage, blog, subscription);
      }
      let next = Number.POSITIVE_INFINITY;
      for (const subscription of await storage.push.list()) next = Math.min(next, dueAt(subscription).getTime());
      if (Number.isFinite(next)) this.wake(new Date(next));
    } finally {
      await storage.meta.releaseLease(LEASE, this.holder).catch(() => undefined);
    }
  }

  /** Does what is due for one subscription of an eligible blog. */
  private async act(storage: Storage, blog: Blog, subscription: PushSubscription): Promise<void> {
    const now = this.deps.now();
    switch (dueAction(subscription, now)) {
      case "forget":
        await storage.push.delete(subscription.id);
        return;
      case "fail": {
        const why =
          subscription.state === "requested"
            ? "did not verify the subscription"
            : "did not confirm the renewal before the lease ended";
        const lastError =
          subscription.lastError ?? `The ${subscription.kind === "websub" ? "hub" : "cloud server"} ${why}`;
        await storage.push.put({ ...subscription, state: "failed", lastError, updatedAt: now });
        return;
      }
      case "request":
        if (subscription.kind === "websub")
          await this.subscribe(storage, blog, { hub: subscription.hub, topic: subscription.topic }, subscription);
        else
          await this.register(storage, blog, { endpoint: subscription.hub, feedUrl: subscription.topic }, subscription);
        return;
      case null:
        return;
    }
  }

  private async afterRead(blog: Blog, read: FeedRead): Promise<void> {
    if (!eligibleForPush(blog) || !this.deps.address().ok) return;
    const storage = await this.deps.getStorage();
    const now = this.deps.now();
    if (read.itemsAdded > 0 && !read.answersPush) await this.missed(blog);
    const existing = await storage.push.listByBlog(blog.id);
    const targets = pushTargets(read);
    const websub = existing.find((subscription) => subscription.kind === "websub") ?? null;
    const cloud = existing.find((subscription) => subscription.kind === "rsscloud") ?? null;
    if (targets.websub) {
      const same = websub && websub.hub === targets.websub.hub && websub.topic === targets.websub.topic;
      if (websub && !same) await this.end(storage, websub);
      if (!same || dueAction(websub, now) === "request")
        await this.subscribe(storage, blog, targets.websub, same ? websub : null);
    } else if (websub) {
      await this.end(storage, websub);
    }
    // A blog with a hub is pushed by it alone; rssCloud serves the feeds that only have a <cloud>.
    const cloudTarget = targets.websub ? null : targets.cloud;
    if (cloudTarget) {
      const same = cloud && cloud.hub === cloudTarget.endpoint && cloud.topic === cloudTarget.feedUrl;
      if (!same || dueAction(cloud, now) === "request")
        await this.register(storage, blog, cloudTarget, same ? cloud : null);
    } else if (cloud) {
      await this.end(storage, cloud);
    }
  }

  /**
   * A subscription record to (re)request. A renewal keeps its callback and
   * secret (the hub keys on topic + callback); a denied or failed one starts
   * anew. The secret goes only to https hubs (the Recommendation: only over
   * HTTPS); an http hub's notifications are thin hints, never stored.
   */
  private requestRecord(
    blog: Blog,
    kind: PushKind,
    hub: string,
    topic: string,
    previous: PushSubscription | null,
  ): PushSubscription {
    const now = this.deps.now();
    const renewal = previous !== null && previous.state !== "denied" && previous.state !== "failed";
    const secure = kind === "websub" && hub.toLowerCase().startsWith("https:");
    return {
      id: renewal ? previous.id : newId(now.getTime()),
      blogId: blog.id,
      kind,
      hub,
      topic,
      callbackToken: renewal ? previous.callbackToken : newToken(),
      secret: secure ? ((renewal ? previous.secret : null) ?? newToken()) : null,
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

  private async subscribe(
    storage: Storage,
    blog: Blog,
    target: WebSubTarget,
    previous: PushSubscription | null,
  ): Promise<void> {
    const record = this.requestRecord(blog, "websub", target.hub, target.topic, previous);
    const callback = this.deps.callbackUrl(record);
    if (!callback) return;
    // Stored first: the hub may verify before it answers the request.
    await storage.push.put(record);
    const fields: Record<string, string> = {
      "hub.callback": callback,
      "hub.mode": "subscribe",
      "hub.topic": record.topic,
      "hub.lease_seconds": String(REQUESTED_LEASE_SECONDS),
    };
    if (record.secret) fields["hub.secret"] = record.secret;
    await this.send(storage, record, fields, () => undefined);
  }

  private async register(
    storage: Storage,
    blog: Blog,
    target: CloudTarget,
    previous: PushSubscription | null,
  ): Promise<void> {
    const record = this.requestRecord(blog, "rsscloud", target.endpoint, target.feedUrl, previous);
    const callback = this.deps.callbackUrl(record);
    if (!callback) return;
    const url = new URL(callback);
    await storage.push.put(record);
    await this.send(
      storage,
      record,
      {
        notifyProcedure: "",
        port: url.port || (url.protocol === "https:" ? "443" : "80"),
        path: `${url.pathname}${url.search}`,
        // rssCloud calls back at <protocol>://domain:port/path; https-post is the same protocol over TLS.
        protocol: url.protocol === "https:" ? "https-post" : "http-post",
        domain: url.hostname,
        url1: record.topic,
      },
      async (result) => {
        // <notifyResult success="false" msg="..."/> is a refusal even with a 200.
        const refused = /success\s*=\s*["']?false/i.exec(result.text);
        if (refused)
          return printable(
            /msg\s*=\s*"([^"]*)"/i.exec(result.text)?.[1] ?? "The cloud server refused the registration",
          );
        const at = this.deps.now();
        const current = (await storage.push.get(record.id)) ?? record;
        await storage.push.put({
          ...current,
          state: "active",
          verifiedAt: at,
          expiresAt: new Date(at.getTime() + CLOUD_LIFETIME_MS),
          lastError: null,
          updatedAt: at,
        });
        return undefined;
      },
    );
  }

  /**
   * Sends a subscription request or registration. A 2xx is handed to
   * `accepted` (which may still call it a refusal, by returning why); any
   * other answer or a failure records the reason: a first request becomes
   * `failed` (retried after its back-off), a renewal keeps its lease while it
   * runs and is given up when it ends (see timing.ts).
   */
  private async send(
    storage: Storage,
    record: PushSubscription,
    fields: Record<string, string>,
    accepted: (result: PostFormResult) => Promise<string | undefined> | string | undefined,
  ): Promise<void> {
    let problem: string | undefined;
    try {
      const result = await this.deps.post(record.hub, fields);
      if (result.status >= 200 && result.status <= 299) {
        problem = await accepted(result);
        if (!problem && result.movedPermanently) {
          // A 308: the hub lives at its new address from now on.
          const current = await storage.push.get(record.id);
          if (current) await storage.push.put({ ...current, hub: result.url, updatedAt: this.deps.now() });
        }
      } else {
        const said = printable(
          result.text
            .replace(/<[^>]*>/g, " ")
            .replace(/\s+/g, " ")
            .trim(),
          160,
        );
        problem = `The ${record.kind === "websub" ? "hub" : "cloud server"} answered HTTP ${result.status}${said ? `: ${said}` : ""}`;
      }
    } catch (error) {
      problem = describeFailure(error, this.deps.options);
    }
    const current = (await storage.push.get(record.id)) ?? record;
    if (problem !== undefined) {
      // The hub may have verified meanwhile; a failed request only fails a subscription that is not verified.
      if (current.state === "active" && current.requestedAt?.getTime() !== record.requestedAt?.getTime()) return;
      await storage.push.put({
        ...current,
        state: current.state === "active" ? "active" : "failed",
        lastError: problem,
        updatedAt: this.deps.now(),
      });
    }
    this.wake(dueAt((await storage.push.get(record.id)) ?? current));
  }

  /** Ends a subscription: WebSub hubs are asked to unsubscribe (and verify it); anything else is just forgotten. */
  private async end(storage: Storage, subscription: PushSubscription): Promise<void> {
    const callback = this.deps.callbackUrl(subscription);
    if (
      subscription.kind !== "websub" ||
      subscription.state === "failed" ||
      subscription.state === "denied" ||
      subscription.state === "unsubscribing" ||
      !callback
    ) {
      if (subscription.state !== "unsubscribing") await storage.push.delete(subscription.id);
      return;
    }
    const at = this.deps.now();
    const ending: PushSubscription = { ...subscription, state: "unsubscribing", updatedAt: at };
    await storage.push.put(ending);
    this.wake(dueAt(ending));
    try {
      const result = await this.deps.post(subscription.hub, {
        "hub.callback": callback,
        "hub.mode": "unsubscribe",
        "hub.topic": subscription.topic,
      });
      if (result.status < 200 || result.status > 299) await storage.push.delete(subscription.id);
    } catch {
      await storage.push.delete(subscription.id);
    }
  }
}
