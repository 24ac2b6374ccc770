import assert from "node:assert/strict";
import { createServer } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { ConsoleMessage, Page } from "playwright-core";
import { axeViolations } from "../support/axe.js";
import { ARTIFACTS, browserSkip as skip, launchBrowser, type TestBrowser } from "../support/browser.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { mf2 } from "microformats-parser";
import { HOUR } from "../../lib/time/durations.js";

type Mf = { type: string[]; properties: Record<string, unknown[]>; children?: Mf[] };

/** A 1×1 PNG, served for the blog icons (intercepted: nothing leaves the machine). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const ICON = "https://icons.example/alpha.png";
/** A plain http: icon (many blogs still serve theirs so) and one that fails to load. */
const HTTP_ICON = "http://icons.example/delta.png";
const BROKEN_ICON = "https://icons.example/epsilon.png";
const EVIL_BLOG = `<img src=x onerror="window.__pwned='blog'">Evil & Co`;
const EVIL_TITLE = `<script>window.__pwned='item'</script><b>Bold</b> move`;

/** A port nothing listens on: the API "down". */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A page of another origin that embeds the widget from the blogroll server, as a site owner would. */
const embedding = (widget: string, body: string, lang = "en") =>
  `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>My site</title>` +
  `<script type="module" src="${widget}"></script></head><body><main>${body}</main></body></html>`;

/**
 * The widget in a real browser (Debian's Chromium through playwright-core):
 * pages served from a second local server embed {mountPath}/widget.js from a
 * running blogroll server (real HTTP, real SQLite), and the test reads what a
 * visitor sees.
 */
describe("widget in a browser (Chromium)", { skip }, () => {
  let server: TestServer;
  let site: FixtureServer;
  let browser: TestBrowser;
  let page: Page;
  let consoleErrors: string[] = [];
  let pageErrors: string[] = [];
  const now = Date.now();

  const widgetItems = () => page.locator("blogroll-items li.blogroll__item");

  /** Opens a page and waits until every widget on it has finished loading. */
  async function open(url: string) {
    consoleErrors = [];
    pageErrors = [];
    await page.goto(url);
    await page.waitForFunction(() => {
      const widgets = [...document.querySelectorAll("blogroll-blogs, blogroll-items")];
      return widgets.length > 0 && widgets.every((widget) => widget.getAttribute("aria-busy") === "false");
    });
  }

  before(async () => {
    server = await startTestServer("sqlite");
    const s = server.storage;
    const alpha = await addBlog(s, {
      title: "Alpha Notes",
      category: "Friends",
      siteUrl: "https://alpha.example/",
      photo: ICON,
    });
    await s.blogs.edit(alpha.id, {
      relationship: ["friend", "met"],
      note: "Notes from a friend",
      fediverse: "@alpha@social.example",
      fediverseUrl: "https://social.example/@alpha",
    });
    const evil = await addBlog(s, { title: EVIL_BLOG, category: "Tech", siteUrl: "https://evil.example/" });
    const gamma = await addBlog(s, { title: "Gamma Log", siteUrl: "https://gamma.example/" });
    const hidden = await addBlog(s, { title: "Hidden Blog", category: "Friends", hidden: true });
    await addBlog(s, {
      title: "Delta Diary",
      category: "Friends",
      siteUrl: "https://delta.example/",
      photo: HTTP_ICON,
    });
    await addBlog(s, {
      title: "epsilon zine",
      category: "Tech",
      siteUrl: "https://epsilon.example/",
      photo: BROKEN_ICON,
    });
    // Its posts have expired: the last one its feed showed was five months ago.
    const dormant = await addBlog(s, { title: "Dormant Diary", category: "Tech", siteUrl: "https://dormant.example/" });
    await s.blogs.recordFetch(dormant.id, {
      at: new Date(),
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
      schedule: {
        recentPosts: [new Date(now - 150 * 24 * HOUR)],
        fetchInterval: null,
        fetchReason: "schedule",
        waitUntil: null,
      },
    });
    // 25 visible posts: Evil's newest (half an hour ago), then Alpha and Gamma alternating hour by hour.
    await addItems(s, evil.id, [
      item("evil", new Date(now - HOUR / 2), { title: EVIL_TITLE, url: "javascript:window.__pwned='href'" }),
    ]);
    await addItems(
      s,
      alpha.id,
      Array.from({ length: 12 }, (_, n) =>
        item(`alpha${n}`, new Date(now - (2 * n + 1) * HOUR), {
          title: `Alpha post ${n}`,
          url: `https://alpha.example/${n}`,
        }),
      ),
    );
    await addItems(
      s,
      gamma.id,
      Array.from({ length: 12 }, (_, n) =>
        item(`gamma${n}`, new Date(now - (2 * n + 2) * HOUR), {
          title: `Gamma post ${n}`,
          url: `https://gamma.example/${n}`,
        }),
      ),
    );
    await addItems(s, hidden.id, [item("hidden", new Date(now - HOUR / 4), { title: "Hidden post" })]);

    const mount = `${server.baseUrl}${server.plugin.mountPath}`;
    const widget = `${mount}/widget.js`;
    const down = `http://127.0.0.1:${await closedPort()}/blogrollapi`;
    site = await startFixtureServer();
    const html = (body: string) => respond.text(body, { headers: { "content-type": "text/html; charset=utf-8" } });
    site.route(
      "/embed.html",
      html(
        embedding(
          widget,
          `<h1>Friends of mine</h1><blogroll-blogs heading-level="3"></blogroll-blogs><h2>Reading</h2><blogroll-items limit="10"></blogroll-items>`,
        ),
      ),
    );
    site.route("/de.html", html(embedding(widget, `<blogroll-items src="${mount}" limit="5"></blogroll-items>`, "de")));
    site.route("/pt-br.html", html(embedding(widget, `<blogroll-items limit="5"></blogroll-items>`, "pt-BR")));
    site.route(
      "/flat.html",
      html(
        embedding(
          widget,
          `<aside style="max-width:30rem;font-family:system-ui,sans-serif"><h1>Blogs I read</h1><blogroll-blogs group="none" sort="recent"></blogroll-blogs></aside>`,
        ),
      ),
    );
    const csp = `default-src 'self'; script-src ${server.baseUrl}; connect-src ${server.baseUrl}; img-src http: https: data:; style-src 'self'`;
    site.route(
      "/csp.html",
      respond.text(
        embedding(
          widget,
          `<blogroll-blogs heading-level="3"></blogroll-blogs><blogroll-items limit="20"></blogroll-items>`,
        ),
        { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": csp } },
      ),
    );
    // A page that placed the server's fragment inside the element, as a static site would.
    const fragment = await (await server.get(`${mount}/blogroll/embed?headingLevel=3`)).text();
    site.route(
      "/placed.html",
      html(embedding(widget, `<blogroll-blogs heading-level="3">${fragment}</blogroll-blogs>`)),
    );
    // A site whose links are #0055ee (5.9:1 on white), as the standalone pages' are, and a dark site.
    site.route(
      "/site-colours.html",
      html(
        embedding(
          widget,
          `<style>a{color:#0055ee}</style><h1>Friends</h1><blogroll-blogs heading-level="2"></blogroll-blogs><h2>Reading</h2><blogroll-items limit="10"></blogroll-items>`,
        ),
      ),
    );
    site.route(
      "/dark.html",
      html(
        embedding(
          widget,
          `<style>:root{color-scheme:dark;background:#161616;color:#eeeeee}a{color:#8ab4f8}</style><h1>Friends</h1><blogroll-blogs heading-level="2"></blogroll-blogs><h2>Reading</h2><blogroll-items limit="10"></blogroll-items>`,
        ),
      ),
    );
    site.route("/unstyled.html", html(embedding(widget, `<blogroll-items unstyled limit="3"></blogroll-items>`)));
    site.route(
      "/down.html",
      html(
        embedding(
          widget,
          `<blogroll-blogs src="${down}"></blogroll-blogs><blogroll-items src="${down}"></blogroll-items>`,
        ),
      ),
    );
    site.route(
      "/broken.html",
      html(
        embedding(
          widget,
          `<blogroll-blogs src="${site.url}/broken"></blogroll-blogs><blogroll-items src="${site.url}/garbage"></blogroll-items>`,
        ),
      ),
    );
    // An API that answers errors: a 500 with the API's body, and a 200 that is not JSON.
    const cors = { "access-control-allow-origin": "*" };
    site.route(
      "/broken/api/blogs",
      respond.text('{"error":"Failed to fetch blogs"}', {
        status: 500,
        headers: { ...cors, "content-type": "application/json" },
      }),
    );
    site.route(
      "/broken/api/items",
      respond.text('{"error":"Failed to fetch items"}', {
        status: 500,
        headers: { ...cors, "content-type": "application/json" },
      }),
    );
    site.route(
      "/garbage/api/items",
      respond.text("<html>Maintenance</html>", { headers: { ...cors, "content-type": "text/html" } }),
    );

    browser = await launchBrowser({ locale: "en-GB" });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(10_000);
    for (const icon of [ICON, HTTP_ICON])
      await page.route(icon, (route) => route.fulfill({ status: 200, contentType: "image/png", body: PNG }));
    // Not an image (a decoding failure, which the browser does not log); a 404 in the last tests.
    await page.route(BROKEN_ICON, (route) =>
      route.fulfill({ status: 200, contentType: "image/png", body: "<html>gone</html>" }),
    );
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
        consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  it("shows the blogs from another origin, grouped by category, with icon, linked name and latest post", async () => {
    await open(`${site.url}/embed.html`);
    const blogs = page.locator("blogroll-blogs");
    assert.deepEqual(await blogs.locator("h3.blogroll__heading").allTextContents(), ["Friends", "Tech", "Other blogs"]);
    const alpha = blogs.locator("li.blogroll__blog", { hasText: "Alpha Notes" });
    assert.equal(await alpha.getByRole("link", { name: "Alpha Notes" }).getAttribute("href"), "https://alpha.example/");
    assert.equal(await alpha.locator("a.blogroll__post").textContent(), "Alpha post 0");
    assert.equal(await alpha.locator("time").getAttribute("datetime"), new Date(now - HOUR).toISOString());
    assert.equal(await alpha.locator("time").textContent(), "1 hour ago");
    assert.equal(
      await alpha.locator("img.blogroll__icon").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth),
      1,
    );
    assert.equal(await blogs.getByText("Hidden Blog").count(), 0);
    await page.screenshot({ path: path.join(ARTIFACTS, "widget-embedded.png"), fullPage: true });
  });

  it("shows the river: post titles, blog names and relative dates in <time datetime>", async () => {
    assert.equal(await widgetItems().count(), 10);
    const second = widgetItems().nth(1);
    assert.equal(await second.locator("a.blogroll__title").textContent(), "Alpha post 0");
    assert.equal(await second.locator("a.blogroll__title").getAttribute("href"), "https://alpha.example/0");
    assert.equal(await second.locator(".blogroll__source").textContent(), "Alpha Notes");
    assert.equal(await second.locator("time").getAttribute("datetime"), new Date(now - HOUR).toISOString());
    assert.equal(await second.locator("time").textContent(), "1 hour ago");
    assert.equal(await widgetItems().nth(2).locator("time").textContent(), "2 hours ago");
    assert.equal(await page.locator("blogroll-items").getByText("Hidden post").count(), 0);
    for (const rel of await page
      .locator("blogroll-blogs a, blogroll-items a")
      .evaluateAll((links) => links.map((link) => link.getAttribute("rel")))) {
      assert.match(rel ?? "", /\bnoopener\b/);
    }
  });

  it("shows titles carrying markup as text and runs none of it; a javascript: address is not a link", async () => {
    const evilItem = widgetItems().first();
    assert.equal(await evilItem.locator(".blogroll__title").textContent(), EVIL_TITLE);
    assert.equal(await evilItem.locator(".blogroll__title").evaluate((node) => node.tagName), "SPAN");
    assert.equal(await evilItem.locator(".blogroll__source").textContent(), EVIL_BLOG);
    assert.equal(
      await page.locator("blogroll-blogs .blogroll__name", { hasText: "Evil & Co" }).textContent(),
      EVIL_BLOG,
    );
    assert.equal(
      await page
        .locator(
          "blogroll-blogs script, blogroll-blogs b, blogroll-items script, blogroll-items b, img:not(.blogroll__icon)",
        )
        .count(),
      0,
    );
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined);
  });

  it('pages with the focusable "more" button (offset), then moves focus to the first new post when there is no more', async () => {
    const more = page.getByRole("button", { name: "More posts" });
    await more.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("blogroll-items li").length === 20);
    assert.equal(
      await widgetItems().nth(10).locator(".blogroll__title").textContent(),
      "Gamma post 4",
      "the 11th post follows the 10th (Alpha post 4)",
    );
    assert.equal(
      await page.evaluate(() => document.activeElement?.className),
      "blogroll__more",
      "focus stays on the button",
    );
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("blogroll-items li").length === 25);
    assert.equal(await more.count(), 0, "no more posts: no button");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Gamma post 9");
    assert.equal(await page.locator("blogroll-items").getAttribute("aria-busy"), "false");
    const titles = await widgetItems().locator(".blogroll__title").allTextContents();
    assert.equal(new Set(titles).size, 25, "no post twice");
  });

  it("passes axe-core (WCAG 2.1 AA and best practice) with its default styles, on a light site with its own link colour and on a dark one", async () => {
    const found: string[] = [];
    // (embed.html puts h3 headings under its h1 on purpose, for other tests: not a page to judge.)
    for (const pathname of ["/flat.html", "/site-colours.html", "/dark.html"]) {
      await open(`${site.url}${pathname}`);
      for (const violation of await axeViolations(page, { include: ["blogroll-blogs", "blogroll-items"] }))
        found.push(`${pathname}: ${violation}`);
    }
    // Opened, a blog's panel of posts too.
    await open(`${site.url}/site-colours.html`);
    await page.locator("blogroll-blogs .blogroll__toggle").first().click();
    await page.locator("blogroll-blogs .blogroll__recent li").first().waitFor();
    for (const violation of await axeViolations(page, { include: ["blogroll-blogs"] }))
      found.push(`/site-colours.html (a blog opened): ${violation}`);
    assert.deepEqual(found, []);
  });

  it("logged no error on the embedding page", () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });

  it("follows the page's language: strings and relative dates", async () => {
    await open(`${site.url}/de.html`);
    assert.equal(await page.getByRole("button", { name: "Weitere Beiträge" }).count(), 1);
    assert.equal(await widgetItems().nth(1).locator("time").textContent(), "vor 1 Stunde");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
    await open(`${site.url}/pt-br.html`);
    assert.equal(
      await page.getByRole("button", { name: "Mais posts" }).count(),
      1,
      "a full tag first (pt-BR), then its language",
    );
    assert.equal(await widgetItems().nth(1).locator("time").textContent(), "há 1 hora");
  });

  it("applies its default styles unless `unstyled`", async () => {
    const listStyle = () => page.locator("blogroll-items ul").evaluate((list) => getComputedStyle(list).listStyleType);
    await open(`${site.url}/unstyled.html`);
    assert.equal(await listStyle(), "disc");
    await open(`${site.url}/embed.html`);
    assert.equal(await listStyle(), "none");
  });

  /** Only the browser's own notices of failed requests: the widget itself reports nothing to the console. */
  const onlyNetworkNotices = () => {
    assert.deepEqual(pageErrors, []);
    for (const message of consoleErrors) assert.match(message, /^Failed to load resource/);
  };

  it("says briefly that the blogroll cannot be loaded when the API is down", async () => {
    await open(`${site.url}/down.html`);
    assert.deepEqual(await page.locator(".blogroll__error").allTextContents(), [
      "The blogroll could not be loaded right now.",
      "The blogroll could not be loaded right now.",
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS, "widget-down.png") });
    onlyNetworkNotices();
  });

  it("and when the API answers an error, or something that is not the API", async () => {
    await open(`${site.url}/broken.html`);
    assert.equal(
      await page.locator("blogroll-blogs .blogroll__error").textContent(),
      "The blogroll could not be loaded right now.",
    );
    assert.equal(
      await page.locator("blogroll-items .blogroll__error").textContent(),
      "The blogroll could not be loaded right now.",
    );
    assert.equal(await page.locator("blogroll-items .blogroll__error").getAttribute("role"), "status");
    onlyNetworkNotices();
  });

  it("works on a page whose Content-Security-Policy allows no inline style: its default styles still apply", async () => {
    await open(`${site.url}/csp.html`);
    assert.equal(await page.locator("blogroll-blogs").getByRole("link", { name: "Alpha Notes" }).count(), 1);
    assert.equal(await widgetItems().count(), 20);
    assert.equal(
      await page.locator("blogroll-items ul").evaluate((list) => getComputedStyle(list).listStyleType),
      "none",
      "default styles despite style-src 'self'",
    );
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });

  /** Each blog entry's icon: "img" when its picture loaded, else the letter its tile shows. */
  const icons = (scope: string) =>
    page.locator(`${scope} li.blogroll__blog`).evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => {
          const icon = row.querySelector(".blogroll__icon")!;
          const shown =
            icon instanceof HTMLImageElement
              ? icon.complete && icon.naturalWidth > 0
                ? "img"
                : "broken"
              : `${icon.textContent} (${icon.getAttribute("aria-hidden")})`;
          return [row.querySelector(".blogroll__name")!.textContent, shown];
        }),
      ),
    );

  it("a strict CSP that allows http: images lets http: icons load; a blog without a picture, or whose picture fails, shows its letter tile", async () => {
    await open(`${site.url}/csp.html`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll("img.blogroll__icon")].every((img) => (img as HTMLImageElement).complete),
    );
    assert.deepEqual(await icons("blogroll-blogs"), {
      "Alpha Notes": "img",
      "Delta Diary": "img",
      "Dormant Diary": "D (true)",
      "epsilon zine": "E (true)",
      [EVIL_BLOG]: "< (true)",
      "Gamma Log": "G (true)",
    });
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, [], "no image refused by the CSP");
  });

  it("an icon answered with a 404 becomes the letter tile too, on any page", async () => {
    await page.route(BROKEN_ICON, (route) =>
      route.fulfill({ status: 404, contentType: "text/html", body: "Not found" }),
    );
    for (const url of [`${site.url}/embed.html`, `${site.url}/csp.html`]) {
      await open(url);
      await page.waitForFunction(() => !document.querySelector('img.blogroll__icon[src*="epsilon"]'));
      const tiles = await icons("blogroll-blogs");
      assert.equal(tiles["epsilon zine"], "E (true)", url);
      assert.equal(tiles["Alpha Notes"], "img", url);
      assert.equal(await page.locator("img.blogroll__icon").count(), 2, "no broken image left");
    }
  });

  it('group="none" sort="recent" shows one list, the blog with the newest post first', async () => {
    await open(`${site.url}/flat.html`);
    const blogs = page.locator("blogroll-blogs");
    assert.equal(await blogs.locator(".blogroll__heading, .blogroll__group").count(), 0);
    assert.equal(await blogs.locator("ul.blogroll__blogs").count(), 1);
    const names = await blogs.locator("li.blogroll__blog > .blogroll__name").allTextContents();
    assert.deepEqual(
      names.slice(0, 3),
      [EVIL_BLOG, "Alpha Notes", "Gamma Log"],
      "newest post first (Evil's half an hour ago, Alpha's 1 h, Gamma's 2 h)",
    );
    assert.equal(names[3], "Dormant Diary", "then the blog whose last post is older");
    assert.deepEqual(names.slice(4).sort(), ["Delta Diary", "epsilon zine"], "blogs without posts after");
  });

  it("a blog opens to its five latest posts without repeating the one on its line: a real button beside its name, aria-expanded and aria-controls, one request, focus kept", async () => {
    const requests: string[] = [];
    const listen = (request: { url(): string }) => {
      if (request.url().includes("/api/items") && request.url().includes("blog=")) requests.push(request.url());
    };
    page.on("request", listen);
    try {
      const alpha = page.locator("li.blogroll__blog", { hasText: "Alpha Notes" });
      const toggle = alpha.getByRole("button", { name: "Latest posts: Alpha Notes" });
      assert.equal(await toggle.evaluate((node) => node.tagName), "BUTTON");
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      const panelId = await toggle.getAttribute("aria-controls");
      const panel = page.locator(`#${panelId}`);
      assert.equal(await panel.isHidden(), true);
      assert.equal(
        await page.locator("li.blogroll__blog", { hasText: "Delta Diary" }).getByRole("button").count(),
        0,
        "a blog without posts has nothing to expand",
      );

      // Keyboard: Tab from the blog's name reaches the button beside it; Enter opens it.
      await alpha.locator("a.blogroll__name").focus();
      await page.keyboard.press("Tab");
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
        "Latest posts: Alpha Notes",
      );
      await page.keyboard.press("Enter");
      await panel.locator("li").nth(3).waitFor();
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      assert.equal(
        await alpha.locator("a.blogroll__post").textContent(),
        "Alpha post 0",
        "the line keeps the latest post",
      );
      assert.deepEqual(await panel.locator("a.blogroll__title").allTextContents(), [
        "Alpha post 1",
        "Alpha post 2",
        "Alpha post 3",
        "Alpha post 4",
      ]);
      assert.equal(await panel.locator("time").first().textContent(), "3 hours ago");
      assert.equal(await panel.getAttribute("aria-busy"), "false");
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
        "Latest posts: Alpha Notes",
        "focus stays on the button",
      );
      assert.equal(requests.length, 1);
      assert.match(requests[0], /blog=[^&]+/);
      assert.match(requests[0], /limit=5(&|$)/);

      // Tab walks on along the line (its latest post, its feed, its fediverse profile) into the opened posts.
      const reached: string[] = [];
      for (let step = 0; step < 4; step++) {
        await page.keyboard.press("Tab");
        reached.push((await page.evaluate(() => document.activeElement?.textContent)) ?? "");
      }
      assert.deepEqual(reached, ["Alpha post 0", "feed", "@alpha@social.example", "Alpha post 1"]);
      // Space on the button closes them, Enter opens them again without a new request.
      await toggle.focus();
      await page.keyboard.press("Space");
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      assert.equal(await panel.isHidden(), true);
      await page.keyboard.press("Enter");
      assert.equal(await panel.isVisible(), true);
      assert.equal(await panel.locator("li").count(), 4);
      assert.equal(requests.length, 1, "opened again from what was fetched");

      const gamma = page.locator("li.blogroll__blog", { hasText: "Gamma Log" }).getByRole("button");
      await gamma.click();
      await page
        .locator(`#${await gamma.getAttribute("aria-controls")} li`)
        .nth(3)
        .waitFor();
      assert.equal(requests.length, 2);
      assert.notEqual(await gamma.getAttribute("aria-controls"), panelId);
      await gamma.click();
      await page.screenshot({ path: path.join(ARTIFACTS, "widget-flat-expanded.png"), fullPage: true });
      assert.deepEqual(pageErrors, []);
    } finally {
      page.off("request", listen);
    }
  });

  it("a blog whose posts cannot be fetched says so in its panel; closing and opening again tries again", async () => {
    await open(`${site.url}/flat.html`);
    const failing = (url: URL) => url.pathname.endsWith("/api/items") && url.searchParams.has("blog");
    await page.route(failing, (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"Failed to fetch items"}' }),
    );
    const toggle = page.getByRole("button", { name: "Latest posts: Gamma Log" });
    const panel = page.locator(`#${await toggle.getAttribute("aria-controls")}`);
    await toggle.click();
    await panel.locator(".blogroll__error").waitFor();
    assert.equal(await panel.locator(".blogroll__error").textContent(), "The blogroll could not be loaded right now.");
    assert.equal(await panel.getAttribute("aria-busy"), "false");
    await page.unroute(failing);
    await toggle.click();
    await toggle.click();
    await panel.locator("li").nth(3).waitFor();
    assert.equal(await panel.locator(".blogroll__error").count(), 0);
    assert.equal(await panel.locator("a.blogroll__title").first().textContent(), "Gamma post 1");
    assert.deepEqual(pageErrors, []);
  });

  it("writes the same h-card and h-entry markup as the server's fragment: a microformats parser reads the same blogs, in the same order, with the same posts", async () => {
    const read = (html: string) =>
      (mf2(html, { baseUrl: site.url }).items as Mf[])
        .filter((found) => found.type.includes("h-card"))
        .map((card) => ({
          name: card.properties.name,
          url: card.properties.url,
          note: card.properties.note,
          posts: (card.children ?? []).map((entry) => [
            entry.properties.url,
            entry.properties.name,
            entry.properties.published,
          ]),
        }));
    await open(`${site.url}/embed.html`);
    const widget = read(await page.locator("blogroll-blogs").innerHTML());
    const server$ = read(await (await server.get(`${server.baseUrl}${server.plugin.mountPath}/blogroll/embed`)).text());
    assert.equal(widget.length, 6);
    assert.deepEqual(widget, server$);
    const alpha = widget.find((card) => card.name[0] === "Alpha Notes");
    assert.deepEqual(alpha?.url, ["https://alpha.example/", "https://social.example/@alpha"]);
    assert.deepEqual(alpha?.note, ["Notes from a friend"]);
    assert.equal(
      await page.locator("blogroll-blogs a.blogroll__name", { hasText: "Alpha Notes" }).getAttribute("rel"),
      "friend met noopener",
    );
  });

  it("a blog whose posts have expired shows the age of its last post", async () => {
    await open(`${site.url}/embed.html`);
    assert.equal(
      await page.locator("li.blogroll__blog", { hasText: "Dormant Diary" }).locator(".blogroll__latest").textContent(),
      "Last post 5 months ago",
    );
  });

  it("keeps the fragment the page placed inside it until its own render is ready", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const json = (url: URL) => url.pathname.endsWith("/blogroll.json");
    await page.route(json, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${site.url}/placed.html`);
      const blogs = page.locator("blogroll-blogs");
      await page.waitForFunction(() => document.querySelector("blogroll-blogs")?.getAttribute("aria-busy") === "true");
      assert.equal(await blogs.locator("li.h-card").count(), 6, "the server’s blogs, while the widget loads");
      assert.equal(await blogs.getByText("Loading…").count(), 0);
      assert.equal(await blogs.locator("button").count(), 0, "not the widget's render yet");
      release();
      await page.waitForFunction(() => document.querySelector("blogroll-blogs")?.getAttribute("aria-busy") === "false");
      assert.equal(await blogs.locator("li.h-card").count(), 6);
      assert.ok(
        (await blogs.locator("button.blogroll__toggle").count()) > 0,
        "the widget's own render, with its expand buttons",
      );
      assert.deepEqual(pageErrors, []);
    } finally {
      release();
      await page.unroute(json);
    }
  });

  it("keeps the placed fragment when the blogroll cannot be loaded", async () => {
    const json = (url: URL) => url.pathname.endsWith("/blogroll.json");
    await page.route(json, (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"Failed to fetch blogroll"}' }),
    );
    try {
      await open(`${site.url}/placed.html`);
      assert.equal(await page.locator("blogroll-blogs li.h-card").count(), 6);
      assert.equal(await page.locator("blogroll-blogs .blogroll__error").count(), 0);
    } finally {
      await page.unroute(json);
    }
  });

  it("its error message is readable on light and on dark pages (prefers-color-scheme)", async () => {
    for (const [colorScheme, colour] of [
      ["light", "rgb(176, 0, 32)"],
      ["dark", "rgb(255, 138, 128)"],
    ] as const) {
      await page.emulateMedia({ colorScheme });
      await open(`${site.url}/down.html`);
      assert.equal(
        await page
          .locator(".blogroll__error")
          .first()
          .evaluate((node) => getComputedStyle(node).color),
        colour,
        colorScheme,
      );
    }
    await page.emulateMedia({ colorScheme: "light" });
  });
});
