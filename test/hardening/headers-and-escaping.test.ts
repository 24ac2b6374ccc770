/**
 * Response headers on every route (nosniff everywhere, a strict CSP on HTML,
 * no X-Powered-By), also when the plugin's routers run without the
 * standalone host (inside Indiekit); CSRF on admin forms; and hostile text in
 * every stored field rendered escaped in the admin pages and the OPML export.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import express from "express";
import BlogrollEndpoint from "../../index.js";
import { parseOpml } from "../../lib/opml/parse.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { logIn } from "../admin/admin-session.js";

const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** Text an attacker controls through a feed, an OPML file or a form. */
const XSS = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&amp;{{7*7}}\u202E`;

/** True when the page shows the payload as markup rather than as text. */
function rendersRaw(html: string): boolean {
  return /<script>alert\(1\)<\/script>|<img src=x onerror=alert\(2\)>/i.test(html);
}

/** The host's strict CSP (its own assets only), or the public blogroll page's stricter one (nothing runs at all). */
function assertHtmlHeaders(response: Response, label: string) {
  const csp = response.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src '(self|none)'/, `${label}: CSP`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${label}: CSP allows only the host's own assets`);
  if (/default-src 'self'/.test(csp)) assert.match(csp, /script-src 'self'/, label);
  else assert.doesNotMatch(csp, /script-src/, `${label}: no script at all`);
}

describe("headers and escaping on every route (standalone host, SQLite)", () => {
  let server: TestServer;
  let blogId: string;
  let sourceId: string;

  before(async () => {
    server = await startTestServer("sqlite");
    const storage = server.storage;
    const source = await storage.sources.create({ type: "opml_file", name: XSS, settings: { xml: "<opml/>" } });
    await storage.sources.update(source.id, { status: "error", lastError: XSS });
    sourceId = source.id;
    const blog = await addBlog(storage, {
      title: XSS,
      description: XSS,
      category: XSS,
      author: XSS,
      source: "opml",
      // URLs carry characters XML must escape in attributes.
      feedUrl: "https://xss.example/feed.xml?a=1&b='x'&c=%22y%22",
      siteUrl: "https://xss.example/?p=1&q='2'",
    });
    await storage.blogs.edit(blog.id, { notes: XSS, tags: [XSS] });
    await storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: "error",
      error: XSS,
      nextFetchAt: null,
      failureCount: 1,
    });
    await addItems(storage, blog.id, [
      item("x", daysAgo(1), { title: XSS, summary: XSS, author: XSS, categories: [XSS] }),
    ]);
    blogId = blog.id;
  });
  after(() => server.close());

  it("every route sends nosniff and no X-Powered-By; HTML pages carry the strict CSP", async () => {
    const mount = server.plugin.mountPath;
    const routes: Array<[string, RequestInit?]> = [
      [`${mount}/api/blogs`],
      [`${mount}/api/blogs?limit=x`],
      [`${mount}/api/blogs/${blogId}`],
      [`${mount}/api/blogs/nope`],
      [`${mount}/api/blogs/0123456789abcdef01234567`],
      [`${mount}/api/items`],
      [`${mount}/api/categories`],
      [`${mount}/api/status`],
      [`${mount}/api/opml`],
      [`${mount}/api/opml/x`],
      [`${mount}/api/blogs`, { method: "OPTIONS" }],
      [`${mount}/api/discover`, { headers: AUTH }],
      [`${mount}/api/microsub-status`, { headers: AUTH }],
      [`${mount}/api/microsub-status`],
      ["/session/login"],
      ["/"],
      ["/no/such/route"],
      [mount, { headers: AUTH }],
      [`${mount}/sources`, { headers: AUTH }],
      [`${mount}/sources/new`, { headers: AUTH }],
      [`${mount}/sources/${sourceId}/edit`, { headers: AUTH }],
      [`${mount}/blogs`, { headers: AUTH }],
      [`${mount}/blogs/new`, { headers: AUTH }],
      [`${mount}/blogs/${blogId}`, { headers: AUTH }],
      [`${mount}/clear-resync`, { headers: AUTH }],
      [mount],
      [`${mount}/blogs`],
      [`${mount}/blogroll`],
      [`${mount}/blogroll/embed`],
      [`${mount}/blogroll.json`],
      [`${mount}/blogroll?sort=x`],
      [`${mount}/sources/${sourceId}/delete`, { headers: AUTH }],
      [`${mount}/blogs/${blogId}/delete`, { headers: AUTH }],
      [`${mount}/blogs/0123456789abcdef01234567`, { headers: { ...AUTH, Accept: "text/html" } }],
      [`${mount}/api/discover`],
      [`/assets/${server.plugin.id}/styles.css`],
      [`/assets/${server.plugin.id}/progress.js`],
      [`${mount}/sync`, { method: "POST", headers: { Cookie: "blogroll_session=forged", Accept: "text/html" } }],
      ["/session/login", { method: "POST", body: new URLSearchParams({ token: "wrong" }) }],
      [
        `${mount}/api/microsub-webhook`,
        { method: "POST", headers: { ...AUTH, "Content-Type": "application/json" }, body: "{" },
      ],
      [
        `${mount}/blogs/${blogId}`,
        {
          method: "POST",
          headers: { ...AUTH, "Content-Type": "application/x-www-form-urlencoded" },
          body: `notes=${"z".repeat(3 * 1024 * 1024)}`,
        },
      ],
    ];
    for (const [path, init] of routes) {
      const response = await server.get(path, { redirect: "manual", ...init });
      const label = `${init?.method ?? "GET"} ${path} (${response.status})`;
      await response.arrayBuffer();
      assert.equal(response.headers.get("x-content-type-options"), "nosniff", label);
      assert.equal(response.headers.get("x-powered-by"), null, label);
      if ((response.headers.get("content-type") ?? "").startsWith("text/html") && response.status !== 304)
        assertHtmlHeaders(response, label);
    }
  });

  it("admin pages show hostile stored text escaped", async () => {
    const mount = server.plugin.mountPath;
    for (const path of [
      mount,
      `${mount}/sources`,
      `${mount}/sources/${sourceId}/edit`,
      `${mount}/blogs`,
      `${mount}/blogs/${blogId}`,
      `${mount}/blogs?category=${encodeURIComponent(XSS)}`,
    ]) {
      const response = await server.get(path, { headers: { ...AUTH, Accept: "text/html" } });
      const html = await response.text();
      assert.equal(response.status, 200, path);
      assert.ok(!rendersRaw(html), `${path} renders the payload as markup`);
      assert.doesNotMatch(html, /<script>alert|onerror=alert\(2\)>/, path);
    }
  });

  it("the OPML export escapes hostile text and stays valid, round-tripping it exactly", async () => {
    for (const path of ["/opml", `/opml/${encodeURIComponent(XSS)}`]) {
      const response = await server.get(`${server.api}${path}`);
      const text = await response.text();
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/x-opml");
      assert.doesNotMatch(text, /<script>|<img /);
      assert.match(
        response.headers.get("content-disposition") ?? "",
        /^attachment; filename="blogroll(-[A-Za-z0-9%._~!*'()-]+)?\.opml"$/,
      );
      const parsed = parseOpml(text);
      assert.equal(parsed.feeds.length, 1);
      assert.equal(parsed.feeds[0].title, XSS);
      assert.equal(parsed.feeds[0].category, XSS);
      assert.equal(parsed.feeds[0].description, XSS);
      const stored = (await server.storage.blogs.get(blogId))!;
      assert.match(stored.feedUrl, /&b='x'/);
      // The importer reads addresses through the WHATWG parser (which percent-encodes the quote).
      assert.equal(parsed.feeds[0].xmlUrl, new URL(stored.feedUrl).href);
      assert.equal(parsed.feeds[0].htmlUrl, new URL(stored.siteUrl!).href);
      assert.doesNotMatch(text, /&b=/, "a bare & in an attribute is escaped");
    }
  });

  it("the import preview shows hostile titles, categories and skipped addresses from an OPML file escaped", async () => {
    const session = await logIn(server);
    const attribute = (text: string) =>
      text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const xml =
      `<?xml version="1.0"?><opml version="2.0"><head><title>${attribute(XSS)}</title></head><body>` +
      `<outline text="${attribute(XSS)}"><outline text="${attribute(XSS)}" title="${attribute(XSS)}" description="${attribute(XSS)}" xmlUrl="https://preview.example/feed.xml?x=${encodeURIComponent(XSS)}"/></outline>` +
      `<outline text="${attribute(XSS)}" xmlUrl="javascript:alert(1)//${attribute(XSS)}"/></body></opml>`;
    const response = await session.post(`${server.plugin.mountPath}/sources`, {
      type: "opml_file",
      name: XSS,
      xml,
      action: "preview",
    });
    assert.equal(response.status, 200, response.html.slice(0, 500));
    assert.match(response.html, /preview\.example/, "the preview lists the feed");
    assert.match(response.html, /&lt;script&gt;alert\(1\)/, "the title is shown as text");
    assert.ok(!rendersRaw(response.html), "the preview renders the payload as markup");
  });

  it("admin forms refuse a session request without or with a wrong CSRF token, and oversized fields", async () => {
    const session = await logIn(server);
    const mount = server.plugin.mountPath;
    for (const csrf of [null, "", "forged", `${session.csrf}x`]) {
      const response = await session.post(`${mount}/blogs/${blogId}`, { title: "changed", notes: "changed" }, { csrf });
      assert.equal(response.status, 403, `csrf ${csrf}`);
    }
    const unchanged = await server.storage.blogs.get(blogId);
    assert.equal(unchanged?.title, XSS);
    const huge = "z".repeat(3 * 1024 * 1024);
    const oversized = await session.post(`${mount}/blogs/${blogId}`, { title: "t", notes: huge });
    assert.ok(
      oversized.status === 413 || oversized.status === 400 || oversized.status === 403,
      `oversized form: ${oversized.status}`,
    );
    assert.doesNotMatch(oversized.html, /\bat \S+\.(ts|js)/);
    assert.equal((await server.storage.blogs.get(blogId))?.notes, XSS);
  });
});

describe("the plugin's own routers outside the standalone host (as inside Indiekit)", () => {
  let base: string;
  let close: () => Promise<void>;
  let plugin: BlogrollEndpoint;
  let folder: string;

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-routers-"));
    plugin = new BlogrollEndpoint({
      scheduler: false,
      mongodbUrl: null,
      databasePath: path.join(folder, "blogroll.db"),
    });
    await plugin.init({ addEndpoint: () => undefined });
    const app = express();
    app.use(plugin.mountPath, plugin.routesPublic);
    app.use(plugin.mountPath, plugin.routes);
    const listening = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => listening.once("listening", resolve));
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}${plugin.mountPath}`;
    close = async () => {
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
      await plugin.destroy();
      rmSync(folder, { recursive: true, force: true });
    };
  });
  after(() => close());

  it("set nosniff themselves", async () => {
    for (const [path, init] of [
      ["/api/blogs"],
      ["/api/blogs/bad-id"],
      ["/api/microsub-status"],
      ["/sync", { method: "POST", headers: { Accept: "application/json" } }],
    ] as Array<[string, RequestInit?]>) {
      const response = await fetch(`${base}${path}`, init);
      await response.arrayBuffer();
      assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    }
  });
});
