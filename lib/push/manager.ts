import type { Dispatcher } from "undici";
import type { Logger } from "../context.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import { HostLimiter } from "../http/host-limiter.js";
import { postForm, type PostFormResult } from "../http/post-form.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, PushKind, PushSubscription, Storage } from "../storage/types.js";
import { errorText } from "../sync/failure-message.js";
import type { FeedRead, PushSignal } from "../sync/fetch-blog.js";
import { parseFeedInWorker, parseOwnedFeedInWorker } from "../sync/parse-pool.js";
import type { FeedBody } from "../sync/parse-tasks.js";
import { pushAddress, type PushAddress } from "./address.js";
import { PushCallbacks, type CallbackAnswer, type Inbound } from "./callbacks.js";
import { NotifiedFetches } from "./notified-fetches.js";
import { RemoteLog } from "./remote-log.js";
import { SenderLimits } from "./sender-limits.js";
import { SubscriptionKeeper } from "./subscriptions.js";

export type { CallbackAnswer, Inbound } from "./callbacks.js";

/** Bodies kept for parsing, all senders together, in multiples of maxBodySize. */
const KEPT_BODIES = 4;

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
  parse?: (body: FeedBody, options: ParseFeedOptions) => Promise<ParsedFeed>;
}

/**
 * WebSub subscriber and rssCloud client, the front of the push room:
 * subscriptions (subscriptions.ts: request, renew, end, on time), callbacks
 * (callbacks.ts: verify, receive, check, each sender bounded by
 * sender-limits.ts) and the fetches notifications may cause
 * (notified-fetches.ts: a hint within a per-blog budget). It wires them
 * together and keeps their background work in view.
 */
export class PushManager implements PushSignal {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly limiter: HostLimiter;
  private readonly remoteLog: RemoteLog;
  private readonly keeper: SubscriptionKeeper;
  private readonly callbacks: PushCallbacks;
  private readonly notified: NotifiedFetches;

  constructor(private readonly deps: PushManagerDeps) {
    const { options } = deps;
    const now = deps.now ?? (() => new Date());
    const parse = deps.parse ?? parseFeedInWorker;
    const track = (work: Promise<unknown>) => this.track(work);
    this.limiter = new HostLimiter(options.perHostConcurrency);
    this.remoteLog = new RemoteLog(deps.log);
    this.keeper = new SubscriptionKeeper({
      options,
      getStorage: deps.getStorage,
      now,
      log: deps.log,
      address: () => this.address(),
      callbackUrl: (subscription) => this.callbackUrl(subscription),
      post: (url, fields) => this.post(url, fields),
      track,
    });
    const notified = (this.notified = new NotifiedFetches({
      options,
      getStorage: deps.getStorage,
      now,
      parse,
      limiter: this.limiter,
      dispatcher: deps.dispatcher,
      log: deps.log,
      pushSignal: this,
      track,
    }));
    const limits = new SenderLimits({
      maxBodySize: options.maxBodySize,
      readTimeout: options.fetchTimeout,
      maxKeptBytes: KEPT_BODIES * options.maxBodySize,
    });
    this.callbacks = new PushCallbacks({
      options,
      getStorage: deps.getStorage,
      now,
      parse: deps.parse ?? parseOwnedFeedInWorker,
      keeper: this.keeper,
      notified,
      limits,
      remoteLog: this.remoteLog,
    });
  }

  /** The public URL in use: the `publicUrl` option, else the host's address. */
  offeredUrl(): string | null {
    return this.deps.options.publicUrl ?? this.deps.publicUrl();
  }

  /** Where callbacks are offered, or why there are none (shown in the admin). */
  address(): PushAddress {
    const { options } = this.deps;
    return pushAddress({
      push: options.push,
      publicUrl: this.offeredUrl(),
      mountPath: options.mountPath,
      allowPrivateNetworks: options.allowPrivateNetworks,
    });
  }

  /** The callback URL of a subscription, or null without a public address. */
  callbackUrl(subscription: Pick<PushSubscription, "kind" | "callbackToken">): string | null {
    const address = this.address();
    return address.ok ? `${address.callbackBase}/push/${subscription.kind}/${subscription.callbackToken}` : null;
  }

  /** Starts looking after subscriptions (a timer at the earliest due time; it does not keep the process alive). */
  start(): void {
    this.keeper.start();
  }

  /** Stops the timer and waits for work in flight. */
  async stop(): Promise<void> {
    this.keeper.stop();
    await this.idle();
    this.remoteLog.flush();
  }

  /** Resolves when no subscription request, notification fetch or pass over the subscriptions is in flight. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Ids of the blogs whose posts are pushed now (the schedule's "push active"). */
  pushedBlogIds(): Promise<Set<string>> {
    return this.keeper.pushedBlogIds();
  }

  /** PushSignal: a verified, unexpired, trusted subscription pushes this blog's posts. */
  isActive(blog: Pick<Blog, "id">): Promise<boolean> {
    return this.keeper.isActive(blog);
  }

  /** PushSignal: a verified notification came since the blog's last fetch. */
  announced(blog: Pick<Blog, "id" | "lastFetchAt">): Promise<boolean> {
    return this.keeper.announced(blog);
  }

  /** A poll of a pushed blog found posts the push never brought. */
  missed(blog: Pick<Blog, "id" | "feedUrl">): Promise<void> {
    return this.keeper.missed(blog);
  }

  /** Told of each fetch of a blog's feed (SyncBlogDeps.onFeedRead). */
  readonly observe = (blog: Blog, read: FeedRead): void => {
    this.notified.fetched(blog.id);
    this.keeper.observe(blog, read);
  };

  /** One pass over the subscriptions now (the timer runs these; tests call it). */
  maintain(): Promise<void> {
    return this.keeper.maintain();
  }

  /** Lets go of a blog's subscriptions now (the owner deleted or hid it). */
  release(blogId: string): void {
    this.notified.fetched(blogId);
    this.keeper.release(blogId);
  }

  /** Looks at every subscription within a second: blogs may have been dropped, hidden or deleted. */
  reconcileSoon(): void {
    this.keeper.reconcileSoon();
  }

  /** A verification GET at a callback. */
  verify(kind: PushKind, token: string, query: Record<string, unknown>): Promise<CallbackAnswer> {
    return this.callbacks.verify(kind, token, query);
  }

  /** A notification POST at a callback. */
  receive(kind: PushKind, token: string, inbound: Inbound): Promise<CallbackAnswer> {
    return kind === "websub"
      ? this.callbacks.receiveWebSub(token, inbound)
      : this.callbacks.receiveCloud(token, inbound);
  }

  private track<T>(work: Promise<T>): void {
    const tracked = work
      .catch((error: unknown) => this.deps.log.warn(`push: ${errorText(error)}`))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** A request to a hub or cloud server, at most `perHostConcurrency` at a time per host (hundreds of blogs may share one hub). */
  private post(url: string, fields: Record<string, string>): Promise<PostFormResult> {
    const { options } = this.deps;
    const request = () =>
      postForm(url, fields, {
        timeout: options.fetchTimeout,
        allowPrivateNetworks: options.allowPrivateNetworks,
        dispatcher: this.deps.dispatcher,
      });
    return URL.canParse(url) ? this.limiter.run(new URL(url).hostname, request) : request();
  }
}
