import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { startFixtureSite, type FixtureSite } from "./fixture-site.js";

after(() => closeParsePool());

/**
 * The main path in a real browser (Debian's Chromium driven by
 * playwright-core): log in, add an OPML source pointing at a local fixture,
 * sync, see the blogs, edit one, hide one, delete one, export OPML.
 * Screenshots of each page go to test/artifacts/.
 */
describe("admin in a browser (Chromium)", { skip }, () => {
  let server: TestServer;
  let site: FixtureSite;
  let browser: TestBrowser;
  let page: Page;
  const consoleErrors: string[] = [];
  let mount: string;

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const heading = async () => (await page.locator("h1").textContent())?.trim();
  const goTo = (section: "Dashboard" | "Sources" | "Blogs") =>
    page.getByRole("navigation", { name: "Blogroll sections" }).getByRole("link", { name: section }).click();

  before(async () => {
    server = await startTestServer("sqlite");
    site = await startFixtureSite();
    mount = server.plugin.mountPath;
    browser = await launchBrowser();
    const { context } = browser;
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    page.on("console", (message) => {
      // The browser asks for /favicon.ico on its own; the host has none.
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
        consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  it("logs in with the admin token", async () => {
    await page.goto(`${server.baseUrl}${mount}`);
    assert.match(page.url(), /\/session\/login/);
    await shot("01-login");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`**${mount}`);
    assert.equal(await heading(), "Blogroll");
    await shot("02-dashboard-empty");
  });

  it("adds an OPML source pointing at a local fixture, previewing the import first", async () => {
    await goTo("Sources");
    await page.getByRole("link", { name: "Add a source" }).first().click();
    await page.getByLabel("OPML address").check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Name").fill("Fixture blogroll");
    await page.getByLabel("OPML address").fill(`${site.base}/blogroll.opml`);
    await page.getByRole("button", { name: "Preview import" }).click();
    await page.getByRole("heading", { name: "Import preview" }).waitFor();
    assert.match(
      (await page.locator("section[aria-labelledby=preview]").textContent()) ?? "",
      /3 blogs would be added/,
    );
    await shot("03-source-preview");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/notice=sourceCreated/);
    assert.match((await page.getByRole("status").first().textContent()) ?? "", /Source added and imported/);
    await shot("04-sources");
  });

  it("syncs from the dashboard and shows the blogs with their items", async () => {
    await goTo("Dashboard");
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.waitForURL(/notice=syncStarted/);
    await server.plugin.context.scheduler.syncNow(); // waits for the run the button started
    await page.locator("#blogroll-progress", { hasText: "Sync finished" }).waitFor();
    await page.goto(`${server.baseUrl}${mount}`);
    assert.match((await page.locator("section[aria-labelledby=latest]").textContent()) ?? "", /Alpha first post/);
    await shot("05-dashboard");

    await goTo("Blogs");
    for (const title of ["Alpha Notes", "Beta Journal", "Gamma Log"])
      await page.getByRole("link", { name: title }).waitFor();
    await shot("06-blogs");
  });

  it("edits a blog", async () => {
    await page.getByRole("link", { name: "Alpha Notes" }).click();
    await page.getByLabel("Title").fill("Alpha Notes (edited)");
    await page.getByLabel("Category").fill("Best friends");
    await page.getByLabel("Tags").fill("indieweb, friends");
    await page.getByLabel("Pinned").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/notice=blogSaved/);
    assert.equal(await heading(), "Alpha Notes (edited)");
    await shot("07-blog-edited");
  });

  it("hides a blog, using the keyboard", async () => {
    await goTo("Blogs");
    await page.getByRole("link", { name: "Beta Journal" }).click();
    await page.getByLabel("Hidden").focus();
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Save" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/notice=blogSaved/);
    assert.equal(await page.getByLabel("Hidden").isChecked(), true);
  });

  it("deletes a blog after confirming", async () => {
    await goTo("Blogs");
    await page.getByRole("link", { name: "Gamma Log" }).click();
    await page.getByRole("link", { name: "Delete", exact: true }).click();
    await shot("08-blog-delete");
    await page.getByRole("button", { name: "Delete blog" }).click();
    await page.waitForURL(/notice=blogDeleted/);
    assert.equal(await page.getByRole("link", { name: "Gamma Log" }).count(), 0);
    await shot("09-blogs-after");
  });

  it("exports OPML: the edited blog, without the hidden and the deleted ones", async () => {
    await goTo("Dashboard");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export OPML" }).click(),
    ]);
    const file = await download.path();
    const opml = readFileSync(file, "utf8");
    assert.match(opml, /<opml/);
    assert.match(opml, /Alpha Notes \(edited\)/);
    assert.match(opml, /Best friends/);
    assert.doesNotMatch(opml, /Beta Journal/);
    assert.doesNotMatch(opml, /Gamma Log/);
  });

  it("logged no errors (CSP violations, failed scripts) in the console", () => {
    assert.deepEqual(consoleErrors, []);
  });
});
