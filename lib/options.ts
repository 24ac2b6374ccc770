/** Plugin options: defaults and validation, in one place. */

export interface BlogrollOptions {
  /** Where the plugin's routes are mounted in the host. */
  mountPath: string;
  /** Milliseconds between the scheduler's looks for blogs that are due (each blog has its own schedule). */
  syncInterval: number;
  /** Shortest time between two scheduled fetches of one blog, in milliseconds. */
  minFetchInterval: number;
  /** Longest time between two scheduled fetches of one blog, in milliseconds (also caps what a server may ask). */
  maxFetchInterval: number;
  /** Days without a post after which a blog counts as dormant. */
  dormantAfterDays: number;
  /** Delay before the first sync after start, in milliseconds. */
  initialSyncDelay: number;
  /** Items kept per blog (newest first). */
  maxItemsPerBlog: number;
  /** Days an item is kept. */
  maxItemAge: number;
  /** Milliseconds one outbound request may take, body included. */
  fetchTimeout: number;
  /** Largest response body accepted (decompressed), in bytes. */
  maxBodySize: number;
  /** Parallel fetches during a sync. */
  concurrency: number;
  /** Parallel fetches to one host. */
  perHostConcurrency: number;
  /** Lets outbound requests reach loopback and private addresses. */
  allowPrivateNetworks: boolean;
  /** `Access-Control-Allow-Origin` on public responses; empty string disables CORS. */
  cors: string;
  /** `Cache-Control: max-age` of public GET responses, in seconds. */
  cacheMaxAge: number;
  /** MongoDB connection string, used when the host has no database. */
  mongodbUrl: string | null;
  /** SQLite file used when there is no MongoDB. */
  databasePath: string;
  /** Starts the scheduler on init. */
  scheduler: boolean;
  /** Title of the river feeds (`river.atom`, `river.json`, `river.rss`). */
  riverTitle: string;
  /** Description (subtitle) of the river feeds. */
  riverDescription: string;
  /** The web page the river feeds name as their home (an absolute http(s) URL); the site's root when null. */
  riverHomePageUrl: string | null;
  /** Serves the public blogroll at `/.well-known/recommendations.opml` and `.json`. */
  wellKnown: boolean;
  /**
   * The address at which this server is reachable from outside (an absolute
   * http(s) URL). Standalone it also names the blogroll's owner; inside
   * Indiekit the owner is the publication (`publication.me`). WebSub hubs
   * and rssCloud servers call back under it (the mount path added); inside
   * Indiekit the host's `application.url` serves when it is null.
   */
  publicUrl: string | null;
  /** The owner's name in the OPML export (`ownerName`); the host name of the owner's site when null. */
  ownerName: string | null;
  /** Subscribes to blogs' WebSub hubs and rssCloud servers. */
  push: boolean;
  /** Suggestions list feeds that at least this many of the followed blogs' own blogrolls recommend. */
  minRecommenders: number;
  /**
   * The language of the public blogroll page (a BCP 47 tag such as "de"):
   * its few words, its dates and its natural order. When null: Indiekit's
   * `publication.locale`, else its `application.locale`, else English.
   */
  locale: string | null;
  /** Serves live updates (Server-Sent Events) at `{mountPath}/api/events`. */
  live: boolean;
  /** Live connections held at once; more are answered 503 with Retry-After. */
  liveMaxConnections: number;
  /** Live connections held at once for one client address (an IPv6 client: its /64 network). */
  liveMaxPerAddress: number;
  /** Milliseconds between the comments that keep an idle live connection open through proxies. */
  liveKeepAlive: number;
}

export const defaultOptions: BlogrollOptions = {
  mountPath: "/blogrollapi",
  syncInterval: 60_000,
  minFetchInterval: 900_000,
  maxFetchInterval: 86_400_000,
  dormantAfterDays: 180,
  initialSyncDelay: 15_000,
  maxItemsPerBlog: 50,
  maxItemAge: 7,
  fetchTimeout: 15_000,
  maxBodySize: 5 * 1024 * 1024,
  concurrency: 16,
  perHostConcurrency: 2,
  allowPrivateNetworks: false,
  cors: "*",
  cacheMaxAge: 300,
  mongodbUrl: null,
  databasePath: "data/blogroll.db",
  scheduler: true,
  riverTitle: "Blogroll",
  riverDescription: "The newest posts of the blogs in this blogroll",
  riverHomePageUrl: null,
  wellKnown: true,
  publicUrl: null,
  ownerName: null,
  push: true,
  minRecommenders: 2,
  locale: null,
  live: true,
  liveMaxConnections: 1000,
  liveMaxPerAddress: 8,
  liveKeepAlive: 25_000,
};

export class OptionsError extends Error {
  constructor(message: string) {
    super(`indiekit-endpoint-blogroll: ${message}`);
    this.name = "OptionsError";
  }
}

type NumericKey = {
  [K in keyof BlogrollOptions]: BlogrollOptions[K] extends number ? K : never;
}[keyof BlogrollOptions];

/** Smallest accepted value of each numeric option. */
const minimums: Record<NumericKey, number> = {
  syncInterval: 1000,
  minFetchInterval: 1000,
  maxFetchInterval: 1000,
  dormantAfterDays: 1,
  initialSyncDelay: 0,
  maxItemsPerBlog: 1,
  maxItemAge: 1,
  fetchTimeout: 100,
  maxBodySize: 1024,
  concurrency: 1,
  perHostConcurrency: 1,
  cacheMaxAge: 0,
  minRecommenders: 1,
  liveMaxConnections: 1,
  liveMaxPerAddress: 1,
  liveKeepAlive: 1000,
};

/** Longest delay a Node timer honours (≈24.8 days): above it Node fires after 1 ms instead. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** Largest accepted value of the duration options (a larger one is a start-up error, never a 1 ms timer). */
const maximums: Partial<Record<NumericKey, number>> = {
  syncInterval: MAX_TIMER_DELAY,
  minFetchInterval: MAX_TIMER_DELAY,
  maxFetchInterval: MAX_TIMER_DELAY,
  // Days; 100 years, like maxItemAge.
  dormantAfterDays: 36_500,
  initialSyncDelay: MAX_TIMER_DELAY,
  fetchTimeout: MAX_TIMER_DELAY,
  // Days; 100 years keeps the retention cutoff a real date.
  maxItemAge: 36_500,
  // Seconds; a year is the longest cache lifetime HTTP caches honour.
  cacheMaxAge: 31_536_000,
  liveKeepAlive: MAX_TIMER_DELAY,
};

/** Merges user options over the defaults and throws an OptionsError on anything invalid. */
export function resolveOptions(input: unknown = {}): BlogrollOptions {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new OptionsError("options must be an object");
  }
  const given = input as Record<string, unknown>;
  const options: BlogrollOptions = { ...defaultOptions };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined || !(key in defaultOptions)) continue;
    (options as unknown as Record<string, unknown>)[key] = value;
  }

  for (const key of Object.keys(minimums) as NumericKey[]) {
    const value = options[key];
    const max = maximums[key] ?? Number.MAX_SAFE_INTEGER;
    if (typeof value !== "number" || !Number.isFinite(value) || value < minimums[key] || value > max) {
      const range = maximums[key] === undefined ? `of at least ${minimums[key]}` : `from ${minimums[key]} to ${max}`;
      throw new OptionsError(`option "${key}" must be a number ${range} (got ${JSON.stringify(value)})`);
    }
  }
  for (const key of ["maxItemsPerBlog", "concurrency", "perHostConcurrency", "minRecommenders", "liveMaxConnections", "liveMaxPerAddress"] as const) {
    if (!Number.isInteger(options[key])) throw new OptionsError(`option "${key}" must be an integer`);
  }
  if (options.maxFetchInterval < options.minFetchInterval) {
    throw new OptionsError(
      `option "maxFetchInterval" must be at least minFetchInterval (${options.minFetchInterval}) (got ${options.maxFetchInterval})`,
    );
  }
  if (typeof options.mountPath !== "string" || !/^\/[^\s?#]*$/.test(options.mountPath) || options.mountPath === "/") {
    throw new OptionsError(`option "mountPath" must be an absolute path such as "/blogrollapi" (got ${JSON.stringify(options.mountPath)})`);
  }
  options.mountPath = options.mountPath.replace(/\/+$/, "");
  for (const key of ["allowPrivateNetworks", "scheduler", "wellKnown", "push", "live"] as const) {
    if (typeof options[key] !== "boolean") throw new OptionsError(`option "${key}" must be true or false`);
  }
  if (typeof options.cors !== "string") throw new OptionsError('option "cors" must be a string');
  if (options.mongodbUrl !== null && (typeof options.mongodbUrl !== "string" || !/^mongodb(\+srv)?:\/\//.test(options.mongodbUrl))) {
    throw new OptionsError('option "mongodbUrl" must be a mongodb:// or mongodb+srv:// URL');
  }
  for (const key of ["riverTitle", "riverDescription"] as const) {
    if (typeof options[key] !== "string" || options[key].trim() === "") throw new OptionsError(`option "${key}" must be a non-empty string`);
  }
  if (options.riverHomePageUrl !== null && !isHttpUrl(options.riverHomePageUrl)) {
    throw new OptionsError('option "riverHomePageUrl" must be an absolute http(s) URL');
  }
  if (options.publicUrl !== null && !isHttpUrl(options.publicUrl)) {
    throw new OptionsError('option "publicUrl" must be an absolute http(s) URL');
  }
  if (options.ownerName !== null && (typeof options.ownerName !== "string" || options.ownerName.trim() === "")) {
    throw new OptionsError('option "ownerName" must be a non-empty string');
  }
  if (options.locale !== null && !isLanguageTag(options.locale)) {
    throw new OptionsError(`option "locale" must be a language tag such as "de" or "pt-BR" (got ${JSON.stringify(options.locale)})`);
  }
  if (typeof options.databasePath !== "string" || options.databasePath === "") {
    throw new OptionsError('option "databasePath" must be a file path');
  }
  return options;
}

/** The options as the host may show them: unset ones left out, a MongoDB URL without its credentials. */
export function displayedOptions(options: BlogrollOptions): Partial<BlogrollOptions> {
  const shown: Partial<BlogrollOptions> = {};
  for (const [key, value] of Object.entries(options) as Array<[keyof BlogrollOptions, unknown]>) {
    if (value === null || value === undefined) continue;
    (shown as Record<string, unknown>)[key] = key === "mongodbUrl" ? withoutCredentials(String(value)) : value;
  }
  return shown;
}

function withoutCredentials(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/]*@/, "$1");
}

function isLanguageTag(value: unknown): boolean {
  if (typeof value !== "string" || value === "") return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
