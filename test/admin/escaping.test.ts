import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TestServer } from "../support/server.js";
import { addItems, item } from "../support/seed.js";
import { useAdminFixture, type AdminSession } from "./admin-session.js";
import type { FixtureSite } from "./fixture-site.js";

const SCRIPT = "<script>alert(1)</script>";
const IMG = '"><img src=x onerror=alert(1)>';

/** Markup an attacker could have planted, as it would appear if it were not escaped. */
function assertNoInjectedMarkup(html: string, where: string) {
  assert.doesNotMatch(html, /<script>alert/, `${where}: raw <script>`);
  assert.doesNotMatch(html, /<img src=x/, `${where}: raw <img>`);
}

describe("admin pages escape what owners and remote sites wrote (the macros output text options as given)", () => {
  let server: TestServer;
  let site: FixtureSite;
  let admin: AdminSession;
  let mount: string;

  useAdminFixture((fixture) => {
    ({ server, site, admin } = fixture);
    mount = server.plugin.mountPath;
  });

  it("blog, source and item fields", async () => {
    const source = await server.storage.sources.create({
      type: "opml_url",
      name: `List ${SCRIPT}${IMG}`,
      settings: { url: `https://x.example/${encodeURIComponent(IMG)}` },
    });
    await server.storage.sources.update(source.id, { status: "error", lastError: `Bad ${SCRIPT}` });
    const { blog } = await server.storage.blogs.upsertFromSource({
      feedUrl: `https://evil.example/feed?x=${encodeURIComponent(IMG)}`,
      siteUrl: `https://evil.example/${IMG}`,
      title: `Title ${SCRIPT}`,
      category: `Cat ${IMG}`,
      source: "opml",
      sourceId: source.id,
    });
    await server.storage.blogs.edit(blog.id, { notes: `Note ${SCRIPT}`, tags: [IMG] });
    await server.storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: "error",
      error: `Oops ${IMG}`,
      nextFetchAt: null,
      failureCount: 1,
    });
    await addItems(server.storage, blog.id, [item("x", new Date(), { title: `Post ${SCRIPT}` })]);
    for (const pathname of [
      mount,
      `${mount}/sources`,
      `${mount}/sources/${source.id}/edit`,
      `${mount}/sources/${source.id}/delete`,
      `${mount}/blogs`,
      `${mount}/blogs/${blog.id}`,
      `${mount}/blogs/${blog.id}/delete`,
    ]) {
      const { status, html } = await admin.page(pathname);
      assert.equal(status, 200, pathname);
      assertNoInjectedMarkup(html, pathname);
    }
    const invalid = await admin.post(`${mount}/blogs/${blog.id}`, {
      title: "",
      category: `${IMG}`.repeat(20),
      tags: SCRIPT,
      notes: SCRIPT,
    });
    assert.equal(invalid.status, 422);
    assertNoInjectedMarkup(invalid.html, "blog form with errors");
  });

  it("feed titles found by discovery and error messages quoting input", async () => {
    const found = await admin.post(`${mount}/blogs`, { url: `${site.base}/evil.html`, action: "discover" });
    assert.equal(found.status, 200);
    assert.match(found.html, /&lt;img src=x/, "the feed's title is shown, escaped");
    assertNoInjectedMarkup(found.html, "discovered feeds");
    const pasted = await admin.post(`${mount}/sources`, {
      type: "opml_file",
      name: SCRIPT,
      xml: `<opml><body><outline ${IMG}</body></opml>`,
      action: "save",
    });
    assert.equal(pasted.status, 422);
    assertNoInjectedMarkup(pasted.html, "OPML error");
  });
});
