import type { Router } from "express";
import type { Collection, Db } from "mongodb";
import { displayedOptions, hostEnvironmentDefaults, resolveOptions, type BlogrollOptions } from "./lib/options.js";
import { packageRoot } from "./lib/package-root.js";
import { COLLECTION_NAMES, describeStorageChoice, openStorage, type StorageChoice } from "./lib/storage/open.js";
import type { Storage } from "./lib/storage/types.js";
import { consoleLogger, type BlogrollContext, type Logger } from "./lib/context.js";
import { Scheduler } from "./lib/sync/scheduler.js";
import { closeParsePool } from "./lib/sync/parse-pool.js";
import { createSyncRunner } from "./lib/sync/run.js";
import { createPublicApiRouter } from "./lib/api/public-routes.js";
import { createAdminRouter } from "./lib/admin/router.js";
import { detectMicrosub } from "./lib/microsub/detect.js";
import { refreshSources } from "./lib/sources/refresh.js";
import { blogrollOwner } from "./lib/owner.js";
import { createWellKnownRouter } from "./lib/well-known/routes.js";
import { mountWellKnownFirst } from "./lib/well-known/mount-first.js";
import { recordBlogrollDates } from "./lib/api/blogroll-dates.js";
import { PushManager } from "./lib/push/manager.js";
import { createPageResponder, type PageResponder } from "./lib/page/routes.js";
import { LiveHub } from "./lib/live/hub.js";

/** The parts of an Indiekit instance this plugin uses (all optional but addEndpoint). */
export interface IndiekitHost {
  addEndpoint(endpoint: unknown): void;
  addCollection?(name: string): void;
  collections?: Map<string, unknown>;
  /** Indiekit's endpoints, a Set in the order their routes are mounted. */
  endpoints?: unknown;
  database?: Db | null;
  config?: { application?: Record<string, unknown>; publication?: { me?: unknown; locale?: unknown } };
  application?: Record<string, unknown>;
  /** The site Indiekit publishes to; `me` is its address, `locale` its language. */
  publication?: { me?: unknown; locale?: unknown };
}

export type { BlogrollOptions } from "./lib/options.js";

const EXIT_SIGNALS = ["SIGINT", "SIGTERM"] as const;
/** Longest the plugin holds back the host's exit on a signal while it stops. */
const EXIT_GRACE_MS = 5000;

/**
 * Indiekit endpoint plugin: a blogroll aggregated from OPML, FeedLand,
 * Microsub and manual entries, served as a public JSON API and managed
 * from admin pages inside the host.
 */
export default class BlogrollEndpoint {
  /** Indiekit sets both again when it loads the plugin (the id from the package name). */
  id = "indiekit-endpoint-blogroll";
  /**
   * Where Indiekit reads `views/`, `locales/`, `assets/` and `package.json`:
   * the folder of the package's main module (`dist/` once built, where the
   * build copies them; the project root when run from source).
   */
  filePath = packageRoot;
  readonly name = "Blogroll endpoint";
  /** The resolved options; `options` is what the host's plugin page may show. */
  readonly settings: BlogrollOptions;
  readonly context: BlogrollContext;
  /** Answers the blogroll page, fragment and JSON (the standalone server's home page too). */
  readonly page: PageResponder;
  private host: IndiekitHost | null = null;
  private storagePromise: Promise<Storage> | null = null;
  private publicRouter: Router | null = null;
  private adminRouter: Router | null = null;
  private wellKnownRouter: Router | null = null;
  /** True once the well-known routes were put in front of the host's other endpoints (lib/well-known/mount-first.ts). */
  private wellKnownInFront = false;

  constructor(options: Partial<BlogrollOptions> & Record<string, unknown> = {}, log: Logger = consoleLogger) {
    this.settings = resolveOptions({ ...hostEnvironmentDefaults(process.env), ...options });
    const getStorage = () => this.getStorage();
    const push = new PushManager({
      options: this.settings,
      getStorage,
      // Inside Indiekit: the host's address, read late (the host may learn it from its first request).
      publicUrl: () => {
        const url = this.application()?.url;
        return typeof url === "string" && url !== "" ? url : null;
      },
      log,
    });
    const runSync = createSyncRunner({
      options: this.settings,
      refreshSources: async (storage, signal) => {
        const counts = await refreshSources(storage, this.settings, this.context.getMicrosub(), signal);
        // A source may have dropped pushed blogs: their hubs are told now, not at their next renewal.
        push.reconcileSoon();
        return counts;
      },
      log: (message) => log.warn(message),
      onFeedRead: push.observe,
      pushSignal: push,
    });
    this.context = {
      options: this.settings,
      getStorage,
      getMicrosub: () => detectMicrosub(this.hostCollections()),
      scheduler: new Scheduler({
        getStorage,
        run: async (storage, run) => {
          const stats = await runSync(storage, run);
          // A sync may change the blogroll: the OPML export's dateModified says so now, not at its next request.
          await recordBlogrollDates(storage).catch((error: unknown) => log.error("Recording when the blogroll changed failed", error));
          return stats;
        },
        interval: this.settings.syncInterval,
        initialDelay: this.settings.initialSyncDelay,
        log: (message) => log.warn(message),
      }),
      push,
      live: new LiveHub({ options: this.settings, getStorage, log }),
      log,
      owner: () => {
        const publication = this.host?.publication ?? this.host?.config?.publication;
        return blogrollOwner(publication?.me, this.settings, [publication?.locale, this.application()?.locale]);
      },
    };
    this.page = createPageResponder(this.context);
  }

  /**
   * Indiekit's plugin page lists `plugin.options` for anyone signed in to the
   * admin: unset options are left out (its summary fails on null) and a
   * MongoDB URL shows without its credentials.
   */
  get options(): Partial<BlogrollOptions> {
    return displayedOptions(this.settings);
  }

  get mountPath(): string {
    return this.settings.mountPath;
  }

  get navigationItems() {
    return { href: this.settings.mountPath, text: "blogroll.title", iconName: "bookmark", requiresDatabase: false };
  }

  get shortcutItems() {
    return { url: this.settings.mountPath, name: "blogroll.title", iconName: "bookmark", requiresDatabase: false };
  }

  /** Admin routes: the host mounts them behind its authentication. */
  get routes(): Router {
    this.adminRouter ??= createAdminRouter(this.context);
    return this.adminRouter;
  }

  /** Public API routes: no authentication. */
  get routesPublic(): Router {
    this.publicRouter ??= createPublicApiRouter(this.context, this.page);
    return this.publicRouter;
  }

  /**
   * `/.well-known/recommendations.opml` and `.json`: the host mounts this at
   * `/.well-known/` (before authentication). Absent when `wellKnown` is off.
   */
  get routesWellKnown(): Router | undefined {
    if (!this.settings.wellKnown || this.wellKnownInFront) return undefined;
    return this.wellKnownRoutes();
  }

  /** Registers with the host, asks for its collections and starts the scheduler. */
  async init(Indiekit: IndiekitHost): Promise<void> {
    this.host = Indiekit;
    Indiekit.addEndpoint(this);
    if (this.settings.wellKnown) {
      this.wellKnownInFront = mountWellKnownFirst(Indiekit.endpoints, `${this.name}: well-known files`, this.wellKnownRoutes());
    }
    if (typeof Indiekit.addCollection === "function") {
      for (const name of Object.values(COLLECTION_NAMES)) Indiekit.addCollection(name);
    }
    // The host connects its database before plugins start, so the choice is known now.
    this.context.log.info(`data: ${this.describeStorage()}`);
    const application = this.application();
    if (application) {
      // The Microsub plugin writes follows/unfollows straight into blogrollBlogs through this.
      application.getBlogrollDb = () => (this.hostCollections()?.get(COLLECTION_NAMES.blogs) ? Indiekit.database ?? null : null);
    }
    if (this.settings.scheduler) {
      this.context.scheduler.start();
      this.context.push.start();
    }
    for (const signal of EXIT_SIGNALS) process.prependListener(signal, this.onExitSignal);
  }

  /**
   * Indiekit exits on SIGINT/SIGTERM without calling its plugins, and calls
   * `process.exit` as soon as its server has closed (a tick later, before any
   * promise of ours settles). So the plugin stops the scheduler here, first
   * handing back a running sync's lease, and holds back an exit asked for
   * meanwhile until that is done (at most EXIT_GRACE_MS). When nothing else
   * listens for the signal (ours was the only handler), it exits itself.
   */
  private readonly onExitSignal = (signal: NodeJS.Signals) => {
    const exit = process.exit;
    let exitCode: Parameters<typeof process.exit>[0] | null = null;
    process.exit = ((code?: Parameters<typeof process.exit>[0]) => {
      exitCode = code ?? process.exitCode ?? 0;
    }) as typeof process.exit;
    const stopped = this.context.scheduler
      .stopNow()
      .then(() => this.destroy())
      .catch(() => undefined);
    const grace = new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref());
    void Promise.race([stopped, grace]).then(() => {
      process.exit = exit;
      if (exitCode !== null) process.exit(exitCode);
      else if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };

  /** Stops the scheduler (aborting a run), the feed parse workers and storage this plugin opened. */
  async destroy(): Promise<void> {
    for (const signal of EXIT_SIGNALS) process.off(signal, this.onExitSignal);
    await this.context.scheduler.stop();
    await this.context.push.stop();
    this.context.live.stop();
    await closeParsePool();
    const storage = this.storagePromise;
    this.storagePromise = null;
    if (storage) await (await storage.catch(() => null))?.close();
  }

  private wellKnownRoutes(): Router {
    this.wellKnownRouter ??= createWellKnownRouter(this.context);
    return this.wellKnownRouter;
  }

  /** Where storage will live, for start-up messages. */
  describeStorage(): string {
    return describeStorageChoice(this.storageChoice());
  }

  /** Storage is opened on first use: the host may connect its database after init. */
  getStorage(): Promise<Storage> {
    if (!this.storagePromise) {
      this.storagePromise = openStorage(this.storageChoice());
      this.storagePromise.catch(() => {
        this.storagePromise = null; // let the next request try again
      });
    }
    return this.storagePromise;
  }

  private storageChoice(): StorageChoice {
    return {
      hostCollections: this.hostCollections(),
      mongodbUrl: this.settings.mongodbUrl,
      databasePath: this.settings.databasePath,
    };
  }

  private application(): Record<string, unknown> | null {
    return this.host?.application ?? this.host?.config?.application ?? null;
  }

  private hostCollections(): Map<string, unknown> | null {
    const fromApplication = this.application()?.collections;
    const map = this.host?.collections ?? (fromApplication instanceof Map ? fromApplication : null);
    return map && map.size > 0 ? (map as Map<string, Collection | unknown>) : null;
  }
}
