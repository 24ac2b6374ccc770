import type { Request, Response } from "express";
import type BlogrollEndpoint from "../../index.js";
import { RIVER_PATHS } from "../river/routes.js";
import { WIDGET_PATH } from "../widget/route.js";

/**
 * GET / of the standalone server: the public blogroll, shown by the widget
 * itself (blogs and river), with the river feeds and the OPML export linked
 * and announced as alternates. The admin stays at the mount path.
 */
export function homePage(plugin: BlogrollEndpoint) {
  const mount = plugin.mountPath;
  return (_request: Request, response: Response) => {
    const { application, __ } = response.locals;
    response.render("home", {
      // Visitors land here: the header's one link says where the admin is.
      application: { ...application, navigation: [{ href: mount, text: __("blogroll.home.admin") }] },
      title: plugin.settings.riverTitle,
      widget: `${mount}${WIDGET_PATH}`,
      feeds: { atom: `${mount}${RIVER_PATHS.atom}`, json: `${mount}${RIVER_PATHS.json}`, opml: `${mount}/api/opml` },
    });
  };
}
