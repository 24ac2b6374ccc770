import express, { type Router } from "express";
import type { BlogrollContext } from "../context.js";
import { guarded } from "../api/guarded.js";
import { OPML_EXPORT_LIMIT, sendOpmlExport } from "../api/opml-export.js";
import { publicResponses, sendCacheableJson } from "../api/respond.js";
import { ghostRecommendations } from "./recommendations.js";

export const WELL_KNOWN_PATHS = { opml: "/recommendations.opml", json: "/recommendations.json" } as const;

/**
 * The public blogroll at the addresses readers and crawlers try on any site:
 * `recommendations.opml` (Micro.blog's convention; the same response as
 * `/api/opml`) and `recommendations.json` (Ghost's shape). Mounted at
 * `/.well-known/` — by Indiekit through `routesWellKnown`, by the standalone
 * server at its root. Other well-known paths fall through to the host.
 */
export function createWellKnownRouter(context: BlogrollContext): Router {
  const router = express.Router();
  for (const path of Object.values(WELL_KNOWN_PATHS)) router.use(path, publicResponses(context.options));
  router.get(
    WELL_KNOWN_PATHS.opml,
    guarded(context, { error: "Failed to export OPML" }, (request, response) =>
      sendOpmlExport(context, request, response, undefined),
    ),
  );
  router.get(
    WELL_KNOWN_PATHS.json,
    guarded(context, { error: "Failed to fetch recommendations" }, async (request, response) => {
      const storage = await context.getStorage();
      const { items } = await storage.blogs.list({
        visibility: "public",
        sort: "title",
        limit: OPML_EXPORT_LIMIT,
        offset: 0,
      });
      sendCacheableJson(request, response, context.options, ghostRecommendations(items));
    }),
  );
  return router;
}
