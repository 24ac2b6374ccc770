/**
 * A small web of blogs on loopback for the blogroll-network tests: each site
 * is a fixture server with a home page, an RSS feed and, when asked, a
 * blogroll (OPML) announced one of the ways sites do: a Link header, a
 * `<link rel="blogroll">` in the head, `<source:blogroll>` in the feed, or
 * only at /.well-known/recommendations.opml.
 */
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";

export type Announce = "link-header" | "head" | "feed" | "blogchannel" | "well-known" | "none" | "html-decoy";

export interface SiteSpec {
  name: string;
  announce: Announce;
  /** Names of other sites (or absolute feed addresses) the blogroll lists. */
  recommends?: string[];
  /** Extra outlines written into the blogroll's body as they are. */
  extraOutlines?: string;
}

export interface Site {
  name: string;
  server: FixtureServer;
  url: string;
  home: string;
  feed: string;
  blogroll: string;
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

export function opmlOf(title: string, outlines: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0"><head><title>${escape(title)}</title></head><body>\n${outlines}\n</body></opml>`;
}

export function feedOutline(title: string, xmlUrl: string, htmlUrl?: string, description?: string): string {
  return `<outline type="rss" text="${escape(title)}" xmlUrl="${escape(xmlUrl)}"${htmlUrl ? ` htmlUrl="${escape(htmlUrl)}"` : ""}${description ? ` description="${escape(description)}"` : ""}/>`;
}

export function rssOf(title: string, home: string, extraChannel = ""): string {
  return (
    `<?xml version="1.0"?><rss version="2.0" xmlns:source="http://source.scripting.com/" xmlns:blogChannel="http://backend.userland.com/blogChannelModule"><channel><title>${escape(title)}</title><link>${home}</link><description>${escape(title)} writes</description>${extraChannel}` +
    `<item><title>Hello from ${escape(title)}</title><link>${home}hello</link><guid>${home}hello</guid><pubDate>${new Date().toUTCString()}</pubDate></item></channel></rss>`
  );
}

/** Starts every site of the web; blogrolls name each other by site name. */
export async function startWeb(specs: SiteSpec[]): Promise<{ sites: Map<string, Site>; close(): Promise<void> }> {
  const sites = new Map<string, Site>();
  for (const spec of specs) {
    const server = await startFixtureServer();
    const url = server.url;
    const blogrollPath = spec.announce === "well-known" ? "/.well-known/recommendations.opml" : "/blogroll.opml";
    sites.set(spec.name, {
      name: spec.name,
      server,
      url,
      home: `${url}/`,
      feed: `${url}/feed.xml`,
      blogroll: `${url}${blogrollPath}`,
    });
  }
  for (const spec of specs) {
    const site = sites.get(spec.name)!;
    const { server, home, blogroll } = site;
    const outlines =
      (spec.recommends ?? [])
        .map((name) => {
          const other = sites.get(name);
          return other
            ? feedOutline(other.name, other.feed, other.home, `${other.name}'s blog`)
            : feedOutline(name, name);
        })
        .join("\n") + (spec.extraOutlines ?? "");
    const headLinks = [`<link rel="alternate" type="application/rss+xml" href="/feed.xml" title="${spec.name}">`];
    if (spec.announce === "head")
      headLinks.push(`<link rel="blogroll" type="text/xml" href="/blogroll.opml" title="${spec.name}'s blogroll">`);
    if (spec.announce === "html-decoy")
      headLinks.push(`<link rel="blogroll" type="text/html" href="/blogroll.opml" title="A page about my blogroll">`);
    const headers: Record<string, string> = { "content-type": "text/html; charset=utf-8" };
    if (spec.announce === "link-header")
      headers.link = `</blogroll.opml>; rel="blogroll"; type="text/xml"; title="${spec.name}'s blogroll"`;
    server.route("/", (_request, response) => {
      response
        .writeHead(200, headers)
        .end(
          `<!doctype html><html><head><title>${spec.name}</title>${headLinks.join("")}</head><body><p>${spec.name}</p></body></html>`,
        );
    });
    const channel =
      spec.announce === "feed"
        ? `<source:blogroll>${blogroll}</source:blogroll>`
        : spec.announce === "blogchannel"
          ? `<blogChannel:blogRoll>${blogroll}</blogChannel:blogRoll>`
          : "";
    server.route(
      "/feed.xml",
      respond.conditional(rssOf(spec.name, home, channel), {
        etag: `"${spec.name}-feed"`,
        headers: { "content-type": "application/rss+xml" },
      }),
    );
    if (spec.announce !== "none") {
      server.route(
        blogroll.slice(server.url.length),
        respond.conditional(opmlOf(`${spec.name}'s blogroll`, outlines), {
          etag: `"${spec.name}-opml"`,
          headers: { "content-type": "text/x-opml" },
        }),
      );
    }
  }
  return {
    sites,
    close: async () => {
      for (const site of sites.values()) await site.server.close();
    },
  };
}
