import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { WIDGET_FILE } from "../../lib/widget/route.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { logIn } from "../admin/admin-session.js";

const MAX_GZIPPED = 12 * 1024;

describe("GET {mountPath}/widget.js", () => {
  let server: TestServer;
  let url: string;
  before(async () => {
    server = await startTestServer("sqlite");
    url = `${server.baseUrl}${server.plugin.mountPath}/widget.js`;
  });
  after(() => server.close());

  it("serves the module as JavaScript, with CORS (module scripts from another origin need it), ETag and Cache-Control", async () => {
    const response = await server.get(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal(response.headers.get("cache-control"), "public, max-age=300");
    assert.equal(await response.text(), readFileSync(WIDGET_FILE, "utf8"));
    const etag = response.headers.get("etag") as string;
    assert.match(etag, /^"[^"]+"$/);
    const again = await server.get(url, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
  });

  it("is at most 12 KB gzipped and imports nothing", () => {
    const source = readFileSync(WIDGET_FILE);
    const size = gzipSync(source, { level: 9 }).length;
    assert.ok(size <= MAX_GZIPPED, `${size} bytes gzipped`);
    assert.doesNotMatch(source.toString(), /^\s*import\s/m);
    assert.doesNotMatch(source.toString(), /\bimport\(/);
  });
});

describe("the standalone home page", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite");
    const blog = await addBlog(server.storage, { title: "Alpha Notes" });
    await addItems(server.storage, blog.id, [item("a", daysAgo(1))]);
  });
  after(() => server.close());

  it("GET / is the blogroll page: public, the river feeds as alternates and the OPML as its blogroll (no redirect to the admin)", async () => {
    const response = await server.get("/", { redirect: "manual" });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const html = await response.text();
    const mount = `${server.baseUrl}${server.plugin.mountPath}`;
    assert.ok(
      html.includes(
        `<link rel="alternate" type="application/atom+xml" title="River feed (Atom)" href="${mount}/river.atom">`,
      ),
    );
    assert.ok(
      html.includes(
        `<link rel="alternate" type="application/feed+json" title="River feed (JSON Feed)" href="${mount}/river.json">`,
      ),
    );
    assert.ok(
      html.includes(
        `<link rel="alternate" type="application/rss+xml" title="River feed (RSS)" href="${mount}/river.rss">`,
      ),
    );
    // opml.org's blogroll convention (2024): <link rel="blogroll" type="text/xml"> in the head, and the same as a Link header.
    const head = html.slice(0, html.indexOf("</head>"));
    assert.ok(head.includes(`<link rel="blogroll" type="text/xml" title="Blogroll" href="${mount}/api/opml">`));
    assert.equal(response.headers.get("link"), `<${mount}/api/opml>; rel="blogroll"; type="text/xml"`);
    assert.match(html, /<li class="blogroll__blog h-card" data-blog="[0-9a-f]{24}">.*>Alpha Notes<\/a>/);
    assert.ok(html.includes(`href="${mount}/api/opml"`));
  });

  it("speaks the owner's language (option locale), whatever the visitor's browser asks for", async () => {
    const german = await startTestServer("sqlite", { locale: "de" });
    try {
      await addBlog(german.storage, { title: "Alpha Notes", category: "Freunde" });
      await addBlog(german.storage, { title: "Beta" });
      const html = await (await german.get("/", { headers: { "Accept-Language": "fr" } })).text();
      assert.match(html, /<html lang="de"/);
      assert.match(html, /Sammel-Feed \(Atom\)/);
      assert.match(html, />Weitere Blogs<\/h2>/);
    } finally {
      await german.close();
    }
  });

  it("the admin dashboard links the river feeds", async () => {
    const { html } = await (await logIn(server)).page(server.plugin.mountPath);
    const mount = server.plugin.mountPath;
    assert.match(
      html,
      new RegExp(
        `<a class="button button--secondary" href="${mount}/river.atom" type="application/atom\\+xml">River feed \\(Atom\\)</a>`,
      ),
    );
    assert.match(
      html,
      new RegExp(
        `<a class="button button--secondary" href="${mount}/river.json" type="application/feed\\+json">River feed \\(JSON Feed\\)</a>`,
      ),
    );
    assert.match(
      html,
      new RegExp(
        `<a class="button button--secondary" href="${mount}/river.rss" type="application/rss\\+xml">River feed \\(RSS\\)</a>`,
      ),
    );
  });

  it("leaves the admin behind its login", async () => {
    const response = await server.get(server.plugin.mountPath, { redirect: "manual" });
    assert.equal(response.status, 302);
    assert.match(response.headers.get("location") ?? "", /\/session\/login/);
  });
});
