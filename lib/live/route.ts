import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { addressKey } from "./admission.js";
import { parseLastEventId } from "./frames.js";

export const EVENTS_PATH = "/api/events";
/** Seconds a client turned away is asked to wait. */
const BUSY_RETRY_AFTER = 30;

/**
 * GET {mountPath}/api/events: the public blogroll's live events as
 * Server-Sent Events (see hub.ts). Mounted under /api, so it has the API's
 * CORS; `Cache-Control: no-transform` also keeps compression middleware
 * (Indiekit's) from buffering the stream.
 */
export function createLiveRouter(context: BlogrollContext): Router {
  const router = express.Router();
  const hub = context.live;
  router.get(EVENTS_PATH, (request, response) => {
    const key = addressKey(request.ip ?? request.socket.remoteAddress ?? "");
    if (!hub.accepting || !hub.admission.take(key)) {
      response.set("Retry-After", String(BUSY_RETRY_AFTER)).status(503).json({ error: "Too many live connections" });
      return;
    }
    response.status(200);
    // setHeader, not Express's set(): that adds a charset (event streams are UTF-8 by definition).
    response.setHeader("Content-Type", "text/event-stream");
    response.setHeader("Cache-Control", "no-cache, no-transform");
    response.setHeader("X-Accel-Buffering", "no");
    if (request.method === "HEAD") {
      hub.admission.release(key);
      response.end();
      return;
    }
    response.flushHeaders();
    // This route answers: the routers' way on is never taken, and holds each router's state for this
    // request. A stream stays open for hours, so it lets go of it (a thousand streams, a megabyte).
    request.next = undefined;
    // The header is what a browser sends when it reconnects; the query serves clients that cannot set it.
    const lastEventId = parseLastEventId(request.get("Last-Event-ID") ?? request.query.lastEventId);
    void hub.serve(response, key, lastEventId);
  });
  return router;
}
