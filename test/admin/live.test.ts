import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { logIn, type AdminSession } from "./admin-session.js";
import { startFixtureSite, type FixtureSite } from "./fixture-site.js";

after(() => closeParsePool());

/**
 * A feed whose answers the test holds back: the owner's form waits on it
 * (and says so), the background fetch waits on it (the page says the blog is
 * being fetched), and once released the page shows the posts by itself.
 */
async function startHeldFeed() {
  let posts = [{ id: "first", title: "The first post arrives" }];
  let release: () => void = () => undefined;
  let requests = 0;
  let gate = Promise.resolve();
  const hold = () => (gate = new Promise<void>((resolve) => (release = resolve)));
  const server: Server = createServer(async (_request, response) => {
    requests++;
    await gate;
    const items = posts.map(
      (post, index) =>
        `<item><guid>${post.id}</guid><title>${post.title}</title><link>http://127.0.0.1/${post.id}</link><pubDate>${new Date(Date.now() - (index + 1) * 60_000).toUTCString()}</pubDate></item>`,
    );
    response
      .writeHead(200, { "Content-Type": "application/rss+xml" })
      .end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>Held Feed</title><link>http://127.0.0.1/</link>${items.join("")}</channel></rss>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`,
    hold,
    release: () => release(),
    requests: () => requests,
    setPosts: (next: typeof posts) => (posts = next),
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("admin: results at once, in a browser (standalone host, scheduler running)", { skip }, () => {
  let server: TestServer;
  let feed: Awaited<ReturnType<typeof startHeldFeed>>;
  let browser: TestBrowser;
  let page: Page;
  const favicons: number[] = [];

  before(async () => {
    // The scheduler runs (as in production) but its first sync is an hour away.
    server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: 3_600_000 });
    feed = await startHeldFeed();
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/favicon.ico") favicons.push(response.status());
    });
    await page.goto(`${server.baseUrl}/session/login`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`**${server.plugin.mountPath}`);
  });

  after(async () => {
    await browser?.close();
    await feed?.close();
    await server?.close();
  });

  it("the standalone header names the site once and links the admin; the page's icon is the plugin's, no /favicon.ico 404", async () => {
    const header = page.locator("header.header");
    assert.equal(await header.getByText("Blogroll", { exact: true }).count(), 1);
    assert.equal(await header.getByRole("link", { name: "Admin" }).count(), 1);
    assert.match(
      (await page.locator('link[rel="icon"]').getAttribute("href")) ?? "",
      /\/assets\/indiekit-endpoint-blogroll\/icon\.svg$/,
    );
    const icon = await server.get("/assets/indiekit-endpoint-blogroll/icon.svg");
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get("content-type") ?? "", /image\/svg\+xml/);
    const classic = await server.get("/favicon.ico", { redirect: "manual" });
    assert.equal(classic.status, 301, "answered, not sent to the login");
    assert.equal(classic.headers.get("location"), "/assets/indiekit-endpoint-blogroll/icon.svg");
    assert.ok(
      favicons.every((status) => status === 301 || status === 200),
      `favicon answers: ${favicons.join(", ")}`,
    );
  });

  it("adding a slow feed says what it waits for; the read that found the feed is the new blog's first fetch: its post shows without a second request or a reload", async () => {
    await page.goto(`${server.baseUrl}${server.plugin.mountPath}/blogs/new`);
    await page.getByLabel("Site or feed address").fill(feed.url);
    feed.hold();
    // Clicked and read from within the page: Playwright would wait for the navigation the held feed keeps from finishing.
    const busy = await page.getByRole("button", { name: "Add blog" }).evaluate((button: HTMLButtonElement) => {
      button.click();
      const line = document.querySelector(".blogroll-busy")!;
      return {
        text: line.textContent,
        role: line.getAttribute("role"),
        shown: getComputedStyle(line).display !== "none",
        busy: button.form!.getAttribute("aria-busy"),
      };
    });
    assert.deepEqual(busy, { text: "Adding the blog: reading its feed…", role: "status", shown: true, busy: "true" });
    while (feed.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const added = page.waitForURL(/notice=blogAdded/);
    feed.release();
    await added;
    await page.evaluate(() => ((window as unknown as { blogrollMarker: number }).blogrollMarker = 1));
    // Stored by the background fetch from that read: on the page already, or arriving in place.
    await page.locator("#blogroll-blog-recent").getByRole("link", { name: "The first post arrives" }).waitFor();
    assert.equal(
      await page.evaluate(() => (window as unknown as { blogrollMarker?: number }).blogrollMarker),
      1,
      "not reloaded",
    );
    assert.match(
      (await page.locator("#blogroll-blog-details").textContent()) ?? "",
      /The first post arrives/,
      "the latest post in the details",
    );
    assert.equal(feed.requests(), 1, "the feed was asked once");
    await page.screenshot({ path: path.join(ARTIFACTS, "live-03-arrived.png"), fullPage: true });
  });

  it("after a sync the dashboard's figures and latest items update by themselves", async () => {
    await page.goto(`${server.baseUrl}${server.plugin.mountPath}`);
    const overview = page.locator("#blogroll-overview");
    assert.match((await overview.textContent()) ?? "", /Items\s*1\b/);
    await page.evaluate(() => ((window as unknown as { blogrollMarker: number }).blogrollMarker = 2));
    feed.setPosts([
      { id: "second", title: "A second post" },
      { id: "first", title: "The first post arrives" },
    ]);
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.waitForURL(/notice=syncStarted/);
    await page.evaluate(() => ((window as unknown as { blogrollMarker: number }).blogrollMarker = 2));
    await page.getByText("Sync finished. The figures below are up to date.").waitFor({ timeout: 30_000 });
    await page.locator("#blogroll-latest").getByRole("link", { name: "A second post" }).waitFor();
    assert.match((await page.locator("#blogroll-overview").textContent()) ?? "", /Items\s*2\b/);
    assert.equal(
      await page.evaluate(() => (window as unknown as { blogrollMarker?: number }).blogrollMarker),
      2,
      "updated in place, not reloaded",
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "live-04-dashboard-updated.png"), fullPage: true });
  });

  it("a sync that ends before the dashboard has loaded still says it finished", async () => {
    const statusUrl = `${server.baseUrl}${server.plugin.mountPath}/api/status`;
    const lastSync = async () =>
      (
        (await (await fetch(statusUrl, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
          lastSync: string | null;
        }
      ).lastSync;
    const before = await lastSync();
    await page.goto(`${server.baseUrl}${server.plugin.mountPath}`);
    // The redirect's page is held until the run has ended: the page is rendered after it, as on a slow link.
    await page.route(/notice=syncStarted/, async (route) => {
      while ((await lastSync()) === before) await new Promise((resolve) => setTimeout(resolve, 50));
      await route.continue();
    });
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.waitForURL(/notice=syncStarted/);
    await page.getByText("Sync finished. The figures below are up to date.").waitFor();
    await page.unroute(/notice=syncStarted/);
  });
});

describe("admin: a new source's blogs are fetched at once, before any sync (standalone host, scheduler running)", () => {
  let server: TestServer;
  let site: FixtureSite;
  let admin: AdminSession;

  before(async () => {
    server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: 3_600_000 });
    site = await startFixtureSite();
    admin = await logIn(server);
  });
  after(async () => {
    await server?.close();
    await site?.close();
  });

  it("saving an OPML source imports it and fetches its blogs in the background; the sources list watches them meanwhile", async () => {
    const saved = await admin.post(`${server.plugin.mountPath}/sources`, {
      type: "opml_url",
      name: "Fixture",
      url: `${site.base}/blogroll.opml`,
      enabled: "true",
      action: "save",
    });
    assert.equal(saved.status, 303);
    const list = await admin.page(saved.location!);
    assert.match(list.html, /Its blogs are being fetched now/);
    const deadline = Date.now() + 20_000;
    let blogs = (await server.storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 })).items;
    while (blogs.some((blog) => blog.lastFetchAt === null) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      blogs = (await server.storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 })).items;
    }
    assert.ok(blogs.length >= 3);
    assert.deepEqual(
      blogs.filter((blog) => blog.lastFetchAt === null).map((blog) => blog.title),
      [],
      "every blog fetched",
    );
    assert.ok(
      blogs.every((blog) => blog.status === "active"),
      blogs.map((blog) => `${blog.title}: ${blog.status} ${blog.lastError ?? ""}`).join("; "),
    );
    assert.equal(
      (await server.plugin.context.scheduler.getStatus()).lastSync,
      null,
      "no sync ran: the new blogs' own fetch did it",
    );
    const after = await admin.page(`${server.plugin.mountPath}/sources`);
    assert.doesNotMatch(after.html, /data-blogroll-pending/, "nothing left to watch");
  });
});
