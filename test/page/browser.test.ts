import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { axeViolations } from "../support/axe.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { HOUR } from "../../lib/time/durations.js";

/** A 1×1 PNG for the blog icons (intercepted: nothing leaves the machine). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const LONG_TITLE =
  "A blog whose title goes on and on without a single place to break: Supercalifragilisticexpialidociousandthensomemoreletters";

/**
 * The server-rendered blogroll page in Debian's Chromium: what a reader with
 * scripts off sees, axe-core (WCAG 2.1 AA and best practice) in light and dark, a 390 px
 * phone, and screenshots of each (test/artifacts/page-*.png).
 */
describe("blogroll page in a browser (Chromium)", { skip }, () => {
  let server: TestServer;
  let url: string;
  const now = Date.now();
  const visible: string[] = [];

  before(async () => {
    server = await startTestServer("sqlite", { ownerName: "Ada Lovelace" });
    url = `${server.baseUrl}${server.plugin.mountPath}/blogroll?latest=2`;
    const s = server.storage;
    const seed = async (fields: Parameters<typeof addBlog>[1], posts: number, hoursAgo = 1) => {
      const blog = await addBlog(s, fields);
      if (!fields?.hidden) visible.push(blog.title);
      await addItems(
        s,
        blog.id,
        Array.from({ length: posts }, (_, n) =>
          item(`${blog.id}-${n}`, new Date(now - (hoursAgo + n * 5) * HOUR), {
            url: `https://posts.example/${blog.id}/${n}`,
            title: `Post ${n} of ${blog.title}`,
          }),
        ),
      );
      return blog;
    };
    const alpha = await seed(
      {
        title: "Alpha Notes",
        category: "Friends",
        siteUrl: "https://alpha.example/",
        photo: "https://icons.example/alpha.png",
        pinned: true,
      },
      3,
    );
    await s.blogs.edit(alpha.id, {
      relationship: ["friend", "met"],
      note: "A friend from school who writes about bread, bicycles and the odd long walk.",
      fediverse: "@alpha@social.example",
      fediverseUrl: "https://social.example/@alpha",
    });
    for (const n of [1, 2, 10, 11])
      await seed({ title: `Blog ${n}`, category: "Friends", siteUrl: `https://blog${n}.example/` }, n % 3, n);
    await seed(
      {
        title: LONG_TITLE,
        category: "Tech",
        feedUrl: `https://a-very-long-host-name-for-a-feed.example/${"path/".repeat(12)}feed.xml`,
      },
      1,
      30,
    );
    await seed({ title: "Gamma Log", category: "Tech", siteUrl: "https://gamma.example/", feedType: "atom" }, 2, 200);
    await seed({ title: "Old Friend", siteUrl: "https://old.example/" }, 1, 24 * 45);
    await seed({ title: "Hidden Blog", category: "Friends", hidden: true }, 1);
    const dormant = await seed({ title: "Dormant Diary", siteUrl: "https://dormant.example/" }, 0);
    await s.blogs.recordFetch(dormant.id, {
      at: new Date(),
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
      schedule: { recentPosts: [daysAgo(150, now)], fetchInterval: null, fetchReason: "schedule", waitUntil: null },
    });
  });
  after(() => server?.close());

  async function open(options: Parameters<typeof launchBrowser>[0], run: (page: Page) => Promise<void>) {
    const browser: TestBrowser = await launchBrowser(options);
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
      await page.route("https://icons.example/**", (route) =>
        route.fulfill({ status: 200, contentType: "image/png", body: PNG }),
      );
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await page.goto(url);
      await run(page);
      assert.deepEqual(errors, [], "nothing refused by the page's CSP, no error");
    } finally {
      await browser.close();
    }
  }

  it("with JavaScript off, a reader sees every visible blog, its latest posts and their dates", async () => {
    await open({ javaScriptEnabled: false }, async (page) => {
      const probe = await page.context().newPage();
      await probe.setContent("<title>off</title><script>document.title = 'ran'</script>");
      assert.equal(await probe.title(), "off", "scripts really are off");
      await probe.close();
      const names = await page.locator("li.blogroll__blog > .blogroll__name").allTextContents();
      assert.deepEqual([...names].sort(), [...visible].filter((title) => title !== "Hidden Blog").sort());
      for (const name of names)
        assert.equal(
          await page.locator("li.blogroll__blog > .blogroll__name", { hasText: name }).first().isVisible(),
          true,
          name,
        );
      assert.deepEqual(await page.locator("h2").allTextContents(), ["Friends", "Tech", "Other blogs"]);
      const alpha = page.locator("li.blogroll__blog", { hasText: "Alpha Notes" });
      assert.deepEqual(await alpha.locator(".blogroll__post").allTextContents(), [
        "Post 0 of Alpha Notes",
        "Post 1 of Alpha Notes",
      ]);
      assert.equal(await alpha.locator("time").first().textContent(), "1 hour ago");
      assert.equal(
        await page
          .locator("li.blogroll__blog", { hasText: "Dormant Diary" })
          .locator(".blogroll__latest")
          .textContent(),
        "Last post 5 months ago",
      );
      await page.screenshot({ path: path.join(ARTIFACTS, "page-no-script.png"), fullPage: true });
    });
  });

  for (const colorScheme of ["light", "dark"] as const) {
    it(`has no axe-core violation (WCAG 2.1 A/AA, best practice) in ${colorScheme} mode, at its address and as the standalone home page`, async () => {
      await open({ colorScheme }, async (page) => {
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        assert.equal(background, colorScheme === "dark" ? "rgb(22, 22, 22)" : "rgb(255, 255, 255)");
        assert.deepEqual(await axeViolations(page), []);
        await page.goto(`${server.baseUrl}/`);
        assert.deepEqual(await axeViolations(page), [], "the home page");
        await page.goto(url);
        await page.screenshot({ path: path.join(ARTIFACTS, `page-${colorScheme}.png`), fullPage: true });
      });
    });
  }

  it("needs no horizontal scrolling on a 390 px phone, long names and addresses included", async () => {
    await open({ viewport: { width: 390, height: 844 } }, async (page) => {
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `scrollWidth ${scrollWidth} > ${clientWidth}`);
      assert.deepEqual(await axeViolations(page), []);
      await page.screenshot({ path: path.join(ARTIFACTS, "page-390.png"), fullPage: true });
    });
  });
});
