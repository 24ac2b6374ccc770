import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { FetchError } from "../http/errors.js";
import { readBody } from "../http/read-body.js";
import type { CallbackAnswer, PushManager } from "./manager.js";

/** Callback tokens are 32 URL-safe characters (manager.ts): anything else is unknown without asking storage. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
/** Notification bodies read at once, at most: beyond, hubs are asked to retry (memory stays bounded by this × maxBodySize). */
const MAX_BODIES_IN_FLIGHT = 4;

function answer(response: Response, result: CallbackAnswer): void {
  response.status(result.status).set("Cache-Control", "no-store").type("text/plain; charset=utf-8").send(result.body ?? "");
}

/** True when the host (Indiekit's or the standalone's body parsers) already read the body. */
function bodyAlreadyRead(request: Request): boolean {
  return (request as Request & { _body?: boolean })._body === true || request.readableEnded;
}

/**
 * The callbacks hubs and cloud servers call, under the plugin's public
 * routes: `/push/websub/:token` and `/push/rsscloud/:token` (GET to verify,
 * POST to notify). An unknown token is a 404 before any body is read;
 * bodies are read up to `maxBodySize`, and only a few at a time.
 */
export function createPushRouter(context: BlogrollContext & { push: PushManager }): Router {
  const router = express.Router();
  const { push, options } = context;
  let bodiesInFlight = 0;

  const guarded = (handler: (request: Request, response: Response) => Promise<void>) => async (request: Request, response: Response) => {
    try {
      await handler(request, response);
    } catch (error) {
      context.log.error(`push callback ${request.method} failed`, error);
      if (!response.headersSent) answer(response, { status: 500, body: "Internal error" });
    }
  };

  for (const kind of ["websub", "rsscloud"] as const) {
    router.get(
      `/push/${kind}/:token`,
      guarded(async (request, response) => {
        const token = String(request.params.token);
        answer(response, TOKEN.test(token) ? await push.verify(kind, token, request.query as Record<string, unknown>) : { status: 404, body: "Not found" });
      }),
    );
  }

  router.post(
    "/push/websub/:token",
    guarded(async (request, response) => {
      const token = String(request.params.token);
      if (!TOKEN.test(token) || !(await push.knows("websub", token))) return answer(response, { status: 404, body: "Not found" });
      if (bodyAlreadyRead(request)) {
        answer(response, await push.deliver(token, { signature: request.get("X-Hub-Signature"), contentType: request.get("Content-Type") ?? null, body: null }));
        return;
      }
      if (bodiesInFlight >= MAX_BODIES_IN_FLIGHT) {
        response.set("Retry-After", "30");
        return answer(response, { status: 503, body: "Busy, try again later" });
      }
      bodiesInFlight++;
      try {
        let body: Uint8Array;
        try {
          body = (await readBody(request, request.get("Content-Encoding") ?? null, options.maxBodySize)).bytes;
        } catch (error) {
          if (error instanceof FetchError && error.code === "too_large") return answer(response, { status: 413, body: "Too large" });
          return answer(response, { status: 400, body: "Unreadable body" });
        }
        answer(response, await push.deliver(token, { signature: request.get("X-Hub-Signature"), contentType: request.get("Content-Type") ?? null, body }));
      } finally {
        bodiesInFlight--;
      }
    }),
  );

  router.post(
    "/push/rsscloud/:token",
    guarded(async (request, response) => {
      const token = String(request.params.token);
      if (!TOKEN.test(token) || !(await push.knows("rsscloud", token))) return answer(response, { status: 404, body: "Not found" });
      let url: unknown = (request.body as Record<string, unknown> | undefined)?.url;
      if (url === undefined && !bodyAlreadyRead(request)) {
        // A notification is one short form field: a small cap is plenty.
        const bytes = await readBody(request, null, 8 * 1024).then((read) => read.bytes, () => null);
        if (!bytes) return answer(response, { status: 413, body: "Too large" });
        url = new URLSearchParams(Buffer.from(bytes).toString("utf8")).get("url") ?? undefined;
      }
      answer(response, await push.cloudNotify(token, url));
    }),
  );

  return router;
}
