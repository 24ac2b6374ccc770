import { randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

export const SESSION_COOKIE = "blogroll_session";
const SESSION_TTL = 7 * 24 * 3600 * 1000;

/** Reads one cookie without a cookie-parser dependency. */
export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.get("Cookie") ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim());
  }
  return null;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A login, shaped like Indiekit's `request.session`: the plugin keeps its CSRF token in it. */
export interface Session {
  id: string;
  /** Truthy for a logged-in session, as in Indiekit; never the admin token. */
  access_token: string;
  blogrollCsrf: string;
  expiresAt: number;
}

/**
 * The standalone host's authentication: a Bearer token (scripts) or a
 * session cookie set by the login form (people). Sessions live in memory.
 */
export class Authenticator {
  private readonly sessions = new Map<string, Session>();

  constructor(readonly adminToken: string) {}

  checkToken(token: string): boolean {
    return sameSecret(token, this.adminToken);
  }

  createSession(): Session {
    const id = randomBytes(24).toString("base64url");
    const session = { id, access_token: `session-${id}`, blogrollCsrf: randomBytes(24).toString("base64url"), expiresAt: Date.now() + SESSION_TTL };
    this.sessions.set(session.id, session);
    return session;
  }

  endSession(id: string | null): void {
    if (id) this.sessions.delete(id);
  }

  sessionOf(request: Request): Session | null {
    const id = readCookie(request, SESSION_COOKIE);
    const session = id ? this.sessions.get(id) : undefined;
    if (!session) return null;
    if (session.expiresAt < Date.now()) {
      this.sessions.delete(session.id);
      return null;
    }
    return session;
  }

  /**
   * Lets a request through with a valid Bearer token or session, and sets
   * `request.session` as Indiekit does: the login's session, or for a Bearer
   * request one holding that token as `access_token`, so the plugin's CSRF
   * check treats both hosts alike.
   */
  middleware(loginPath: string) {
    return (request: Request, response: Response, next: NextFunction) => {
      const header = request.get("Authorization") ?? "";
      const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
      if (bearer && this.checkToken(bearer)) {
        (request as Request & { session?: unknown }).session = { access_token: bearer };
        return next();
      }
      const session = this.sessionOf(request);
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
