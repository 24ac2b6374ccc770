import { randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

type SessionLike = { blogrollCsrf?: string };

/** True when the request carries a Bearer token: no ambient credential, so no CSRF risk. */
export function isBearerRequest(request: Request): boolean {
  return /^Bearer\s+\S/i.test(request.get("Authorization") ?? "");
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
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" || isBearerRequest(request)) return next();
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
