import { randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

type SessionLike = { blogrollCsrf?: string; access_token?: unknown };

function sessionOf(request: Request): SessionLike | undefined {
  return (request as Request & { session?: SessionLike }).session;
}

/**
 * The token of an `Authorization: Bearer …` header, read the same way by the
 * standalone login and by the CSRF check (a token may contain spaces).
 */
export function bearerToken(header: string | undefined): string | null {
  const token = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim();
  return token ? token : null;
}

/**
 * True when a Bearer token, not a session cookie, authenticated the request:
 * it carries no ambient credential, so there is no CSRF risk. Indiekit (and
 * the standalone host, which follows it) copies the Bearer token it accepted
 * into `session.access_token`; a logged-in session holds a different value
 * there, whatever Authorization header comes with it. In Indiekit's dev mode
 * every request is signed in as "development": a Bearer header (which no
 * cross-site form can send) is then taken as the credential.
 */
export function isBearerRequest(request: Request): boolean {
  const token = bearerToken(request.get("Authorization"));
  if (!token) return false;
  const held = sessionOf(request)?.access_token;
  return held === token || (held === "development" && process.env.NODE_ENV === "development");
}

/** The CSRF token of the current session, kept in the host's session (Indiekit's cookie session, or the standalone host's). */
export function csrfTokenFor(request: Request, response: Response): string | null {
  const session = sessionOf(request);
  if (!session) return null;
  session.blogrollCsrf ??= randomBytes(24).toString("base64url");
  response.locals.csrfToken = session.blogrollCsrf;
  return session.blogrollCsrf;
}

/** Makes `csrfToken` available to views on every admin request. */
export function exposeCsrfToken(request: Request, response: Response, next: NextFunction): void {
  csrfTokenFor(request, response);
  next();
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Rejects state-changing requests made with a session cookie unless they carry the session's token. */
export function requireCsrf(request: Request, response: Response, next: NextFunction): void {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" || isBearerRequest(request))
    return next();
  const expected = csrfTokenFor(request, response);
  const given =
    (typeof request.body?._csrf === "string" ? request.body._csrf : null) ?? request.get("X-CSRF-Token") ?? "";
  if (!expected || !given || !same(given, expected)) {
    response.status(403);
    if (request.accepts(["html", "json"]) === "json") response.json({ error: "Invalid CSRF token" });
    else response.type("text/plain").send("Invalid CSRF token");
    return;
  }
  next();
}
