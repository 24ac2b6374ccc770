import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";

/**
 * The API routes that need authentication (README: discovery fetches
 * arbitrary addresses, the webhook changes data): spec 4.8–4.10.
 */
export function createAdminApiRouter(context: BlogrollContext): Router {
  const router = express.Router();

  router.get("/api/microsub-status", async (request, response) => {
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

  return router;
}
