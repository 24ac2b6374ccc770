import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import express, { type Request, type Response, type Router } from "express";
import proxyAddr from "proxy-addr";
import type { BlogrollContext } from "../context.js";
import type { CallbackAnswer, Inbound, PushManager } from "./manager.js";

/** Callback tokens are 32 URL-safe characters (subscriptions.ts): anything else is unknown without asking storage. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
/** `/websub/<token>` or `/rsscloud/<token>`, below where the callbacks are mounted. */
const CALLBACK_PATH = /^\/(websub|rsscloud)\/([^/]*)\/?$/;

/** A request at a callback, as plain Node objects (Express's request and response are both too). */
interface CallbackRequest {
  request: IncomingMessage;
  response: ServerResponse;
  /** The path below the callbacks' mount point, without the query. */
  path: string;
  /** The query string without its `?`. */
  search: string;
  /** The sender: the client a trusted proxy names, else the socket's peer. */
  address: string;
}

function answer(response: ServerResponse, result: CallbackAnswer): void {
  const { Connection: close, ...headers } = result.headers ?? {};
  response.statusCode = result.status;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.setHeader("Cache-Control", "no-store");
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Content-Type", "text/plain; charset=utf-8");
  // An answer before the body was read closes the connection, unless there was no body (an empty ping): it stays open.
  if (close && !response.req.complete) response.setHeader("Connection", close);
  response.end(result.body ?? "");
}

/** True when the host (Indiekit's body parsers) already read the body. */
function bodyAlreadyRead(request: IncomingMessage & { _body?: boolean; body?: unknown }): boolean {
  return request._body === true || request.readableEnded;
}

function inbound(request: IncomingMessage & { body?: unknown }, address: string): Inbound {
  const parsed = bodyAlreadyRead(request);
  return {
    header: (name) => {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    stream: parsed ? null : request,
    parsed: parsed ? request.body : undefined,
    address,
  };
}

/**
 * Answers a hub's or cloud server's request at a callback: GET to verify,
 * POST to notify. A token of the wrong form is unknown at once: 404 to a
 * verification, 410 to a notification (the hub may then stop). False when
 * the path or method is not a callback's.
 */
async function handleCallback(push: PushManager, call: CallbackRequest): Promise<boolean> {
  const match = CALLBACK_PATH.exec(call.path);
  const method = call.request.method;
  if (!match || (method !== "GET" && method !== "POST")) return false;
  const kind = match[1] as "websub" | "rsscloud";
  let token: string;
  try {
    token = decodeURIComponent(match[2]);
  } catch {
    token = "";
  }
  if (method === "GET") {
    const query = parseQuery(call.search) as Record<string, unknown>;
    answer(
      call.response,
      TOKEN.test(token) ? await push.verify(kind, token, query) : { status: 404, body: "Not found" },
    );
  } else if (!TOKEN.test(token)) {
    answer(call.response, { status: 410, body: "No such subscription", headers: { Connection: "close" } });
  } else {
    answer(call.response, await push.receive(kind, token, inbound(call.request, call.address)));
  }
  return true;
}

/** Runs handleCallback with the last resort of any route: a failure is logged and answered 500, never with a stack. */
async function guardedCallback(context: BlogrollContext & { push: PushManager }, call: CallbackRequest) {
  try {
    return await handleCallback(context.push, call);
  } catch (error) {
    context.log.error(`push callback ${call.request.method} failed`, error);
    if (!call.response.headersSent)
      answer(call.response, { status: 500, body: "Internal error", headers: { Connection: "close" } });
    return true;
  }
}

/** Splits a request URL (or Express's path below a mount point) into path and query string. */
function splitUrl(url: string): { path: string; search: string } {
  const at = url.indexOf("?");
  return at === -1 ? { path: url, search: "" } : { path: url.slice(0, at), search: url.slice(at + 1) };
}

/**
 * The callbacks hubs and cloud servers call, to be mounted at `/push` in the
 * plugin's public routes: `/push/websub/:token` and `/push/rsscloud/:token`.
 */
export function createPushRouter(context: BlogrollContext & { push: PushManager }): Router {
  const router = express.Router();
  router.use((request: Request, response: Response, next) => {
    const address = request.ip ?? request.socket.remoteAddress ?? "";
    void guardedCallback(context, { request, response, address, ...splitUrl(request.url) }).then(
      (handled) => handled || next(),
    );
  });
  return router;
}

/**
 * The same callbacks answered straight from Node's HTTP server, ahead of an
 * Express application (the standalone server): Express sets the prototype of
 * every request and response it handles, which leaves each request's garbage
 * to the old generation; a flood of notices then grows the heap by tens of
 * MB before a full collection. Here a notice costs what Node's own request
 * costs. `trust` is the application's compiled `trust proxy`, so the sender's
 * address is the one Express would give. Returns true when it answered.
 */
export function pushCallbackLane(
  context: BlogrollContext & { push: PushManager },
  mountPath: string,
  trust: (address: string, hop: number) => boolean,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const prefix = `${mountPath === "/" ? "" : mountPath}/push/`;
  return (request, response) => {
    const url = request.url ?? "";
    if (!url.startsWith(prefix)) return false;
    const { path, search } = splitUrl(url.slice(prefix.length - 1));
    if (!CALLBACK_PATH.test(path) || (request.method !== "GET" && request.method !== "POST")) return false;
    const address = proxyAddr(request, trust);
    void guardedCallback(context, { request, response, address, path, search });
    return true;
  };
}
