import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { BlogrollOptions } from "../options.js";

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

/**
 * Sends a cacheable public success body with a strong ETag and
 * Cache-Control, answering 304 when the client already has it.
 */
export function sendCacheable(
  request: Request,
  response: Response,
  options: BlogrollOptions,
  body: Buffer,
  contentType: string,
): void {
  const etag = strongEtag(body);
  response.set("ETag", etag);
  response.set("Cache-Control", `public, max-age=${options.cacheMaxAge}`);
  if (matchesIfNoneMatch(request.get("If-None-Match"), etag)) {
    response.status(304).end();
    return;
  }
  // A Buffer keeps the Content-Type exactly as given (Express adds a charset to strings).
  response.status(200).setHeader("Content-Type", contentType);
  response.send(body);
}

export function sendCacheableJson(request: Request, response: Response, options: BlogrollOptions, body: unknown): void {
  sendCacheable(request, response, options, Buffer.from(JSON.stringify(body)), "application/json; charset=utf-8");
}
