import type { HostLimiter } from "../http/host-limiter.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, Storage } from "../storage/types.js";
import { DAY } from "../time/durations.js";
import { parseHandle } from "./handle.js";
import { findAccount } from "./webfinger.js";

/** How long a fediverse profile address found by WebFinger is trusted: a week, then asked again. */
export const FEDIVERSE_RECHECK = 7 * DAY;
/**
 * Each blog's week is longer by up to a day, by its id: handles set together
 * (an import, a restart after a long stop) are asked again spread over a day.
 */
export const FEDIVERSE_SPREAD = DAY;
/** Blogs never fetched here read per storage call. */
const UNFETCHED_PAGE = 100;

/** When a blog's handle was last looked up (one small record per blog that has one). */
interface CheckRecord {
  handle: string;
  checkedAt: string;
}

export interface FediverseRecheckStats {
  /** Handles looked up again this run. */
  checked: number;
  /** Profile addresses that changed (a new one, or cleared because the account is gone). */
  changed: number;
}

export interface FediverseRecheckDeps {
  storage: Storage;
  options: BlogrollOptions;
  /** The run's per-host limit, shared with the feeds: lookups wait in its extra lane. */
  limiter: HostLimiter;
  /** Caps extra requests in flight across hosts (the icons' lane). */
  lane: HostLimiter;
  signal: AbortSignal;
  now: () => Date;
  log: (message: string) => void;
}

const recordKey = (blogId: string) => `fediverse:checked:${blogId}`;

/** A blog's share of FEDIVERSE_SPREAD in whole milliseconds, the same at every run (FNV-1a of its id, mixed). */
export function recheckSpread(blogId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < blogId.length; index++) {
    hash ^= blogId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  // Ids differ in their last characters: mixed so that the high bits differ too.
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  hash = (hash ^ (hash >>> 16)) >>> 0;
  return Math.floor((hash / 0x1_0000_0000) * FEDIVERSE_SPREAD);
}

/**
 * The profile address of each blog's fediverse handle, looked up again by
 * WebFinger once a week (spread by blog), beside its feed's fetch in a sync
 * run (a blog never fetched here, once per run), in the extras lane: a new address replaces the old, an account the
 * server says is not there (404, 410) loses its address (the handle stays,
 * shown as text), and a lookup that fails otherwise (unreachable, a server
 * error) keeps what was known until next week. A handle seen for the first
 * time was looked up when it was set: its week starts then.
 */
export function createFediverseRechecks(deps: FediverseRecheckDeps) {
  const { storage, signal, log } = deps;
  const pending = new Set<Promise<void>>();
  const stats: FediverseRecheckStats = { checked: 0, changed: 0 };

  const settle = async (blog: Blog, handle: string) => {
    try {
      const now = deps.now();
      const key = recordKey(blog.id);
      const record = await storage.meta.get<CheckRecord>(key);
      const checkedAt = record?.handle === handle ? Date.parse(record.checkedAt) : Number.NaN;
      if (Number.isNaN(checkedAt)) {
        await storage.meta.set(key, { handle, checkedAt: now.toISOString() } satisfies CheckRecord);
        return;
      }
      if (now.getTime() - checkedAt < FEDIVERSE_RECHECK + recheckSpread(blog.id)) return;
      const host = parseHandle(handle)?.host ?? "";
      const account = await deps.lane.run("fediverse", () =>
        deps.limiter.run(host, () => findAccount(handle, deps.options, signal), "extra"),
      );
      if (signal.aborted) return;
      stats.checked++;
      await storage.meta.set(key, { handle, checkedAt: now.toISOString() } satisfies CheckRecord);
      const profileUrl = account.ok ? account.profileUrl : account.gone ? null : undefined;
      if (profileUrl === undefined) return;
      // The owner may have changed the handle while it was looked up: theirs wins.
      const current = await storage.blogs.get(blog.id);
      if (!current || current.fediverse !== handle || current.fediverseUrl === profileUrl) return;
      await storage.blogs.edit(blog.id, { fediverse: handle, fediverseUrl: profileUrl });
      stats.changed++;
    } catch (error) {
      if (!signal.aborted)
        log(
          `fediverse handle of ${blog.feedUrl} not checked: ${error instanceof Error ? error.message : String(error)}`,
        );
    }
  };

  const want = (blog: Blog): void => {
    if (!blog.fediverse) return;
    const task = settle(blog, blog.fediverse).finally(() => pending.delete(task));
    pending.add(task);
  };

  return {
    /** Queues a look at the blog's fediverse handle, when it has one and its week has passed; never delays the caller. */
    want,
    /**
     * Queues a look at the handle of every blog never fetched here (the
     * Microsub plugin's follows, which no fetch brings to `want`).
     */
    async wantUnfetched(): Promise<void> {
      for (let afterId = ""; ;) {
        signal.throwIfAborted();
        const page = await storage.blogs.listUnfetchedWithHandle(afterId, UNFETCHED_PAGE);
        for (const blog of page) want(blog);
        if (page.length < UNFETCHED_PAGE) return;
        afterId = page[page.length - 1].id;
      }
    },
    /** Resolves when every look queued so far has ended, with the run's figures. */
    async settled(): Promise<FediverseRecheckStats> {
      while (pending.size > 0) await Promise.all(pending);
      return { ...stats };
    },
  };
}
