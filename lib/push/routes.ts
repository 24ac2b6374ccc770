import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import type { CallbackAnswer, Inbound, PushManager } from "./manager.js";

/** Callback tokens are 32 URL-safe characters (subscriptions.ts): anything else is unknown without asking storage. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const KINDS = ["websub", "rsscloud"] as const;

function answer(response: Response, result: CallbackAnswer): void {
  response
    .status(result.status)
    .set("Cache-Control", "no-store")
    .set(result.headers ?? {})
    .type("text/plain; charset=utf-8")
    .send(result.body ?? "");
}

/** True when the host (Indiekit's body parsers) already read the body. */
function bodyAlreadyRead(request: Request): boolean {
  return (request as Request & { _body?: boolean })._body === true || request.readableEnded;
}

function inbound(request: Request): Inbound {
  const parsed = bodyAlreadyRead(request);
  return {
    header: (name) => request.get(name),
    stream: parsed ? null : request,
    parsed: parsed ? request.body : undefined,
    address: request.ip ?? request.socket.remoteAddress ?? "",
  };
}

/**
 * The callbacks hubs and cloud servers call, under the plugin's public
 * routes: `/push/websub/:token` and `/push/rsscloud/:token` (GET to verify,
 * POST to notify). A token of the wrong form is unknown at once: 404 to a
 * verification, 410 to a notification (the hub may then stop).
 */
export function createPushRouter(context: BlogrollContext & { push: PushManager }): Router {
  const router = express.Router();
  const { push } = context;

  const guarded =
    (handler: (request: Request, response: Response) => Promise<void>) =>
    async (request: Request, response: Response) => {
      try {
        await handler(request, response);
      } catch (error) {
        context.log.error(`push callback ${request.method} failed`, error);
        if (!response.headersSent)
          answer(response, { status: 500, body: "Internal error", headers: { Connection: "close" } });
      }
    };

  for (const kind of KINDS) {
    router.get(
      `/push/${kind}/:token`,
      guarded(async (request, response) => {
        const token = String(request.params.token);
        answer(
          response,
          TOKEN.test(token)
            ? await push.verify(kind, token, request.query as Record<string, unknown>)
            : { status: 404, body: "Not found" },
        );
      }),
    );
    router.post(
      `/push/${kind}/:token`,
      guarded(async (request, response) => {
        const token = String(request.params.token);
        if (!TOKEN.test(token))
          return answer(response, { status: 410, body: "No such subscription", headers: { Connection: "close" } });
        answer(response, await push.receive(kind, token, inbound(request)));
      }),
    );
  }
  return router;
}
