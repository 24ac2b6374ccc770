import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { Blog } from "../../lib/storage/types.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";

after(() => closeParsePool());

/**
 * The Suggestions page in a real browser (Debian's Chromium): three followed
 * blogs whose blogrolls recommend four others; the page lists them in order,
 * Add (with a category, from the keyboard) and Dismiss work, and the browser
 * logs no error. Screenshot: test/artifacts/suggestions.png.
 */
describe("Suggestions page in a browser (Chromium, standalone host, SQLite)", { skip }, () => {
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  const consoleErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    server = await startTestServer("sqlite", { publicUrl: "https://me.example/" });
    const followed: Blog[] = [];
    for (const [name, title] of [
      ["alice", "Alice’s notes"],
      ["bob", "Bob writes"],
      ["carol", "Carol on the web"],
    ]) {
      followed.push(
        (
          await server.storage.blogs.upsertFromSource({
            feedUrl: `https://${name}.example/feed.xml`,
            title,
            siteUrl: `https://${name}.example/`,
            category: "Friends",
            source: "manual",
          })
        ).blog,
      );
    }
    const rec = (host: string, title: string, description: string | null) => ({
      feedUrl: `https://${host}/feed.xml`,
      siteUrl: `https://${host}/`,
      title,
      description,
    });
    const lists = [
      [
        rec("dan.example", "Dan’s garden", "Notes on plants and protocols"),
        rec("eve.example", "Eve Codes", "Small programs, long posts"),
        rec("me.example", "Me", null),
      ],
      [
        rec("dan.example", "Dan’s garden", "Notes on plants and protocols"),
        rec("eve.example", "Eve Codes", "Small programs, long posts"),
        rec("fay.example", "Fay’s photos", "A photo a day"),
      ],
      [
        rec("dan.example", "Dan’s garden", "Notes on plants and protocols"),
        rec("fay.example", "Fay’s photos", "A photo a day"),
        rec("gus.example", "Gus", null),
      ],
    ];
    for (const [index, blog] of followed.entries()) {
      await server.storage.recommendations.saveBlogroll(
        {
          blogId: blog.id,
          url: `https://${["alice", "bob", "carol"][index]}.example/blogroll.opml`,
          via: "head",
          checkedAt: new Date(),
          etag: null,
          lastModified: null,
          count: 3,
        },
        lists[index],
      );
    }
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(10_000);
    page.on("console", (message) => {
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
        consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lists what two or more blogs recommend, most recommended first, never the owner's site", async () => {
    const mount = server.plugin.mountPath;
    await page.goto(`${server.baseUrl}${mount}`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`**${mount}`);
    await page
      .getByRole("navigation", { name: "Blogroll sections" })
      .getByRole("link", { name: "Suggestions" })
      .click();
    await page.waitForURL(`**${mount}/suggestions`);
    const titles = await page.locator(".blogroll-suggestion-title").allTextContents();
    assert.deepEqual(
      titles.map((title) => title.trim()),
      ["Dan’s garden", "Eve Codes", "Fay’s photos"],
    );
    assert.match(
      (await page.locator(".blogroll-suggestion").first().textContent()) ?? "",
      /Recommended by 3 of your blogs/,
    );
    await shot("suggestions");
  });

  it("adds one in a category from the keyboard, and dismisses another", async () => {
    await page.getByLabel("Category").first().fill("Found via friends");
    await page.getByLabel("Category").first().press("Enter");
    await page.waitForURL(/notice=suggestionAdded/);
    assert.equal(
      (await server.storage.blogs.getByFeedUrl("https://dan.example/feed.xml"))?.category,
      "Found via friends",
    );
    await page.getByRole("button", { name: "Dismiss" }).first().click();
    await page.waitForURL(/notice=suggestionDismissed/);
    const titles = await page.locator(".blogroll-suggestion-title").allTextContents();
    assert.deepEqual(
      titles.map((title) => title.trim()),
      ["Fay’s photos"],
    );
    await shot("suggestions-after");
  });

  it("logged no errors (CSP violations, failed scripts) in the console", () => {
    assert.deepEqual(consoleErrors, []);
  });
});
