import type { Dispatcher } from "undici";
import type { Logger } from "../context.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import type { HostLimiter } from "../http/host-limiter.js";
import type { BlogrollOptions } from "../options.js";
import { takeHint } from "../schedule/hints.js";
import { isListed } from "../storage/provenance.js";
import type { Blog, PushSubscription, Storage } from "../storage/types.js";
import { errorText } from "../sync/failure-message.js";
import { syncBlog, type PushSignal } from "../sync/fetch-blog.js";

/** Blogs whose posts are worth pushing: listed, visible, fetched by us, not gone. */
export function eligibleForPush(blog: Blog | null): blog is Blog {
  return (
    blog !== null && !blog.hidden && !blog.skipItemFetch && isListed(blog) && !["deleted", "gone"].includes(blog.status)
  );
}

/** What a notice came to: a fetch now, the next fetch brought forward, or nothing beyond the fetch already due. */
export type HintOutcome = "fetching" | "scheduled" | "folded" | "ignored";

export interface NotifiedFetchesDeps {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  now: () => Date;
  parse: (body: string | Uint8Array, options: ParseFeedOptions) => Promise<ParsedFeed>;
  limiter: HostLimiter;
  dispatcher?: Dispatcher;
  log: Logger;
  pushSignal: PushSignal;
  /** Keeps background work in view (PushManager.idle). */
  track(work: Promise<unknown>): void;
}

/**
 * The hint rule: a verified notification (a signed WebSub ping, an rssCloud
 * notice from its server) may bring its blog's next fetch forward, within
 * the blog's budget (lib/schedule/hints.ts, kept with the blog so a restart
 * does not refill it), never inside a server's Retry-After and never for a
 * blog that is gone. Within the budget the fetch runs now; past it the blog's
 * next fetch is brought forward to when the budget allows, and any further
 * notice before then is folded into that fetch. Notices of one blog are taken
 * one after another; one arriving while its blog is fetched asks for one
 * more fetch after it, under the same rule.
 */
export class NotifiedFetches {
  /** Per blog: the tail of the notices being taken, so one blog's notices never race each other. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Blogs fetched now because of a notice, and whether another notice came meanwhile. */
  private readonly running = new Map<string, { again: boolean }>();

  constructor(private readonly deps: NotifiedFetchesDeps) {}

  /** Takes a verified notice of `subscription` (read just now). */
  notice(subscription: PushSubscription): Promise<HintOutcome> {
    return this.serially(subscription.blogId, async () => {
      const storage = await this.deps.getStorage();
      const blog = await storage.blogs.get(subscription.blogId);
      if (!eligibleForPush(blog)) return "ignored";
      const now = this.deps.now();
      // The first notice since the blog's last fetch is remembered: what its next fetch finds was announced, not missed.
      const noted = subscription.lastNotifiedAt;
      if (!noted || (blog.lastFetchAt !== null && noted <= blog.lastFetchAt))
        await storage.push.noteNotified(subscription.id, now);
      const running = this.running.get(blog.id);
      if (running) {
        running.again = true;
        return "folded";
      }
      const outcome = await this.decide(storage, blog, now);
      if (outcome === "fetching") this.start(blog.id);
      return outcome;
    });
  }

  /** Applies the budget to a blog just read: records what is taken, says whether to fetch now. */
  private async decide(storage: Storage, blog: Blog, now: Date): Promise<Exclude<HintOutcome, "ignored">> {
    const decision = takeHint(blog.hintBudgetAt, now, blog.waitUntil);
    if (decision.at <= now) {
      await storage.blogs.recordHint(blog.id, { budgetAt: decision.budgetAt });
      return "fetching";
    }
    // Due sooner already (or now): that fetch will see what the notice announced.
    if (blog.nextFetchAt === null || blog.nextFetchAt <= decision.at) return "folded";
    await storage.blogs.recordHint(blog.id, { budgetAt: decision.budgetAt, nextFetchAt: decision.at });
    return "scheduled";
  }

  /** Fetches a blog now, then again while notices came during the fetch and the budget allows. */
  private start(blogId: string): void {
    const state = { again: false };
    this.running.set(blogId, state);
    this.deps.track(
      (async () => {
        let more = true;
        while (more) {
          await this.fetch(blogId).catch((error: unknown) =>
            this.deps.log.warn(`push: fetching a notified blog failed: ${errorText(error)}`),
          );
          more = await this.serially(blogId, async () => {
            if (state.again) {
              state.again = false;
              const storage = await this.deps.getStorage();
              const blog = await storage.blogs.get(blogId);
              if (eligibleForPush(blog) && (await this.decide(storage, blog, this.deps.now())) === "fetching")
                return true;
            }
            this.running.delete(blogId);
            return false;
          }).catch(() => {
            this.running.delete(blogId);
            return false;
          });
        }
      })(),
    );
  }

  private async fetch(blogId: string): Promise<void> {
    const storage = await this.deps.getStorage();
    const blog = await storage.blogs.get(blogId);
    if (!eligibleForPush(blog)) return;
    await syncBlog(storage, blog, this.deps.options, new AbortController().signal, {
      limiter: this.deps.limiter,
      parse: this.deps.parse,
      now: this.deps.now,
      dispatcher: this.deps.dispatcher,
      log: (message) => this.deps.log.warn(message),
      // Pushed blogs stay on their safety poll; what this fetch finds is what the notification announced.
      pushSignal: this.deps.pushSignal,
      answersPush: true,
    });
  }

  /** Runs `work` after every earlier piece of work for `key`; the queue is forgotten when it empties. */
  private serially<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return result;
  }
}
