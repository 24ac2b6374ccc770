import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { DAY } from "../time/durations.js";

/** How long a login lasts: counted from the login, not renewed by use. */
export const SESSION_TTL = 7 * DAY;

/** Logged-out sessions remembered at most (each only until it would have expired anyway). */
export const MAX_LOGOUTS = 10_000;

/** A login, shaped like Indiekit's `request.session`: the plugin keeps its CSRF token in it. */
export interface Session {
  id: string;
  /** Truthy for a logged-in session, as in Indiekit; never the admin token. */
  access_token: string;
  blogrollCsrf: string;
  expiresAt: number;
}

/** Where logouts are kept (the plugin's storage), so that a restart does not bring an ended session back. */
export interface LogoutStore {
  read(): Promise<unknown>;
  write(logouts: Record<string, number>): Promise<void>;
}

/** True when two secrets are equal, in a time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const COOKIE_FORMAT = /^([A-Za-z0-9_-]{24})\.([0-9]{1,15})\.([A-Za-z0-9_-]{43})$/;

/**
 * Standalone logins as signed cookies: `<id>.<expiry>.<HMAC-SHA256>` under a
 * key derived (HKDF) from the admin token. Nothing of a session lives only in
 * memory, so a restart keeps everyone logged in; changing the admin token
 * changes the key and ends every session at once. The CSRF token is derived
 * from the session id under the same key, so a form loaded before a restart
 * still posts. Logging out records the session id until its expiry, in
 * memory and in `store`, so a copy of the cookie is refused from then on.
 */
export class SessionKeeper {
  private readonly key: Buffer;
  private logouts: Map<string, number> | null = null;
  private loading: Promise<Map<string, number>> | null = null;

  constructor(
    adminToken: string,
    private readonly store: LogoutStore | null = null,
  ) {
    this.key = Buffer.from(
      hkdfSync("sha256", adminToken, "indiekit-endpoint-blogroll", "standalone session cookies", 32),
    );
  }

  private sign(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("base64url");
  }

  private sessionFor(id: string, expiresAt: number): Session {
    return { id, access_token: `session-${id}`, blogrollCsrf: this.sign(`csrf.${id}`), expiresAt };
  }

  /** A new login: the session and the cookie value that carries it. */
  issue(now = Date.now()): { session: Session; cookie: string } {
    const id = randomBytes(18).toString("base64url");
    const expiresAt = now + SESSION_TTL;
    return { session: this.sessionFor(id, expiresAt), cookie: `${id}.${expiresAt}.${this.sign(`${id}.${expiresAt}`)}` };
  }

  /** The session a cookie value carries: null unless well formed, signed with this key, unexpired and not logged out. */
  async read(cookie: string | null, now = Date.now()): Promise<Session | null> {
    const match = cookie ? COOKIE_FORMAT.exec(cookie) : null;
    if (!match) return null;
    const [, id, expiry, mac] = match;
    if (!sameSecret(mac, this.sign(`${id}.${expiry}`))) return null;
    const expiresAt = Number(expiry);
    if (expiresAt <= now) return null;
    if ((await this.loggedOut()).has(id)) return null;
    return this.sessionFor(id, expiresAt);
  }

  /** Ends a session for good: its cookie is refused from now on, also after a restart. */
  async end(session: Session, now = Date.now()): Promise<void> {
    const logouts = await this.loggedOut();
    for (const [id, expiresAt] of logouts) if (expiresAt <= now) logouts.delete(id);
    logouts.set(session.id, session.expiresAt);
    // Bounded: past the limit, the sessions closest to their own expiry are forgotten first.
    if (logouts.size > MAX_LOGOUTS) {
      const soonest = [...logouts].sort((a, b) => a[1] - b[1]).slice(0, logouts.size - MAX_LOGOUTS);
      for (const [id] of soonest) logouts.delete(id);
    }
    await this.store?.write(Object.fromEntries(logouts));
  }

  /** The logged-out sessions, read from the store once (again after a failed read). */
  private async loggedOut(): Promise<Map<string, number>> {
    if (this.logouts) return this.logouts;
    this.loading ??= (async () => {
      const stored = this.store ? await this.store.read() : null;
      const logouts = new Map<string, number>();
      if (stored && typeof stored === "object") {
        for (const [id, expiresAt] of Object.entries(stored))
          if (typeof expiresAt === "number") logouts.set(id, expiresAt);
      }
      return logouts;
    })();
    try {
      this.logouts = await this.loading;
      return this.logouts;
    } finally {
      this.loading = null;
    }
  }
}
