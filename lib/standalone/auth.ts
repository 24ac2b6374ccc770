import type { NextFunction, Request, Response } from "express";
import { bearerToken } from "../admin/csrf.js";
import { sameSecret, SessionKeeper, type LogoutStore, type Session } from "./sessions.js";
import { MINUTE, SECOND } from "../time/durations.js";

export type { Session } from "./sessions.js";
export const SESSION_COOKIE = "blogroll_session";

/** Shortest admin token accepted: a guessable one would make the login the weakest link. */
export const MIN_TOKEN_LENGTH = 16;
/** Failed attempts (login form or Bearer token) one client may make per window before it must wait. */
const MAX_FAILURES = 10;
const FAILURE_WINDOW = 15 * MINUTE;
/** Clients tracked at most; the oldest windows go first, so a flood of addresses cannot grow memory. */
const MAX_TRACKED_CLIENTS = 10_000;

/** Reads one cookie without a cookie-parser dependency; a value that is not valid percent-encoding is no cookie. */
export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.get("Cookie") ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * The standalone host's authentication: a Bearer token (scripts) or a
 * session cookie set by the login form (people), signed under a key derived
 * from the admin token (sessions.ts): logins outlive a restart.
 * Failed attempts are counted per client address: after MAX_FAILURES in a
 * window the client must wait for the window to end (429).
 */
export class Authenticator {
  private readonly sessions: SessionKeeper;
  private readonly failures = new Map<string, { count: number; until: number }>();

  /**
   * `logouts`: where ended sessions are remembered across restarts.
   * @throws Error when the token is shorter than MIN_TOKEN_LENGTH.
   */
  constructor(
    readonly adminToken: string,
    logouts: LogoutStore | null = null,
  ) {
    if (adminToken.length < MIN_TOKEN_LENGTH) {
      throw new Error(`the admin token (BLOGROLL_ADMIN_TOKEN) must be at least ${MIN_TOKEN_LENGTH} characters long`);
    }
    // A header's value is read trimmed: a token starting or ending with white space could never be sent.
    if (adminToken !== adminToken.trim() || /[\r\n]/.test(adminToken)) {
      throw new Error(
        "the admin token (BLOGROLL_ADMIN_TOKEN) must not start or end with white space or hold a line break",
      );
    }
    this.sessions = new SessionKeeper(adminToken, logouts);
  }

  checkToken(token: string): boolean {
    return sameSecret(token, this.adminToken);
  }

  /** Seconds the client must wait before its next attempt (0: it may try now). */
  retryAfter(client: string): number {
    const entry = this.failures.get(client);
    if (!entry) return 0;
    const left = entry.until - Date.now();
    if (left <= 0) {
      this.failures.delete(client);
      return 0;
    }
    return entry.count >= MAX_FAILURES ? Math.ceil(left / SECOND) : 0;
  }

  /** Checks a token given by a client, counting failures; a client that must wait is refused without a check. */
  attempt(client: string, token: string): "ok" | "wrong" | "throttled" {
    if (this.retryAfter(client) > 0) return "throttled";
    if (this.checkToken(token)) return "ok";
    const entry = this.failures.get(client);
    if (entry) {
      entry.count++;
    } else {
      if (this.failures.size >= MAX_TRACKED_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
      this.failures.set(client, { count: 1, until: Date.now() + FAILURE_WINDOW });
    }
    return "wrong";
  }

  /** A new login: the session and the value of its cookie. */
  createSession(): { session: Session; cookie: string } {
    return this.sessions.issue();
  }

  /** Logs a session out for good (its cookie is refused from now on, also after a restart). */
  endSession(session: Session): Promise<void> {
    return this.sessions.end(session);
  }

  sessionOf(request: Request): Promise<Session | null> {
    return this.sessions.read(readCookie(request, SESSION_COOKIE));
  }

  /**
   * Lets a request through with a valid Bearer token or session, and sets
   * `request.session` as Indiekit does: the login's session, or for a Bearer
   * request one holding that token as `access_token`, so the plugin's CSRF
   * check treats both hosts alike.
   */
  middleware(loginPath: string) {
    return async (request: Request, response: Response, next: NextFunction) => {
      const bearer = bearerToken(request.get("Authorization"));
      if (bearer) {
        const outcome = this.attempt(clientOf(request), bearer);
        if (outcome === "ok") {
          (request as Request & { session?: unknown }).session = { access_token: bearer };
          return next();
        }
        if (outcome === "throttled") return tooManyAttempts(response, this.retryAfter(clientOf(request)));
      }
      const session = await this.sessionOf(request);
      if (session) {
        (request as Request & { session?: unknown }).session = session;
        return next();
      }
      if (request.method === "GET" && request.accepts(["html", "json"]) === "html") {
        return response.redirect(`${loginPath}?redirect=${encodeURIComponent(request.originalUrl)}`);
      }
      response.status(401).json({ error: "Authentication required" });
    };
  }
}

/** The address failed attempts are counted by: the socket's peer, or with `trustProxy` the client a trusted proxy names. */
export function clientOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? "";
}

function tooManyAttempts(response: Response, seconds: number): void {
  response.set("Retry-After", String(seconds)).status(429).json({ error: "Too many failed attempts" });
}
