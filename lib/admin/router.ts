import express, { type Request, type Response, type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { exposeCsrfToken, requireCsrf } from "./csrf.js";
import { createAdminApiRouter } from "../api/admin-routes.js";
import { dashboardController } from "./dashboard.js";
import { readStatus } from "../api/status.js";

/** Answers a manual trigger: 202 with the status record for JSON clients, a redirect back for forms. */
async function accepted(context: BlogrollContext, request: Request, response: Response, back: string) {
  if (request.accepts(["html", "json"]) === "json" || request.is("application/json")) {
    response.status(202).json(await readStatus(context));
  } else {
    response.redirect(303, back);
  }
}

/** Admin routes, mounted by the host behind its authentication. */
export function createAdminRouter(context: BlogrollContext): Router {
  const router = express.Router();
  router.use(exposeCsrfToken);
  router.use(requireCsrf);
  router.use(createAdminApiRouter(context));

  router.get("/", dashboardController(context));

  router.post("/sync", async (request, response) => {
    void context.scheduler.syncNow();
    await accepted(context, request, response, request.baseUrl || "/");
  });

  router.post("/clear-resync", async (request, response) => {
    const storage = await context.getStorage();
    await storage.items.deleteAll();
    void context.scheduler.syncNow();
    await accepted(context, request, response, request.baseUrl || "/");
  });

  return router;
}
