import type { Request, Response } from "express";
import type BlogrollEndpoint from "../../index.js";
import { blogrollLink, mountUrl, RIVER_PATHS } from "../api/public-urls.js";
import { WIDGET_PATH } from "../widget/route.js";

/**
 * GET / of the standalone server: the public blogroll, shown by the widget
 * itself (blogs and river), with the river feeds and the OPML export linked,
 * the feeds announced as alternates and the OPML as the site's blogroll
 * (`<link rel="blogroll">`). The admin stays at the mount path.
 */
export function homePage(plugin: BlogrollEndpoint) {
  const mount = plugin.mountPath;
  return (request: Request, response: Response) => {
    const { application, __ } = response.locals;
    response.set("Link", blogrollLink(`${mountUrl(request, mount)}/api/opml`));
    response.render("home", {
      // Visitors land here: the header's one link says where the admin is.
      application: { ...application, navigation: [{ href: mount, text: __("blogroll.home.admin") }] },
      title: plugin.settings.riverTitle,
      widget: `${mount}${WIDGET_PATH}`,
      feeds: { atom: `${mount}${RIVER_PATHS.atom}`, json: `${mount}${RIVER_PATHS.json}`, rss: `${mount}${RIVER_PATHS.rss}`, opml: `${mount}/api/opml` },
    });
  };
}
