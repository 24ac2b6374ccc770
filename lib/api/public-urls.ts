import type { Request, Response } from "express";
import type { OpmlHeadLink } from "../opml/build.js";
import type { BlogrollOptions } from "../options.js";
import { publicMountUrl } from "../url/normalise.js";

/** The public feeds beside the API, relative to the mount path. */
export const RIVER_PATHS = { atom: "/river.atom", json: "/river.json", rss: "/river.rss" } as const;
export type RiverFormat = keyof typeof RIVER_PATHS;

/** A Host header is echoed into feed links: only a plain host[:port] is believed. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The absolute address of the mount path, for links in public responses:
 * under `publicUrl` when it is set; else on the host this request came to,
 * and then the response says it varies with `Host` (a shared cache must not
 * hand one host's links to another). Built from the mount path rather than
 * the request's own base, so routes outside it (the well-known files) name
 * the same addresses.
 */
export function mountUrl(
  request: Request,
  response: Response,
  options: Pick<BlogrollOptions, "publicUrl" | "mountPath">,
): string {
  if (options.publicUrl) return publicMountUrl(options.publicUrl, options.mountPath);
  response.vary("Host");
  const host = request.get("host") ?? "";
  return `${request.protocol}://${PLAIN_HOST.test(host) ? host : "localhost"}${options.mountPath}`;
}

/** The river feeds' addresses, for the blogroll or one category. */
export function riverUrls(base: string, category: string | undefined): Record<RiverFormat, string> {
  const search = category === undefined ? "" : `?${new URLSearchParams({ category })}`;
  return {
    atom: `${base}${RIVER_PATHS.atom}${search}`,
    json: `${base}${RIVER_PATHS.json}${search}`,
    rss: `${base}${RIVER_PATHS.rss}${search}`,
  };
}

/** The OPML export of the blogroll, or of one category. */
export function opmlUrl(base: string, category: string | undefined): string {
  return category === undefined ? `${base}/api/opml` : `${base}/api/opml/${encodeURIComponent(category)}`;
}

/** The `Link` header value naming a blogroll (opml.org's 2024 convention: rel="blogroll", type text/xml). */
export function blogrollLink(url: string): string {
  return `<${url}>; rel="blogroll"; type="text/xml"`;
}

/** The river feeds as links in an OPML head. */
export function riverHeadLinks(base: string, category: string | undefined): OpmlHeadLink[] {
  const urls = riverUrls(base, category);
  return [
    { rel: "alternate", type: "application/atom+xml", href: urls.atom },
    { rel: "alternate", type: "application/feed+json", href: urls.json },
    { rel: "alternate", type: "application/rss+xml", href: urls.rss },
  ];
}
