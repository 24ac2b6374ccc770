import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { startFediverseWeb, trustLoopbackCertificate, type FediverseWeb } from "../support/fediverse-web.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";

// The local web serves https with a self-signed loopback certificate.
trustLoopbackCertificate();
after(() => closeParsePool());

/**
 * In Chromium (standalone): a blog added by its fediverse handle, then what
 * the owner says about it set through the edit form. Screenshots go to
 * test/artifacts/.
 */
describe("admin in a browser: add by fediverse handle, relationship, note (Chromium)", { skip }, () => {
  let web: FediverseWeb;
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let mount: string;
  let blogPath: string;
  const consoleErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    web = await startFediverseWeb();
    server = await startTestServer("sqlite");
    mount = server.plugin.mountPath;
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on("console", (message) => {
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
        consoleErrors.push(message.text());
    });
    await page.goto(`${server.baseUrl}${mount}`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`**${mount}`);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await web?.close();
  });

  it("finds the feeds of a fediverse handle and adds the one picked", async () => {
    await page.goto(`${server.baseUrl}${mount}/blogs/new`);
    await page.getByLabel("Site or feed address, or fediverse handle").fill(web.ana);
    await page.getByRole("button", { name: "Find feeds" }).click();
    const feed = page.getByRole("radio", { name: /@ana\.rss/ });
    await feed.waitFor();
    assert.equal(await feed.isChecked(), true);
    await shot("fediverse-01-feeds-found");
    await page.getByRole("button", { name: "Add blog" }).click();
    await page.waitForURL(/notice=blogAdded/);
    blogPath = new URL(page.url()).pathname;
    const blog = (await server.storage.blogs.getByFeedUrl(web.anaFeed))!;
    assert.deepEqual([blog.fediverse, blog.fediverseUrl], [web.ana, web.anaProfile]);
  });

  it("sets who the author is (one friendship, met, one geography), a public note and keeps the handle", async () => {
    await page.getByRole("radio", { name: "Friend", exact: true }).check();
    await page.getByRole("checkbox", { name: "Met in person" }).check();
    await page.getByRole("radio", { name: "Neighbor", exact: true }).check();
    await page.getByRole("radio", { name: "Acquaintance" }).check();
    assert.equal(
      await page.getByRole("radio", { name: "Friend", exact: true }).isChecked(),
      false,
      "a friendship value replaces the other",
    );
    await page.getByLabel("Public note").fill("Birds, mostly. Sometimes bees.");
    assert.equal(await page.getByLabel("Fediverse handle").inputValue(), web.ana);
    await shot("fediverse-02-edit-form");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/notice=blogSaved/);
    const blog = (await server.storage.blogs.getByFeedUrl(web.anaFeed))!;
    assert.deepEqual(blog.relationship, ["acquaintance", "met", "neighbor"]);
    assert.equal(blog.note, "Birds, mostly. Sometimes bees.");
    assert.equal(
      await page.getByRole("radio", { name: "Acquaintance" }).isChecked(),
      true,
      "the saved page shows what was saved",
    );
    assert.equal(
      await page.locator(".blogroll-fediverse-profile a").getAttribute("href"),
      web.anaProfile,
      "the profile page found is linked",
    );
    await shot("fediverse-03-saved");
  });

  it("the edit form fits a 390 px phone without sideways scrolling", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${server.baseUrl}${blogPath}`);
    const { overflow, wide } = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const beyond = [...document.querySelectorAll("main *")].filter(
        (element) => element.getBoundingClientRect().right > width + 1,
      );
      return {
        overflow: document.documentElement.scrollWidth - width,
        wide: beyond.map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      };
    });
    await shot("fediverse-04-phone");
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px: ${wide.join(", ")}`);
    assert.deepEqual(consoleErrors, []);
  });
});
