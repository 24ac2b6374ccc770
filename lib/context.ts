import type { BlogrollOptions } from "./options.js";
import type { Storage } from "./storage/types.js";
import type { MicrosubStore } from "./microsub/types.js";
import type { HostLink } from "./host/indiekit-host.js";
import { Scheduler } from "./sync/scheduler.js";
import { closeParsePool } from "./sync/parse-pool.js";
import { createScheduledRun } from "./sync/run.js";
import { detectMicrosub } from "./microsub/detect.js";
import { refreshSources } from "./sources/refresh.js";
import { blogrollOwner, type BlogrollOwner } from "./owner.js";
import { PushManager } from "./push/manager.js";
import { LiveHub } from "./live/hub.js";
import { LogClock } from "./live/log-clock.js";
import { FirstReads } from "./sync/first-reads.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/** Everything a route or job needs, built once by createBlogrollContext. */
export interface BlogrollContext {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  /** The Microsub plugin's data, or null while its collections are absent (checked per call). */
  getMicrosub(): MicrosubStore | null;
  scheduler: Scheduler;
  /** Feeds read while being added, kept for the new blog's first fetch. */
  firstReads: FirstReads;
  /** WebSub and rssCloud subscriptions and their callbacks. */
  push: PushManager;
  /** Live events (Server-Sent Events) of this process's clients. */
  live: LiveHub;
  /** The storage's change clock: this process's writes and the live event log of every process sharing the database. */
  changes: LogClock;
  log: Logger;
  /** Whose blogroll this is (read per call: the host's configuration is complete only after init). */
  owner(): BlogrollOwner;
}

/** Logs to the console with the plugin's name; causes are logged, never sent to clients. */
export const consoleLogger: Logger = {
  info: (message) => console.info(`[blogroll] ${message}`),
  warn: (message) => console.warn(`[blogroll] ${message}`),
  error: (message, error) =>
    console.error(`[blogroll] ${message}${error instanceof Error ? `: ${error.message}` : ""}`),
};

/**
 * Builds the plugin's parts and wires them together: the sync run (sources,
 * then feeds, telling push what it read), the scheduler that runs it, push,
 * live events, and what is read from the host. Nothing starts here: see
 * startBackgroundJobs.
 */
export function createBlogrollContext(
  options: BlogrollOptions,
  host: HostLink,
  getStorage: () => Promise<Storage>,
  log: Logger,
): BlogrollContext {
  const getMicrosub = () => detectMicrosub(host.collections());
  // Inside Indiekit push callbacks go to the host's address, read late (the host may learn it from its first request).
  const push = new PushManager({ options, getStorage, publicUrl: () => host.publicUrl(), log });
  const firstReads = new FirstReads();
  const runSync = createScheduledRun(
    {
      options,
      firstReads,
      refreshSources: async (storage, signal) => {
        const counts = await refreshSources(storage, options, getMicrosub(), signal);
        // A source may have dropped pushed blogs: their hubs are told now, not at their next renewal.
        push.reconcileSoon();
        return counts;
      },
      log: (message) => log.warn(message),
      onFeedRead: push.observe,
      pushSignal: push,
    },
    (message, error) => log.error(message, error),
  );
  const scheduler = new Scheduler({
    getStorage,
    run: runSync,
    interval: options.syncInterval,
    initialDelay: options.initialSyncDelay,
    log: (message) => log.warn(message),
  });
  return {
    options,
    getStorage,
    getMicrosub,
    scheduler,
    firstReads,
    push,
    live: new LiveHub({ options, getStorage, log }),
    changes: new LogClock({ getStorage, log }),
    log,
    owner: () => {
      const publication = host.publication();
      return blogrollOwner(publication?.me, options, [publication?.locale, host.application()?.locale]);
    },
  };
}

/** Starts the timed sync and push's renewals (the `scheduler` option off: neither runs). */
export function startBackgroundJobs(context: BlogrollContext): void {
  context.scheduler.start();
  context.push.start();
}

/** Stops the scheduler (aborting a run), push, live streams, reading the live event log and the feed parse workers. */
export async function stopBackgroundJobs(context: BlogrollContext): Promise<void> {
  await context.scheduler.stop();
  await context.push.stop();
  context.live.stop();
  context.changes.stop();
  await closeParsePool();
}
