import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { BlogrollOptions } from "../options.js";
import { wholeSecond } from "../time/whole-second.js";
import { encodeSmallBody } from "./codings.js";

/** A strong validator from the exact bytes sent. */
export function strongEtag(body: Buffer): string {
  return `"${createHash("sha1").update(body).digest("base64url")}"`;
}

/** True when an If-None-Match header names this ETag (weak comparison, as RFC 9110 asks for GET). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}

/** Headers every public response carries, errors included: CORS for site widgets, no MIME sniffing. */
export function setPublicHeaders(response: Response, options: BlogrollOptions): void {
  if (options.cors) {
    response.set("Access-Control-Allow-Origin", options.cors);
    if (options.cors !== "*") response.vary("Origin");
  }
  response.set("X-Content-Type-Options", "nosniff");
}

/** Middleware for public paths: their headers on every response, and the answer to a CORS preflight. */
export function publicResponses(options: BlogrollOptions) {
  return (request: Request, response: Response, next: NextFunction): void => {
    setPublicHeaders(response, options);
    if (request.method === "OPTIONS") {
      response.set("Access-Control-Allow-Methods", "GET, OPTIONS");
      // Last-Event-ID: live event clients built on fetch send it when they reconnect (EventSource itself needs no preflight).
      response.set("Access-Control-Allow-Headers", "If-None-Match, Last-Event-ID");
      response.set("Access-Control-Max-Age", "86400");
      response.status(204).end();
      return;
    }
    next();
  };
}

/**
 * True when the client's copy is current by date: only without If-None-Match,
 * which takes precedence (RFC 9110, 13.2.2).
 */
function notModifiedSince(request: Request, lastModified: Date): boolean {
  if (request.get("If-None-Match") !== undefined) return false;
  const since = Date.parse(request.get("If-Modified-Since") ?? "");
  return Number.isFinite(since) && wholeSecond(lastModified.getTime()) <= since;
}

/** True when the client already has the body of this ETag (or Last-Modified): a 304 answers it. */
export function notModified(request: Request, etag: string, lastModified?: Date): boolean {
  return (
    matchesIfNoneMatch(request.get("If-None-Match"), etag) ||
    (lastModified !== undefined && notModifiedSince(request, lastModified))
  );
}

/**
 * Sends a cacheable public success body with a strong ETag and
 * Cache-Control (and Last-Modified when given), answering 304 when the
 * client already has it. A caller that keeps the body passes its ETag too.
 */
export function sendCacheable(
  request: Request,
  response: Response,
  options: BlogrollOptions,
  body: Buffer,
  contentType: string,
  lastModified?: Date,
  etag = strongEtag(body),
): void {
  response.set("ETag", etag);
  response.set("Cache-Control", `public, max-age=${options.cacheMaxAge}`);
  if (lastModified) response.set("Last-Modified", lastModified.toUTCString());
  if (notModified(request, etag, lastModified)) {
    response.status(304).end();
    return;
  }
  // A Buffer keeps the Content-Type exactly as given (Express adds a charset to strings).
  response.status(200).setHeader("Content-Type", contentType);
  response.send(encodeSmallBody(request, response, body, etag));
}

export function sendCacheableJson(request: Request, response: Response, options: BlogrollOptions, body: unknown): void {
  sendCacheable(request, response, options, Buffer.from(JSON.stringify(body)), "application/json; charset=utf-8");
}
