// Screenshots of the standalone admin, for the docs (docs/images/screenshot-*.png):
//   node --import tsx scripts/standalone-screenshots.ts
// Starts the standalone server on SQLite with the test fixture blogroll as a source, syncs it,
// marks one blog as failing and has two blogs recommend a third, then saves the dashboard, the
// blogs list and the suggestions page with Debian's Chromium.
import path from "node:path";
import { packageRoot } from "../lib/package-root.js";
import { closeParsePool } from "../lib/sync/parse-pool.js";
import { startFixtureSite } from "../test/admin/fixture-site.js";
import { launchBrowser, logInPage } from "../test/support/browser.js";
import { ADMIN_TOKEN, startTestServer } from "../test/support/server.js";

const site = await startFixtureSite();
const server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: 3_600_000 });
try {
  await server.storage.sources.create({
    type: "opml_url",
    name: "Friends' blogroll",
    settings: { url: `${site.base}/blogroll.opml` },
  });
  await server.plugin.context.scheduler.syncNow();
  const blogs = (await server.storage.blogs.list({ limit: 10, offset: 0, visibility: "admin" })).items;
  if (blogs.length < 3) throw new Error(`the fixture gave ${blogs.length} blogs`);
  const [failing, ...recommenders] = blogs;
  await server.storage.blogs.recordFetch(failing.id, {
    at: new Date(),
    status: "error",
    error: "HTTP 503",
    nextFetchAt: new Date(Date.now() + 3_600_000),
    failureCount: 2,
  });
  for (const recommender of recommenders.slice(0, 2))
    await server.storage.recommendations.saveBlogroll(
      {
        blogId: recommender.id,
        url: `${site.base}/friends.opml`,
        via: "well-known",
        checkedAt: new Date(),
        etag: null,
        lastModified: null,
        count: 1,
      },
      [
        {
          feedUrl: "https://notes.example/feed.xml",
          siteUrl: "https://notes.example/",
          title: "Field Notes",
          description: "Short notes on the open web",
        },
      ],
    );

  const browser = await launchBrowser({ viewport: { width: 1100, height: 800 } });
  const page = await browser.context.newPage();
  await logInPage(page, server, ADMIN_TOKEN);
  const mount = server.plugin.mountPath;
  for (const [name, pathname] of [
    ["dashboard", mount],
    ["blogs", `${mount}/blogs`],
    ["suggestions", `${mount}/suggestions`],
  ]) {
    await page.goto(server.baseUrl + pathname);
    await page.screenshot({ path: path.join(packageRoot, "docs", "images", `screenshot-${name}.png`), fullPage: true });
  }
  await browser.close();
} finally {
  await server.close();
  await site.close();
  await closeParsePool();
}
