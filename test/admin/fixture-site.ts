import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HOUR } from "../../lib/time/durations.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");
const TYPES: Record<string, string> = {
  ".opml": "text/x-opml",
  ".xml": "application/xml",
  ".html": "text/html; charset=utf-8",
};
/** Addresses that serve a fixture under another name: a site's home page, a FeedLand instance's OPML. */
const ALIASES: Record<string, string> = { "/delta/": "delta.html", "/opml": "blogroll.opml" };

export interface FixtureSite {
  base: string;
  /** Every path asked for (with its query), in order: what the blogroll cost the site. */
  requests: string[];
  /** A fixture's text with the site's address and recent dates filled in. */
  text(name: string): string;
  close(): Promise<void>;
}

/** Serves test/admin/fixtures on a loopback port: an OPML blogroll and the feeds and site it lists. */
export async function startFixtureSite(): Promise<FixtureSite> {
  let base = "";
  const requests: string[] = [];
  const text = (name: string) => {
    return readFileSync(path.join(FIXTURES, name), "utf8")
      .replaceAll("{{base}}", base)
      .replaceAll("{{recent1}}", new Date(Date.now() - HOUR).toUTCString())
      .replaceAll("{{recent2}}", new Date(Date.now() - 2 * HOUR).toUTCString())
      .replaceAll("{{recent1iso}}", new Date(Date.now() - HOUR).toISOString());
  };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    const pathname = url.pathname;
    requests.push(pathname + url.search);
    if (pathname === "/getusercategories" && url.searchParams.get("screenname") === "dave") {
      // FeedLand's answer: comma-separated category names.
      response
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ screenname: "dave", categories: "Friends,Work" }));
      return;
    }
    const name = ALIASES[pathname] ?? pathname.slice(1);
    if (!/^[\w.-]+$/.test(name)) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = text(name);
      response.writeHead(200, { "Content-Type": TYPES[path.extname(name)] ?? "text/plain" }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    text,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
