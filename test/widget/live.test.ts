/**
 * The widget's `live` attribute in a real browser (Debian's Chromium): a page
 * of another origin embeds both elements; a blog's feed announces a local
 * WebSub hub (test/support/local-push.ts), the plugin subscribes, and the hub
 * then pushes a new post. The page shows it without a reload: the blog's line
 * (moved to the top of a sort="recent" list), the river's first post, a
 * mark, and a polite status line, over one EventSource for the page.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import type { Blog } from "../../lib/storage/types.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { startLocalHub, type LocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { HOUR } from "../../lib/time/durations.js";

interface Entry {
  id: string;
  title: string;
  published: Date;
}

function atom(entries: Entry[], hub: string, self: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Example</title><id>urn:test:example</id>` +
    `<updated>2026-01-01T00:00:00Z</updated><link rel="hub" href="${hub}"/><link rel="self" href="${self}"/><link rel="alternate" href="https://example.org/"/>` +
    entries
      .map(
        (entry) =>
          `<entry><id>urn:test:${entry.id}</id><title>${entry.title}</title><link href="https://example.org/${entry.id}"/><updated>${entry.published.toISOString()}</updated></entry>`,
      )
      .join("") +
    `</feed>`
  );
}

describe("widget live (Chromium, a post pushed by a local WebSub hub)", { skip }, () => {
  let server: TestServer;
  let hub: LocalHub;
  let feeds: FeedServer;
  let site: FixtureServer;
  let browser: TestBrowser;
  let page: Page;
  let pushed: Blog;
  let feedUrl: string;
  let entries: Entry[];
  const pageErrors: string[] = [];

  before(async () => {
    // An https hub: the plugin sends its secret, and so stores pushed posts, to https hubs only.
    trustLoopbackCertificate();
    hub = await startLocalHub({ tls: true });
    feeds = await startFeedServer();
    feedUrl = `${feeds.origins[0]}/example.atom`;
    entries = [{ id: "older", title: "An older post", published: new Date(Date.now() - 5 * HOUR) }];
    feeds.route(
      "/example.atom",
      (_request, response) =>
        void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom(entries, hub.url, feedUrl)),
    );
    server = await startTestServer("sqlite");
    (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
    pushed = (await server.storage.blogs.upsertFromSource({ feedUrl, title: "Example", source: "manual" })).blog;
    // A blog that posted more recently: first in a sort="recent" list until Example's new post.
    const other = await addBlog(server.storage, {
      title: "Other",
      siteUrl: "https://other.example/",
      feedUrl: "https://other.example/feed.xml",
    });
    await addItems(server.storage, other.id, [item("other", new Date(Date.now() - HOUR), { title: "Other's post" })]);
    const verified = hub.verified(feedUrl);
    await server.plugin.context.scheduler.syncNow();
    await server.plugin.context.push.idle();
    assert.equal((await verified).outcome, "confirmed");

    const mount = `${server.baseUrl}${server.plugin.mountPath}`;
    site = await startFixtureServer();
    site.route(
      "/live.html",
      respond.text(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>My site</title><script type="module" src="${mount}/widget.js"></script></head>` +
          `<body><main><blogroll-blogs live sort="recent" group="none"></blogroll-blogs><blogroll-items live limit="5"></blogroll-items></main></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
    );
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await feeds?.close();
    await hub?.close();
  });

  it("shows the pushed post on the blog's line, moved to the top, and first in the river, marked and announced, without a reload", async () => {
    await page.goto(`${site.url}/live.html`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll("blogroll-blogs, blogroll-items")].every(
        (widget) => widget.getAttribute("aria-busy") === "false",
      ),
    );
    const names = () => page.locator("blogroll-blogs li.blogroll__blog a.blogroll__name").allTextContents();
    assert.deepEqual(await names(), ["Other", "Example"]);
    // The page's one live stream is open (both elements share it) before anything is pushed.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    for (let tries = 0; server.plugin.context.live.connections < 1 && tries < 1000; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.plugin.context.live.connections, 1, "the page opened its live stream");

    entries = [{ id: "fresh", title: "Fresh from the hub", published: new Date() }, ...entries];
    assert.deepEqual(await hub.publish(feedUrl, atom(entries, hub.url, feedUrl)), [200]);

    await page.waitForFunction(() =>
      document.querySelector("blogroll-items li.blogroll__item")?.textContent?.includes("Fresh from the hub"),
    );
    await page.waitForFunction(
      () =>
        document.querySelector("blogroll-blogs li.blogroll__blog .blogroll__post")?.textContent ===
        "Fresh from the hub",
    );
    assert.deepEqual(await names(), ["Example", "Other"], "moved to the top of the recent list");
    const exampleLine = page.locator("blogroll-blogs li.blogroll__blog", { hasText: "Example" });
    assert.equal(await exampleLine.getAttribute("data-blog"), pushed.id);
    assert.match((await exampleLine.getAttribute("class")) ?? "", /\bblogroll__new\b/, "marked as new");
    const riverFirst = page.locator("blogroll-items li.blogroll__item").first();
    assert.match((await riverFirst.getAttribute("class")) ?? "", /\bblogroll__new\b/);
    assert.equal(await riverFirst.locator("a.blogroll__source").textContent(), "Example");
    assert.equal(
      await page.locator("blogroll-items li.blogroll__item").count(),
      3,
      "the river's older posts stay below",
    );
    const status = page.getByRole("status").filter({ hasText: "New post on Example" });
    assert.equal(await status.count(), 1, "one polite status line says it");
    assert.equal(await status.getAttribute("role"), "status");
    assert.equal(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
      true,
      "no reload",
    );
    assert.equal(server.plugin.context.live.connections, 1, "one EventSource for both elements");
    await page.screenshot({ path: path.join(ARTIFACTS, "widget-live.png"), fullPage: true });
    // The mark is short: it goes.
    await page.waitForFunction(() => document.querySelectorAll(".blogroll__new").length === 0);
    assert.deepEqual(pageErrors, []);
  });

  it("removes a blog the owner hides, and shows it again when shown", async () => {
    await server.storage.blogs.edit(pushed.id, { hidden: true });
    await page.waitForFunction(
      () =>
        !document.querySelector(`blogroll-blogs li.blogroll__blog a.blogroll__name`)?.textContent?.includes("Example"),
    );
    await page.waitForFunction(
      () =>
        ![...document.querySelectorAll("blogroll-items a.blogroll__source")].some(
          (link) => link.textContent === "Example",
        ),
    );
    await server.storage.blogs.edit(pushed.id, { hidden: false });
    await page.waitForFunction(() =>
      [...document.querySelectorAll("blogroll-blogs a.blogroll__name")].some((link) => link.textContent === "Example"),
    );
    assert.deepEqual(pageErrors, []);
  });
});
