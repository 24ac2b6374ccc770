/**
 * The widget's `live` attribute in a real browser (Debian's Chromium): after
 * a `blog` event the element reads the blogroll again, and what it reads
 * includes that change even while the server is still rebuilding its kept
 * answer (which it serves other requests meanwhile). The rebuild is held at
 * a gate until the element's request has reached the server: order, not
 * timing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { gateBlogList } from "../support/blog-list-gate.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { addBlog } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("widget live: the blogroll read after a blog event includes it (Chromium)", { skip }, () => {
  let server: TestServer;
  let site: FixtureServer;
  let browser: TestBrowser;
  let page: Page;
  let hiddenId: string;
  const pageErrors: string[] = [];

  before(async () => {
    server = await startTestServer("sqlite");
    await addBlog(server.storage, { title: "Example", siteUrl: "https://example.org/" });
    hiddenId = (await addBlog(server.storage, { title: "Other", siteUrl: "https://other.example/", hidden: true })).id;
    const mount = `${server.baseUrl}${server.plugin.mountPath}`;
    site = await startFixtureServer();
    site.route(
      "/live.html",
      respond.text(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>My site</title><script type="module" src="${mount}/widget.js"></script></head>` +
          `<body><main><blogroll-blogs live group="none"></blogroll-blogs></main></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
    );
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    // The element's wait before reading again is spread at random: at its shortest here, well within
    // the time a kept answer may be served while its rebuild runs (so the old code served it).
    await page.addInitScript(() => (Math.random = () => 0));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  it("a blog shown again appears, though the server's rebuild was still running when the element asked", async () => {
    await page.goto(`${site.url}/live.html`);
    await page.waitForFunction(() => document.querySelector("blogroll-blogs")?.getAttribute("aria-busy") === "false");
    const names = () => page.locator("blogroll-blogs li.blogroll__blog a.blogroll__name").allTextContents();
    assert.deepEqual(await names(), ["Example"]);
    for (let tries = 0; server.plugin.context.live.connections < 1 && tries < 1000; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.plugin.context.live.connections, 1, "the page opened its live stream");

    // The server's rebuild after the change waits at the gate until the element's request has arrived.
    const gate = gateBlogList(server.storage.blogs);
    gate.close();
    const asked: string[] = [];
    server.http.on("request", (request) => {
      if (!request.url?.includes("/blogroll.json")) return;
      asked.push(request.url);
      gate.open();
    });
    const answered = page.waitForResponse((response) => response.url().includes("/blogroll.json"));
    await server.storage.blogs.edit(hiddenId, { hidden: false });
    await answered;
    await page.waitForFunction(() => document.querySelector("blogroll-blogs")?.getAttribute("aria-busy") === "false");

    assert.deepEqual(await names(), ["Example", "Other"], "the element shows the blog the event announced");
    const { newest } = await server.storage.events.bounds();
    assert.equal(asked.length, 1);
    assert.equal(new URL(asked[0], server.baseUrl).searchParams.get("lastEventId"), String(newest));
    assert.deepEqual(pageErrors, []);
  });
});
