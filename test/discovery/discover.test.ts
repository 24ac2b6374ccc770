import assert from "node:assert/strict";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { discoverFeeds, MAX_PROBED_LINKS } from "../../lib/discovery/discover.js";
import { resolveOptions } from "../../lib/options.js";
import { logIn } from "../admin/admin-session.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { until } from "../sync/scheduler-support.js";

type Route = { status?: number; type?: string; body: string };

/** A fixture site on a loopback port: fixed responses by path, every request path recorded. */
async function startSite(routes: Record<string, Route>) {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push(path);
    const route = routes[path];
    if (!route) {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    response
      .writeHead(route.status ?? 200, { "Content-Type": route.type ?? "text/html; charset=utf-8" })
      .end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const rss = (title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>https://blog.example/</link><description>d</description>` +
  `<item><title>One</title><link>https://blog.example/1</link><guid>https://blog.example/1</guid><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item></channel></rss>`;
const atom = (title: string) =>
  `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${title}</title><id>urn:x:feed</id><updated>2024-01-01T00:00:00Z</updated>` +
  `<entry><title>One</title><id>urn:x:1</id><updated>2024-01-01T00:00:00Z</updated><link href="https://blog.example/1"/></entry></feed>`;
const jsonFeed = (title: string) =>
  JSON.stringify({
    version: "https://jsonfeed.org/version/1.1",
    title,
    items: [{ id: "1", content_text: "hi", url: "https://blog.example/1" }],
  });
const page = (head: string, body = "<p>Hello</p>") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const hEntries = `<article class="h-entry"><a class="u-url p-name" href="/1">One</a></article><article class="h-entry"><a class="u-url p-name" href="/2">Two</a></article>`;

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });
const GUESS_PATHS = ["/feed", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json", "/feed.xml", "/rss"];

describe("discoverFeeds against fixture sites on loopback", () => {
  const sites: Array<{ close(): Promise<void> }> = [];
  const site = async (routes: Record<string, Route>) => {
    const started = await startSite(routes);
    sites.push(started);
    return started;
  };
  after(async () => {
    for (const started of sites) await started.close();
  });

  it("reads <link rel=alternate> tags in document order, resolves, de-duplicates and never guesses", async () => {
    const s = await site({
      "/": {
        body: page(
          `<svg><title>icon</title></svg><title> Example &amp; Co
             Blog </title>
           <link rel="alternate" type="application/rss+xml" title="Posts" href="/feed.xml">
           <LINK REL="Alternate" TYPE="application/atom+xml; charset=utf-8" href='atom.xml' title="Atom &amp; more">
           <link rel="alternate" type="application/json+oembed" href="/oembed?url=x">
           <link rel="alternate" hreflang="fr" href="/fr/">
           <link rel="alternate" type="application/feed+json" href="/feed.json">
           <link rel="stylesheet" href="/style.css">`,
          `<link rel="alternate" type="application/rss+xml" href="/feed.xml/">`,
        ),
      },
    });
    const result = await discoverFeeds(`${s.origin}/`, options);
    assert.deepEqual(result, {
      success: true,
      feeds: [
        { url: `${s.origin}/feed.xml`, type: "rss", title: "Posts" },
        { url: `${s.origin}/atom.xml`, type: "atom", title: "Atom & more" },
        { url: `${s.origin}/feed.json`, type: "json", title: null },
      ],
      pageTitle: "Example & Co Blog",
      siteUrl: `${s.origin}/`,
      blogrolls: [],
    });
    assert.deepEqual(s.requests, ["/"], "declared feeds are trusted; no common path is tried");
  });

  it("honours <base href> when resolving link tags", async () => {
    const s = await site({
      "/blog/": { body: page(`<base href="/other/"><link rel="alternate" type="application/rss+xml" href="feed">`) },
    });
    const result = await discoverFeeds(`${s.origin}/blog/`, options);
    assert.ok(result.success);
    assert.deepEqual(
      result.feeds.map((feed) => feed.url),
      [`${s.origin}/other/feed`],
    );
  });

  it("follows <link rel=feed>: typed links as they are, untyped ones by fetching them", async () => {
    const s = await site({
      "/": {
        body: page(
          `<title>Home</title><link rel="feed" href="/notes"><link rel="feed" type="application/atom+xml" href="/atom"><link rel="feed" href="/broken">`,
        ),
      },
      "/notes": {
        body: page("<title>Notes</title>", `<div class="h-feed"><h1 class="p-name">My notes</h1>${hEntries}</div>`),
      },
    });
    const result = await discoverFeeds(s.origin, options);
    assert.ok(result.success);
    assert.deepEqual(result.feeds, [
      { url: `${s.origin}/notes`, type: "hfeed", title: "My notes" },
      { url: `${s.origin}/atom`, type: "atom", title: null },
    ]);
    assert.ok(s.requests.includes("/notes") && s.requests.includes("/broken"));
    assert.ok(!s.requests.includes("/atom"), "a typed rel=feed link is not fetched");
  });

  it("fetches at most MAX_PROBED_LINKS untyped rel=feed links of a page listing thousands", async () => {
    const links = Array.from({ length: 2000 }, (_, n) => `<link rel="feed" href="/f/${n}">`).join("");
    const s = await site({
      "/": { body: page(`<title>Many</title>${links}`) },
      "/f/3": { type: "application/rss+xml", body: rss("Third") },
    });
    const result = await discoverFeeds(`${s.origin}/`, options);
    assert.ok(result.success);
    assert.deepEqual(
      result.feeds.map((feed) => feed.url),
      [`${s.origin}/f/3`],
    );
    const probed = s.requests.filter((path) => path.startsWith("/f/"));
    assert.equal(probed.length, MAX_PROBED_LINKS);
    assert.deepEqual(
      probed.sort(),
      Array.from({ length: MAX_PROBED_LINKS }, (_, n) => `/f/${n}`).sort(),
      "the first ones, in document order",
    );
    const guessed = s.requests.filter((path) => GUESS_PATHS.includes(path));
    assert.deepEqual(guessed, [], "a feed was found: no guessing");
  });

  it("finds an h-feed on the page itself, after the page's link tags", async () => {
    const s = await site({
      "/": {
        body: page(
          `<title>Jo's site</title><link rel="alternate" type="application/rss+xml" href="/rss">`,
          `<main class="h-feed"><h1 class="p-name">Jo's posts</h1>${hEntries}</main>`,
        ),
      },
    });
    const result = await discoverFeeds(`${s.origin}/`, options);
    assert.ok(result.success);
    assert.deepEqual(result.feeds, [
      { url: `${s.origin}/rss`, type: "rss", title: null },
      { url: `${s.origin}/`, type: "hfeed", title: "Jo's posts" },
    ]);
  });

  it("treats two top-level h-entries as a feed, but not one lone h-entry (a post page)", async () => {
    const s = await site({
      "/": { body: page("<title>Stream</title>", hEntries) },
      "/post": {
        body: page("<title>A post</title>", `<article class="h-entry"><h1 class="p-name">A post</h1></article>`),
      },
    });
    const stream = await discoverFeeds(`${s.origin}/`, options);
    assert.ok(stream.success);
    assert.deepEqual(stream.feeds, [{ url: `${s.origin}/`, type: "hfeed", title: "Stream" }]);
    const post = await discoverFeeds(`${s.origin}/post`, options);
    assert.ok(post.success);
    assert.deepEqual(post.feeds, []);
  });

  it("recognises an address that is a feed already", async () => {
    const s = await site({
      "/feed.xml": { type: "text/plain", body: rss("Plain-labelled RSS") },
      "/atom": { type: "application/atom+xml", body: atom("An Atom feed") },
      "/feed.json": { type: "application/json", body: jsonFeed("A JSON feed") },
    });
    assert.deepEqual(await discoverFeeds(`${s.origin}/feed.xml`, options), {
      success: true,
      feeds: [{ url: `${s.origin}/feed.xml`, type: "rss", title: "Plain-labelled RSS" }],
      pageTitle: "Plain-labelled RSS",
      siteUrl: "https://blog.example/",
      blogrolls: [],
    });
    const atomResult = await discoverFeeds(`${s.origin}/atom`, options);
    assert.ok(atomResult.success);
    assert.deepEqual(atomResult.feeds, [{ url: `${s.origin}/atom`, type: "atom", title: "An Atom feed" }]);
    assert.equal(atomResult.siteUrl, `${s.origin}/`);
    const jsonResult = await discoverFeeds(`${s.origin}/feed.json`, options);
    assert.ok(jsonResult.success);
    assert.deepEqual(jsonResult.feeds, [{ url: `${s.origin}/feed.json`, type: "json", title: "A JSON feed" }]);
  });

  it("guesses common paths only when the page declares nothing, keeping the paths' order", async () => {
    const s = await site({
      "/blog/": { body: page("<title>No links</title>") },
      "/rss.xml": { type: "application/xml", body: atom("Guessed Atom") },
      "/index.xml": { body: page("<title>Not a feed</title>") },
      "/feed.json": { type: "application/feed+json", body: jsonFeed("Guessed JSON") },
    });
    const result = await discoverFeeds(`${s.origin}/blog/`, options);
    assert.deepEqual(result, {
      success: true,
      feeds: [
        { url: `${s.origin}/rss.xml`, type: "atom", title: "Guessed Atom" },
        { url: `${s.origin}/feed.json`, type: "json", title: "Guessed JSON" },
      ],
      pageTitle: "No links",
      siteUrl: `${s.origin}/blog/`,
      blogrolls: [],
    });
    assert.deepEqual([...s.requests].filter((path) => path !== "/blog/").sort(), [...GUESS_PATHS].sort());
  });

  it("answers success with no feeds for a site that has none", async () => {
    const s = await site({ "/": { body: page("<title>Nothing here</title>") } });
    assert.deepEqual(await discoverFeeds(`${s.origin}/`, options), {
      success: true,
      feeds: [],
      pageTitle: "Nothing here",
      siteUrl: `${s.origin}/`,
      blogrolls: [],
    });
  });

  it("tries http when an address without a scheme does not answer over https", async () => {
    const s = await site({
      "/": { body: page(`<title>Plain</title><link rel="alternate" type="application/rss+xml" href="/feed">`) },
    });
    const result = await discoverFeeds(`  ${s.host}/ `, options);
    assert.ok(result.success);
    assert.equal(result.siteUrl, `${s.origin}/`);
    assert.deepEqual(
      result.feeds.map((feed) => feed.url),
      [`${s.origin}/feed`],
    );
  });

  it("reports failures as success:false with a short message and no address details", async () => {
    const s = await site({ "/gone": { status: 410, body: "gone" } });
    assert.deepEqual(await discoverFeeds(`${s.origin}/gone`, options), {
      success: false,
      error: "Not found (HTTP 410)",
      feeds: [],
    });
    assert.deepEqual(await discoverFeeds("", options), { success: false, error: "Not a valid web address", feeds: [] });
    assert.deepEqual(await discoverFeeds("ftp://files.example/", options), {
      success: false,
      error: "Not a valid web address",
      feeds: [],
    });
    const closed = await startSite({});
    await closed.close();
    const unreachable = await discoverFeeds(`${closed.origin}/`, options);
    assert.deepEqual(
      unreachable,
      { success: false, error: "Could not connect to the site", feeds: [] },
      "the address as typed: no need to repeat it",
    );
  });

  it("names the addresses it tried when the owner typed none of the scheme", async () => {
    const closed = await startSite({});
    await closed.close();
    assert.deepEqual(await discoverFeeds(closed.host, options), {
      success: false,
      error: `Could not connect to the site (tried https://${closed.host}/, then http://${closed.host}/)`,
      feeds: [],
    });
    const s = await site({ "/gone": { status: 410, body: "gone" } });
    // https cannot even greet a plain http server: http answered, with 410.
    assert.deepEqual(await discoverFeeds(`${s.host}/gone`, options), {
      success: false,
      error: `Not found (HTTP 410) (tried https://${s.host}/gone, then http://${s.host}/gone)`,
      feeds: [],
    });
  });

  it("puts post feeds before comment feeds, otherwise keeping the page's order", async () => {
    const s = await site({
      "/": {
        body: page(
          `<title>WP</title>
           <link rel="alternate" type="application/rss+xml" title="WP &raquo; Comments Feed" href="/comments/feed/">
           <link rel="alternate" type="application/rss+xml" title="WP &raquo; Feed" href="/feed/">
           <link rel="alternate" type="application/rss+xml" href="/post-comments.xml">
           <link rel="alternate" type="application/atom+xml" title="Notes" href="/notes.atom">`,
        ),
      },
    });
    const result = await discoverFeeds(`${s.origin}/`, options);
    assert.ok(result.success);
    assert.deepEqual(
      result.feeds.map((feed) => feed.url.slice(s.origin.length)),
      ["/feed/", "/notes.atom", "/comments/feed/", "/post-comments.xml"],
    );
  });

  it("applies the size cap and the timeout of the sync engine", async () => {
    const big = await site({ "/": { body: page("<title>Big</title>", "x".repeat(4096)) } });
    assert.deepEqual(
      await discoverFeeds(`${big.origin}/`, resolveOptions({ allowPrivateNetworks: true, maxBodySize: 1024 })),
      {
        success: false,
        error: "The response is too large",
        feeds: [],
      },
    );
    const silent: Server = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const started = Date.now();
      const result = await discoverFeeds(
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
        resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 300 }),
      );
      assert.deepEqual(result, { success: false, error: "The site took too long to answer", feeds: [] });
      assert.ok(Date.now() - started < 5000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("refuses a private address unless private networks are allowed", async () => {
    const s = await site({ "/": { body: page(`<link rel="alternate" type="application/rss+xml" href="/feed">`) } });
    const strict = resolveOptions({ allowPrivateNetworks: false });
    const result = await discoverFeeds(`${s.origin}/`, strict);
    assert.equal(result.success, false);
    assert.ok(!result.success && !result.error.includes("127.0.0.1"), "no resolved address in the message");
    assert.deepEqual(s.requests, [], "nothing reached the private address");
  });
});

describe("GET /api/discover through the standalone host (SQLite)", () => {
  let server: TestServer;
  let siteOrigin: string;
  let closeSite: () => Promise<void>;
  const auth = { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } };
  before(async () => {
    server = await startTestServer("sqlite");
    const s = await startSite({
      "/": { body: page(`<title>Site</title><link rel="alternate" type="application/rss+xml" href="/feed">`) },
    });
    siteOrigin = s.origin;
    closeSite = s.close;
  });
  after(async () => {
    await server.close();
    await closeSite();
  });

  it("answers 400 when url is missing, empty or repeated", async () => {
    for (const query of ["", "?url=", "?url=%20", "?url=a.example&url=b.example", "?url[x]=a"]) {
      const response = await server.get(`${server.api}/discover${query}`, auth);
      assert.equal(response.status, 400, query);
      assert.deepEqual(await response.json(), { error: "URL parameter required" });
    }
  });

  it("refuses a request another site started (Sec-Fetch-Site), answers the owner's pages and scripts", async () => {
    const query = `?url=${encodeURIComponent(`${siteOrigin}/`)}`;
    for (const origin of ["cross-site", "same-site"]) {
      const refused = await server.get(`${server.api}/discover${query}`, {
        headers: { ...auth.headers, "Sec-Fetch-Site": origin },
      });
      assert.equal(refused.status, 403, origin);
      assert.deepEqual(await refused.json(), { error: "Cross-site request refused" });
    }
    for (const origin of ["same-origin", "none"]) {
      const answered = await server.get(`${server.api}/discover${query}`, {
        headers: { ...auth.headers, "Sec-Fetch-Site": origin },
      });
      assert.equal(answered.status, 200, origin);
      assert.equal(((await answered.json()) as { success: boolean }).success, true);
    }
  });

  it("answers 200 with the discovery result, a failure included", async () => {
    const ok = await server.get(`${server.api}/discover?url=${encodeURIComponent(`${siteOrigin}/`)}`, auth);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), {
      success: true,
      feeds: [{ url: `${siteOrigin}/feed`, type: "rss", title: null }],
      pageTitle: "Site",
      siteUrl: `${siteOrigin}/`,
      blogrolls: [],
    });
    const failed = await server.get(`${server.api}/discover?url=${encodeURIComponent(`${siteOrigin}/missing`)}`, auth);
    assert.equal(failed.status, 200);
    assert.deepEqual(await failed.json(), { success: false, error: "Not found (HTTP 404)", feeds: [] });
  });

  it("answers 500 with the spec body only for a fault of its own, not for a site's failure", async () => {
    const context = server.plugin.context as { options: object };
    const original = context.options;
    context.options = new Proxy(original, {
      get(target, key, receiver) {
        if (key === "fetchTimeout") throw new Error("internal fault");
        return Reflect.get(target, key, receiver);
      },
    });
    try {
      const response = await server.get(`${server.api}/discover?url=${encodeURIComponent(`${siteOrigin}/`)}`, auth);
      assert.equal(response.status, 500);
      assert.deepEqual(await response.json(), { error: "Failed to discover feeds" });
    } finally {
      context.options = original;
    }
    assert.ok(server.logs.some((line) => line.startsWith("error:") && line.includes("/discover")));
    assert.equal(
      (await server.get(`${server.api}/discover?url=${encodeURIComponent(`${siteOrigin}/`)}`, auth)).status,
      200,
    );
  });

  it("is not open without authentication", async () => {
    const response = await server.get(`${server.api}/discover?url=${encodeURIComponent(siteOrigin)}`, {
      redirect: "manual",
    });
    assert.notEqual(response.status, 200);
  });
});

describe("the admin's add-a-blog discovery stops when the browser goes away (standalone, SQLite)", () => {
  let server: TestServer;
  const fetchTimeout = 1000;

  before(async () => {
    server = await startTestServer("sqlite", { fetchTimeout });
  });
  after(() => server.close());

  it("no further probe starts, and those in flight are cancelled", async () => {
    const probes: string[] = [];
    let closed = 0;
    const links = Array.from({ length: MAX_PROBED_LINKS }, (_, n) => `<link rel="feed" href="/f/${n}">`).join("");
    const hanging: Server = createServer((request, response) => {
      if (request.url === "/")
        return void response.writeHead(200, { "Content-Type": "text/html" }).end(page(`<title>Slow</title>${links}`));
      probes.push(request.url ?? "");
      response.on("close", () => closed++); // never answered: only the client can end it
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    try {
      const admin = await logIn(server);
      const body = new URLSearchParams({ _csrf: admin.csrf, url: `${origin}/`, action: "discover" }).toString();
      const outgoing = httpRequest(`${server.baseUrl}${server.plugin.mountPath}/blogs`, {
        method: "POST",
        headers: {
          Cookie: admin.cookie,
          "Content-Type": "application/x-www-form-urlencoded",
          "Content-Length": Buffer.byteLength(body),
        },
      });
      outgoing.on("error", () => undefined);
      outgoing.end(body);
      await until(() => probes.length === 3, 10_000);
      outgoing.destroy();
      await until(() => closed === 3, 10_000);
      // Long enough for every probe in flight to have timed out and the next ones to start, had they not been stopped.
      await new Promise((resolve) => setTimeout(resolve, 2.5 * fetchTimeout));
      assert.equal(probes.length, 3, `probes after the browser left: ${probes.join(", ")}`);
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });
});
