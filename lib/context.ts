import type { BlogrollOptions } from "./options.js";
import type { Storage } from "./storage/types.js";
import type { MicrosubStore } from "./microsub/types.js";
import type { Scheduler } from "./sync/scheduler.js";
import type { BlogrollOwner } from "./owner.js";
import type { PushManager } from "./push/manager.js";
import type { LiveHub } from "./live/hub.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/** Everything a route or job needs, built once by the plugin class. */
export interface BlogrollContext {
  options: BlogrollOptions;
  getStorage(): Promise<Storage>;
  /** The Microsub plugin's data, or null while its collections are absent (checked per call). */
  getMicrosub(): MicrosubStore | null;
  scheduler: Scheduler;
  /** WebSub and rssCloud subscriptions and their callbacks. */
  push: PushManager;
  /** Live events (Server-Sent Events) of this process's clients. */
  live: LiveHub;
  log: Logger;
  /** Whose blogroll this is (read per call: the host's configuration is complete only after init). */
  owner(): BlogrollOwner;
}

/** Logs to the console with the plugin's name; causes are logged, never sent to clients. */
export const consoleLogger: Logger = {
  info: (message) => console.info(`[blogroll] ${message}`),
  warn: (message) => console.warn(`[blogroll] ${message}`),
  error: (message, error) => console.error(`[blogroll] ${message}${error instanceof Error ? `: ${error.message}` : ""}`),
};
