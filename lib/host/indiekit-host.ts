import type { Collection, Db } from "mongodb";
import { COLLECTION_NAMES, databaseForMicrosub } from "../storage/open.js";

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

/**
 * The host the plugin was initialised with, read on every call: Indiekit
 * builds plugins before its configuration is complete, may connect its
 * database after init, and may learn its own address from its first request.
 * Until init (and standalone before the shim is attached) every answer is empty.
 */
export class HostLink {
  private host: IndiekitHost | null = null;

  /** Registers the endpoint with the host, asks for its collections and shares the blogs collection with Microsub. */
  attach(host: IndiekitHost, endpoint: unknown): void {
    this.host = host;
    host.addEndpoint(endpoint);
    if (typeof host.addCollection === "function") {
      for (const name of Object.values(COLLECTION_NAMES)) host.addCollection(name);
    }
    const application = this.application();
    if (application) {
      // The Microsub plugin writes follows/unfollows straight into blogrollBlogs through this: they record live events.
      application.getBlogrollDb = () => databaseForMicrosub(host.database, this.collections());
    }
  }

  /** Indiekit's application settings (address, locale, collections), or null before init. */
  application(): Record<string, unknown> | null {
    return this.host?.application ?? this.host?.config?.application ?? null;
  }

  /** The site Indiekit publishes to, or undefined when it has none (or before init). */
  publication(): { me?: unknown; locale?: unknown } | undefined {
    return this.host?.publication ?? this.host?.config?.publication;
  }

  /** The host's own address, or null while it does not know it. */
  publicUrl(): string | null {
    const url = this.application()?.url;
    return typeof url === "string" && url !== "" ? url : null;
  }

  /** The host database's collections, or null while it has none. */
  collections(): Map<string, unknown> | null {
    const fromApplication = this.application()?.collections;
    const map = this.host?.collections ?? (fromApplication instanceof Map ? fromApplication : null);
    return map && map.size > 0 ? (map as Map<string, Collection | unknown>) : null;
  }
}
