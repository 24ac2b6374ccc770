import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, logInPage, type TestBrowser } from "../support/browser.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { startFixtureSite, type FixtureSite } from "./fixture-site.js";

after(() => closeParsePool());

/** WCAG's contrast ratio of two sRGB colours given as "rgb(r, g, b)". */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r, g, bl] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const c = Number(part) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** What has the keyboard focus: its tag, id, classes, role and accessible label. */
function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return element
      ? {
          tag: element.tagName.toLowerCase(),
          id: element.id,
          className: element.className,
          role: element.getAttribute("role"),
          label: element.getAttribute("aria-label"),
        }
      : null;
  });
}

/**
 * The admin with the keyboard only, in Chromium (standalone host): where the
 * focus goes after a form comes back, the focus ring's contrast, the blogs
 * table on a 390 px phone, and the tabs' titles.
 */
describe("admin with the keyboard (Chromium)", { skip }, () => {
  let server: TestServer;
  let site: FixtureSite;
  let browser: TestBrowser;
  let page: Page;
  let mount: string;

  before(async () => {
    server = await startTestServer("sqlite");
    site = await startFixtureSite();
    mount = server.plugin.mountPath;
    for (let n = 0; n < 3; n++) {
      const blog = await addBlog(server.storage, {
        title: `Blog number ${n}`,
        category: "Friends",
        siteUrl: `https://blog-with-a-long-address-${n}.example/and/a/path/`,
      });
      await addItems(server.storage, blog.id, [
        item(`p${n}`, new Date(), { title: `A post with a title long enough to wrap ${n}` }),
      ]);
    }
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(10_000);
    await logInPage(page, server, ADMIN_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  it("after a form comes back with errors, the focus is on the error summary", async () => {
    await page.goto(`${server.baseUrl}${mount}/blogs/new`);
    await page.getByRole("button", { name: "Add blog", exact: true }).click();
    await page.waitForSelector(".error-summary");
    assert.deepEqual((await focused(page))?.className, "error-summary");
    assert.match(await page.title(), /^Error: Add a blog - Blogroll$/, "and the tab's title says so");
  });

  it("after Find feeds, the focus is on the feed found (not back at the top of the page)", async () => {
    await page.goto(`${server.baseUrl}${mount}/blogs/new`);
    await page.getByLabel("Site or feed address", { exact: false }).fill(`${site.base}/delta/`);
    await page.getByRole("button", { name: "Find feeds" }).click();
    await page.waitForSelector("input[name=feedUrl]");
    const now = await focused(page);
    assert.equal(now?.tag, "input");
    assert.equal(
      await page.evaluate(() => (document.activeElement as HTMLInputElement).value),
      `${site.base}/delta.xml`,
      "the best feed, checked",
    );
  });

  it("the focus ring is dark next to the element (at least 3:1 on the page), inside the yellow one", async () => {
    await page.goto(`${server.baseUrl}${mount}`);
    await page.keyboard.press("Tab"); // the skip link
    await page.keyboard.press("Tab");
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return {
        outline: style.outlineColor,
        width: style.outlineWidth,
        shadow: style.boxShadow,
        page: getComputedStyle(document.body).backgroundColor,
      };
    });
    const background = ring.page === "rgba(0, 0, 0, 0)" ? "rgb(255, 255, 255)" : ring.page;
    assert.ok(
      contrast(ring.outline, background) >= 3,
      `outline ${ring.outline} on ${background}: ${contrast(ring.outline, background).toFixed(2)}:1`,
    );
    assert.equal(ring.width, "3px");
    assert.match(ring.shadow, /rgb\(255, 191, 71\)/, "the yellow ring around it");
  });

  it("on a 390 px phone the blogs table scrolls in a labelled region the keyboard reaches and scrolls", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.baseUrl}${mount}/blogs`);
      const region = page.getByRole("region", { name: "Blogs" });
      assert.equal(await region.count(), 1, "a region named by the table's caption");
      assert.equal(await region.getAttribute("tabindex"), "0");
      // Tab until the region has the focus, then scroll it with the arrow key.
      for (let n = 0; n < 60 && (await focused(page))?.role !== "region"; n++) await page.keyboard.press("Tab");
      assert.equal((await focused(page))?.label, "Blogs");
      const before = await region.evaluate((element) => element.scrollLeft);
      for (let n = 0; n < 10; n++) await page.keyboard.press("ArrowRight");
      // The browser may scroll smoothly, over frames after the key presses: wait for it rather than read at once.
      await page.waitForFunction(
        (start) => (document.querySelector(".blogroll-table-wrap[tabindex]")?.scrollLeft ?? 0) > start,
        before,
      );
      assert.ok(
        (await region.evaluate((element) => element.scrollLeft)) > before,
        "the right-hand columns come into view",
      );
      await page.screenshot({ path: path.join(ARTIFACTS, "keyboard-blogs-390.png"), fullPage: true });
      // Wide enough again: no needless stop for the keyboard (once the focus has left it).
      await page.keyboard.press("Shift+Tab");
      await page.setViewportSize({ width: 1800, height: 900 });
      await page.waitForFunction(() => !document.querySelector(".blogroll-table-wrap[tabindex]"));
    } finally {
      await page.setViewportSize({ width: 1100, height: 800 });
    }
  });

  it("a long list's Hide and Delete follow the table too: ticked at the bottom, acted on without going back up", async () => {
    for (let n = 0; n < 12; n++) await addBlog(server.storage, { title: `Filler ${String(n).padStart(2, "0")}` });
    await page.goto(`${server.baseUrl}${mount}/blogs`);
    const last = page.locator("input[name=ids]").last();
    const title = (await last.getAttribute("aria-label")) ?? "";
    await last.focus();
    await page.keyboard.press("Space");
    assert.equal(await last.isChecked(), true);
    // Forward from the last row (its links), a few stops at most, to an action.
    let tabs = 0;
    while (tabs < 8 && (await page.evaluate(() => document.activeElement?.textContent?.trim())) !== "Hide") {
      await page.keyboard.press("Tab");
      tabs++;
    }
    assert.equal(
      await page.evaluate(() => document.activeElement?.textContent?.trim()),
      "Hide",
      `reached from the last row in ${tabs} stops`,
    );
    await page.keyboard.press("Enter");
    await page.waitForURL(/notice=/);
    const hidden = (await server.storage.blogs.list({ limit: 100, offset: 0, visibility: "admin" })).items
      .filter((blog) => blog.hidden)
      .map((blog) => blog.title);
    assert.deepEqual(hidden, [title.replace(/^Select /, "")], "the ticked blog is hidden");
  });

  it("tabs are told apart: the public page, the admin's dashboard, its pages and error pages", async () => {
    await page.goto(`${server.baseUrl}/`);
    const home = await page.title();
    await page.goto(`${server.baseUrl}${mount}`);
    const dashboard = await page.title();
    assert.notEqual(home, dashboard);
    assert.equal(dashboard, "Admin - Blogroll");
    await page.goto(`${server.baseUrl}${mount}/sources`);
    assert.equal(await page.title(), "Sources - Blogroll");
    await page.goto(`${server.baseUrl}${mount}/blogs/ffffffffffffffffffffffff`);
    assert.equal(await page.title(), "Error: Not found - Blogroll");
  });
});
