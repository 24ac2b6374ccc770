import type { Router } from "express";
import { displayedOptions, hostEnvironmentDefaults, resolveOptions, type BlogrollOptions } from "./lib/options.js";
import { packageRoot } from "./lib/package-root.js";
import {
  consoleLogger,
  createBlogrollContext,
  startBackgroundJobs,
  stopBackgroundJobs,
  type BlogrollContext,
  type Logger,
} from "./lib/context.js";
import { HostLink, type IndiekitHost } from "./lib/host/indiekit-host.js";
import { holdExitWhileStopping } from "./lib/host/exit-guard.js";
import { StorageOnFirstUse } from "./lib/storage/on-first-use.js";
import type { Storage } from "./lib/storage/types.js";
import { createPublicApiRouter } from "./lib/api/public-routes.js";
import { createAdminRouter } from "./lib/admin/router.js";
import { createWellKnownRouter } from "./lib/well-known/routes.js";
import { mountWellKnownFirst } from "./lib/well-known/mount-first.js";
import { createPageResponder, type PageResponder } from "./lib/page/routes.js";

export type { BlogrollOptions } from "./lib/options.js";
export type { IndiekitHost } from "./lib/host/indiekit-host.js";

/**
 * Indiekit endpoint plugin: a blogroll aggregated from OPML, FeedLand,
 * Microsub and manual entries, served as a public JSON API and managed
 * from admin pages inside the host. The parts are built in lib/context.ts.
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
  private readonly host = new HostLink();
  private readonly storage: StorageOnFirstUse;
  private removeExitGuard: (() => void) | null = null;
  private publicRouter: Router | null = null;
  private adminRouter: Router | null = null;
  private wellKnownRouter: Router | null = null;
  /** True once the well-known routes were put in front of the host's other endpoints (lib/well-known/mount-first.ts). */
  private wellKnownInFront = false;

  constructor(options: Partial<BlogrollOptions> & Record<string, unknown> = {}, log: Logger = consoleLogger) {
    this.settings = resolveOptions({ ...hostEnvironmentDefaults(process.env), ...options });
    const { mongodbUrl, databasePath } = this.settings;
    this.storage = new StorageOnFirstUse(() => ({
      hostCollections: this.host.collections(),
      mongodbUrl,
      databasePath,
    }));
    this.context = createBlogrollContext(this.settings, this.host, () => this.getStorage(), log);
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
    this.host.attach(Indiekit, this);
    if (this.settings.wellKnown) {
      this.wellKnownInFront = mountWellKnownFirst(
        Indiekit.endpoints,
        `${this.name}: well-known files`,
        this.wellKnownRoutes(),
      );
    }
    // The host connects its database before plugins start, so the choice is known now.
    this.context.log.info(`data: ${this.describeStorage()}`);
    if (this.settings.scheduler) startBackgroundJobs(this.context);
    this.removeExitGuard?.();
    // A running sync hands back its lease before the process exits.
    this.removeExitGuard = holdExitWhileStopping(() => this.context.scheduler.stopNow().then(() => this.destroy()));
  }

  /** Stops the scheduler (aborting a run), the feed parse workers and storage this plugin opened. */
  async destroy(): Promise<void> {
    this.removeExitGuard?.();
    this.removeExitGuard = null;
    await stopBackgroundJobs(this.context);
    await this.storage.close();
  }

  private wellKnownRoutes(): Router {
    this.wellKnownRouter ??= createWellKnownRouter(this.context);
    return this.wellKnownRouter;
  }

  /** Where storage will live, for start-up messages. */
  describeStorage(): string {
    return this.storage.describe();
  }

  /** Storage is opened on first use: the host may connect its database after init. */
  getStorage(): Promise<Storage> {
    return this.storage.get();
  }
}
