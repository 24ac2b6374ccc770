import { randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

type SessionLike = { blogrollCsrf?: string; access_token?: unknown; token?: unknown };

/**
 * True when a Bearer token, not a session, authenticated the request: it
 * carries no ambient credential, so there is no CSRF risk. A request that a
 * session authenticates is checked whatever Authorization header comes with
 * it: the standalone host says which one it used (`locals.authMethod`);
 * Indiekit lets a logged-in session (`access_token`) through before it looks
 * at a Bearer token, so a session that is logged in counts as the credential.
 */
export function isBearerRequest(request: Request, response: Response): boolean {
  if (!/^Bearer\s+\S/i.test(request.get("Authorization") ?? "")) return false;
  const method = response.locals.authMethod;
  if (method === "bearer" || method === "session") return method === "bearer";
  const session = (request as Request & { session?: SessionLike }).session;
  return !(session?.access_token || session?.token);
}

/**
 * The CSRF token of the current session: the standalone host provides one
 * per login; inside Indiekit it is kept in the host's express-session.
 */
export function csrfTokenFor(request: Request, response: Response): string | null {
  if (typeof response.locals.csrfToken === "string") return response.locals.csrfToken;
  const session = (request as Request & { session?: SessionLike }).session;
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
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" || isBearerRequest(request, response)) return next();
  const expected = csrfTokenFor(request, response);
  const given = (typeof request.body?._csrf === "string" ? request.body._csrf : null) ?? request.get("X-CSRF-Token") ?? "";
  if (!expected || !given || !same(given, expected)) {
    response.status(403);
    if (request.accepts(["html", "json"]) === "json") response.json({ error: "Invalid CSRF token" });
    else response.type("text/plain").send("Invalid CSRF token");
    return;
  }
  next();
}
