// Screenshots of the admin inside the real Indiekit, for the docs (docs/images/):
//   node --import tsx scripts/indiekit-screenshots.ts
// Boots the kit in ../shared/indiekit-host with the packed plugin (as test/e2e does), imports the
// test fixture blogroll through the source form, syncs, and saves docs/images/indiekit-*.png with
// Debian's Chromium: the host's home page (its Blogroll card), the dashboard, the sources and blogs
// lists, a blog's page and the add-a-blog and OPML source forms, and two of them beside the host's
// own pages (indiekit-beside-host-*.png).
import path from "node:path";
import { chromium } from "playwright-core";
import { packageRoot } from "../lib/package-root.js";
import { startFixtureSite } from "../test/admin/fixture-site.js";
import { Browser } from "../test/e2e/http-client.js";
import {
  installPackedPlugin,
  linkIntoKit,
  lockKit,
  setUpKit,
  startIndiekit,
  workFolder,
} from "../test/e2e/real-indiekit.js";

const kit = await setUpKit();
const work = workFolder();
const installed = await installPackedPlugin(kit, work);
const unlock = await lockKit(kit);
linkIntoKit(kit, installed);
const site = await startFixtureSite();
const host = await startIndiekit(kit, path.join(work, "site"), {
  devMode: true,
  secret: "screenshots-only-secret",
  pluginOptions: {
    databasePath: path.join(work, "blogroll.db"),
    allowPrivateNetworks: true,
    initialSyncDelay: 3_600_000,
  },
});
try {
  const owner = new Browser(host.url);
  await owner.page("/blogrollapi"); // a page whose forms carry the CSRF token
  const saved = await owner.post("/blogrollapi/sources", {
    type: "opml_url",
    name: "Friends' blogroll",
    url: `${site.base}/blogroll.opml`,
    enabled: "true",
    action: "save",
  });
  const synced = await owner.post("/blogrollapi/sync", {});
  if (saved.status !== 303 || synced.status !== 303)
    throw new Error(`source ${saved.status}, sync ${synced.status}: ${saved.html.slice(0, 300)}`);
  await new Promise((resolve) => setTimeout(resolve, 5000));

  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const firstBlog = (
    (await (await fetch(`${host.url}/blogrollapi/api/blogs`)).json()) as { items: Array<{ id: string }> }
  ).items[0];
  const pages = [
    ["home", "/"],
    ["dashboard", "/blogrollapi"],
    ["sources", "/blogrollapi/sources"],
    ["blogs", "/blogrollapi/blogs"],
    ["blog", `/blogrollapi/blogs/${firstBlog.id}`],
    ["add-blog", "/blogrollapi/blogs/new"],
    ["source-form", "/blogrollapi/sources/new?type=opml_file"],
  ];
  for (const [name, pathname] of pages) {
    await page.goto(host.url + pathname);
    await page.screenshot({ path: path.join(packageRoot, "docs", "images", `indiekit-${name}.png`), fullPage: true });
  }
  // Side by side with the host's own pages: its share form beside the add-a-blog form, its server
  // status (sections and summary lists) beside the dashboard.
  for (const [name, theirs, ours] of [
    ["forms", "/share", "/blogrollapi/blogs/new"],
    ["summaries", "/status", "/blogrollapi"],
  ]) {
    const shots: string[] = [];
    for (const pathname of [theirs, ours]) {
      await page.goto(host.url + pathname);
      shots.push((await page.screenshot({ fullPage: false })).toString("base64"));
    }
    const pair = await browser.newPage({ viewport: { width: 2 * 1200 + 48, height: 900 + 64 } });
    await pair.setContent(
      `<body style="margin:0;padding:16px;display:flex;gap:16px;background:#777;font:16px system-ui">` +
        shots
          .map(
            (shot, index) =>
              `<figure style="margin:0"><img style="display:block;width:1200px" src="data:image/png;base64,${shot}"><figcaption style="color:#fff;padding-top:8px">${index === 0 ? `Indiekit's ${theirs}` : `the plugin's ${ours}`}</figcaption></figure>`,
          )
          .join("") +
        `</body>`,
    );
    await pair.screenshot({
      path: path.join(packageRoot, "docs", "images", `indiekit-beside-host-${name}.png`),
      fullPage: true,
    });
    await pair.close();
  }
  await browser.close();
} finally {
  await host.stop();
  unlock();
  await site.close();
}
