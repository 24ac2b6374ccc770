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
import type { FeedBody } from "../sync/parse-tasks.js";

/** Blogs whose posts are worth pushing: listed, visible, fetched by us, not gone. */
export function eligibleForPush(blog: Blog | null): blog is Blog {
  return (
    blog !== null && !blog.hidden && !blog.skipItemFetch && isListed(blog) && !["deleted", "gone"].includes(blog.status)
  );
}

/** How long a blog whose fetch is overdue (due now, not yet run) stays quiet after a folded notice. */
const OVERDUE_QUIET_MS = 1000;
/** Quiet blogs remembered at once (pushed blogs; a blogroll of 10 000 fits). */
const MAX_QUIET = 20_000;

/** What a notice came to: a fetch now, the next fetch brought forward, or nothing beyond the fetch already due. */
export type HintOutcome = "fetching" | "scheduled" | "folded" | "ignored";

export interface NotifiedFetchesDeps {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  now: () => Date;
  parse: (body: FeedBody, options: ParseFeedOptions) => Promise<ParsedFeed>;
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
 *
 * Once a notice has been folded or has brought the next fetch forward, more
 * notices of that blog change nothing until that fetch: the blog is quiet
 * until then (or until any fetch of it is observed), and its notices are
 * answered at once, without storage, a queue or even their bodies (see
 * PushCallbacks). A flood past the budget costs a map lookup per notice.
 */
export class NotifiedFetches {
  /** Per blog: the tail of the notices being taken, so one blog's notices never race each other. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Blogs fetched now because of a notice, and whether another notice came meanwhile. */
  private readonly running = new Map<string, { again: boolean }>();
  /** Per blog: until when (ms) a notice changes nothing, its next fetch being already set (see quiet). */
  private readonly quietUntil = new Map<string, number>();

  constructor(private readonly deps: NotifiedFetchesDeps) {}

  /**
   * True while a notice of this blog would change nothing: one came during
   * its notified fetch (another fetch follows it), or one was folded into or
   * brought forward its next fetch, which has not happened yet.
   */
  quiet(blogId: string): boolean {
    if (this.running.get(blogId)?.again) return true;
    const until = this.quietUntil.get(blogId);
    if (until === undefined) return false;
    if (until > this.deps.now().getTime()) return true;
    this.quietUntil.delete(blogId);
    return false;
  }

  /** The blog was fetched (or let go): its next notice is weighed afresh. */
  fetched(blogId: string): void {
    this.quietUntil.delete(blogId);
  }

  /** Takes a verified notice of `subscription` (read just now). */
  notice(subscription: PushSubscription): Promise<HintOutcome> {
    if (this.quiet(subscription.blogId)) return Promise.resolve("folded");
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
    if (blog.nextFetchAt === null || blog.nextFetchAt <= decision.at) {
      // An overdue blog is fetched any moment: quiet for a moment only, so a notice after that fetch still counts.
      this.quietFor(blog.id, Math.max(blog.nextFetchAt?.getTime() ?? 0, now.getTime() + OVERDUE_QUIET_MS));
      return "folded";
    }
    await storage.blogs.recordHint(blog.id, { budgetAt: decision.budgetAt, nextFetchAt: decision.at });
    this.quietFor(blog.id, decision.at.getTime());
    return "scheduled";
  }

  private quietFor(blogId: string, until: number): void {
    // One entry per pushed blog at most; past MAX_QUIET the ended ones go (a live one is only re-weighed sooner).
    if (this.quietUntil.size >= MAX_QUIET) {
      const now = this.deps.now().getTime();
      for (const [id, at] of this.quietUntil) if (at <= now) this.quietUntil.delete(id);
      if (this.quietUntil.size >= MAX_QUIET) this.quietUntil.clear();
    }
    this.quietUntil.set(blogId, until);
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
