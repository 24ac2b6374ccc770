import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { createAdminApiRouter } from "../api/admin-routes.js";
import {
  blogController,
  deleteBlogConfirmController,
  deleteBlogController,
  updateBlogController,
} from "./blog-edit.js";
import { bulkBlogsController } from "./blog-bulk.js";
import { blogsListController } from "./blog-list.js";
import { confirmReAddController, createBlogController, newBlogController } from "./blog-new.js";
import { refreshBlogController } from "./blog-refresh.js";
import { exposeCsrfToken, requireCsrf } from "./csrf.js";
import { dashboardController } from "./dashboard.js";
import {
  createSourceController,
  editSourceController,
  newSourceController,
  updateSourceController,
} from "./source-form.js";
import {
  deleteSourceConfirmController,
  deleteSourceController,
  sourcesListController,
  syncSourceController,
  toggleSourceController,
} from "./sources.js";
import { clearResync, clearResyncConfirm, syncNow } from "./triggers.js";
import { addSuggestionController, dismissSuggestionController, suggestionsController } from "./suggestions.js";
import { adminLocals } from "./view-helpers.js";

/**
 * Admin routes, mounted by the host behind its authentication: the pages
 * (dashboard, sources, blogs), their forms, the manual sync triggers and the
 * authenticated API. Every form post made with a session carries a CSRF token.
 * (Express 5 passes a handler's rejected promise on to the error handler.)
 */
export function createAdminRouter(context: BlogrollContext): Router {
  const router = express.Router();
  // Set here, not only by the standalone host, so it holds inside Indiekit too.
  router.use((_request, response, next) => {
    response.set("X-Content-Type-Options", "nosniff");
    next();
  });
  router.use(exposeCsrfToken);
  router.use(requireCsrf);
  // Any change the owner makes may drop, hide or delete pushed blogs: their hubs are told within a second.
  router.use((request, response, next) => {
    if (request.method === "POST") response.on("finish", () => context.push.reconcileSoon());
    next();
  });
  router.use(createAdminApiRouter(context));
  router.use(adminLocals(context));

  router.get("/", dashboardController(context));
  router.post("/sync", syncNow(context));
  router.get("/clear-resync", clearResyncConfirm(context));
  router.post("/clear-resync", clearResync(context));

  router.get("/sources", sourcesListController(context));
  router.get("/sources/new", newSourceController(context));
  router.post("/sources", createSourceController(context));
  router.get("/sources/:id/edit", editSourceController(context));
  router.post("/sources/:id", updateSourceController(context));
  router.post("/sources/:id/toggle", toggleSourceController(context));
  router.post("/sources/:id/sync", syncSourceController(context));
  router.get("/sources/:id/delete", deleteSourceConfirmController(context));
  router.post("/sources/:id/delete", deleteSourceController(context));

  router.get("/suggestions", suggestionsController(context));
  router.post("/suggestions/add", addSuggestionController(context));
  router.post("/suggestions/dismiss", dismissSuggestionController(context));

  router.get("/blogs", blogsListController(context));
  router.get("/blogs/new", newBlogController(context));
  router.post("/blogs", createBlogController(context));
  router.post("/blogs/bulk", bulkBlogsController(context));
  router.get("/blogs/:id", blogController(context));
  router.post("/blogs/:id", updateBlogController(context));
  router.post("/blogs/:id/refresh", refreshBlogController(context));
  router.post("/blogs/:id/readd", confirmReAddController(context));
  router.get("/blogs/:id/delete", deleteBlogConfirmController(context));
  router.post("/blogs/:id/delete", deleteBlogController(context));

  return router;
}
