import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { axeViolations } from "../support/axe.js";
import { browserSkip as skip, launchBrowser, logInPage, type TestBrowser } from "../support/browser.js";
import { startFixtureSite, type FixtureSite } from "./fixture-site.js";
import { seedEveryAdminPage } from "./every-admin-page.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";

/**
 * axe-core (WCAG 2.1 A and AA, and best practice) on every admin page in
 * Chromium, as the owner sees them: with a source, blogs in several states,
 * a suggestion and a blog's own blogroll, and the forms re-rendered with
 * errors. Any violation fails.
 */
describe("admin pages pass axe-core (Chromium, standalone host)", { skip }, () => {
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let mount: string;
  let site: FixtureSite;
  const pages: string[] = [];

  before(async () => {
    server = await startTestServer("sqlite");
    site = await startFixtureSite();
    mount = server.plugin.mountPath;
    pages.push(...(await seedEveryAdminPage(server)), "/session/login");
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await logInPage(page, server, ADMIN_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  it("every page, as loaded", async () => {
    const found: string[] = [];
    for (const pathname of pages) {
      await page.goto(server.baseUrl + pathname);
      for (const violation of await axeViolations(page)) found.push(`${pathname}: ${violation}`);
    }
    assert.deepEqual(found, []);
  });

  it("forms re-rendered with their errors", async () => {
    const found: string[] = [];
    const submit = async (pathname: string, fill: (page: Page) => Promise<void>, button: string) => {
      await page.goto(server.baseUrl + pathname);
      await fill(page);
      await page.getByRole("button", { name: button, exact: true }).click();
      await page.waitForLoadState();
      for (const violation of await axeViolations(page)) found.push(`${pathname} (${button}): ${violation}`);
    };
    await submit(
      `${mount}/sources/new?type=feedland`,
      async (p) => p.getByLabel("FeedLand instance", { exact: false }).fill("not an address"),
      "Save",
    );
    await submit(`${mount}/blogs/new`, async () => {}, "Find feeds");
    await submit(
      `${mount}/sources/new?type=opml_file`,
      async (p) => p.getByLabel("Or paste the OPML", { exact: false }).fill("https://example.org/list.opml"),
      "Save",
    );
    // A blog already there, added again with another title: the page asking to confirm the change.
    await server.storage.blogs.upsertFromSource({
      feedUrl: `${site.base}/gamma.xml`,
      title: "Gamma",
      source: "manual",
    });
    await submit(
      `${mount}/blogs/new`,
      async (p) => {
        await p.getByLabel("Site or feed address", { exact: false }).fill(`${site.base}/gamma.xml`);
        await p.getByLabel("Title", { exact: false }).fill("Gamma, renamed");
      },
      "Add blog",
    );
    assert.match(await page.title(), /^Already in your blogroll/, "the re-add confirmation was checked");
    assert.deepEqual(found, []);
  });
});
