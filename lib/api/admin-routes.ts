import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { discoverFeeds } from "../discovery/discover.js";
import { handleMicrosubWebhook } from "../microsub/webhook.js";
import { guarded } from "./guarded.js";
import { readOwnerStatus } from "./status.js";

/**
 * The API routes that need authentication (README: discovery fetches
 * arbitrary addresses, the webhook changes data): spec 4.8–4.10, and the
 * owner's status.
 */
export function createAdminApiRouter(context: BlogrollContext): Router {
  const router = express.Router();

  router.get("/api/microsub-status", async (_request, response) => {
    try {
      if (!context.getMicrosub()) {
        response.json({ available: false, message: "Microsub plugin not installed or collections not available" });
        return;
      }
      const storage = await context.getStorage();
      response.json({ available: true, blogs: await storage.blogs.count({ sourcePrefix: "microsub" }) });
    } catch (error) {
      context.log.error("GET /api/microsub-status failed", error);
      response.status(500).json({ available: false, error: error instanceof Error ? error.message : String(error) });
    }
  });

  // The owner's figures beside the public status record: hidden and gone blogs, freshness and health.
  router.get(
    "/api/owner-status",
    guarded(context, { error: "Failed to fetch status" }, async (_request, response) => {
      response.set("Cache-Control", "no-store").json(await readOwnerStatus(context));
    }),
  );

  router.get(
    "/api/discover",
    guarded(context, { error: "Failed to discover feeds" }, async (request, response) => {
      // A GET carries the owner's SameSite=Lax cookie when another site links or redirects here: a page
      // the owner visits could make the server fetch and parse addresses. Browsers say where a request
      // came from; only the owner's own pages (or scripts, which send no such header) may ask.
      if (isCrossSite(request.get("Sec-Fetch-Site"))) {
        response.status(403).json({ error: "Cross-site request refused" });
        return;
      }
      const url = request.query.url;
      if (typeof url !== "string" || url.trim() === "") {
        response.status(400).json({ error: "URL parameter required" });
        return;
      }
      // A client that goes away stops the fetches it started.
      const abort = new AbortController();
      response.on("close", () => abort.abort());
      response.json(await discoverFeeds(url, context.options, abort.signal));
    }),
  );

  router.post(
    "/api/microsub-webhook",
    guarded(context, { ok: false, error: "Webhook processing failed" }, async (request, response) => {
      const microsub = context.getMicrosub();
      if (!microsub) {
        response.status(503).json({ ok: false, error: "Microsub integration not available" });
        return;
      }
      const storage = await context.getStorage();
      const result = await handleMicrosubWebhook(storage, request.body, microsub);
      response.status(result.status).json(result.body);
    }),
  );

  return router;
}

/** `Sec-Fetch-Site` of a request started by another site (a sibling subdomain counts: it may be someone else's). */
function isCrossSite(secFetchSite: string | undefined): boolean {
  return secFetchSite === "cross-site" || secFetchSite === "same-site";
}
