import assert from "node:assert/strict";
import { mf2 } from "microformats-parser";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { packageRoot } from "../../lib/package-root.js";
import { openStorage } from "../../lib/storage/open.js";
import type { Storage } from "../../lib/storage/types.js";
import { startFixtureSite, type FixtureSite } from "../admin/fixture-site.js";
import { chromium } from "playwright-core";
import { Browser, catalogKeys, pageProblems } from "./http-client.js";
import { startLocalCloud, startLocalHub } from "../support/local-push.js";
import { startFediverseWeb } from "../support/fediverse-web.js";
import { startFeedServer } from "../sync/feed-server.js";
import {
  fontOf,
  gapBetween,
  measureFilters,
  measureForm,
  measureNavigation,
  visibleCaptions,
  visibleHeaders,
} from "./look.js";
import { axeViolations } from "../support/axe.js";
import { browserSkip, CHROMIUM } from "../support/browser.js";
import { dataOf, openEventStream } from "../support/event-stream.js";
import {
  installPackedPlugin,
  linkIntoKit,
  lockKit,
  realHostMissing,
  setUpKit,
  signHostToken,
  startIndiekit,
  workFolder,
  type Kit,
  type RunningHost,
} from "./real-indiekit.js";

/**
 * The plugin inside the real Indiekit (the kit in ../shared/indiekit-host,
 * Node 24), installed from `npm pack` as npm would install it, driven over
 * HTTP the way a site owner's browser drives it. CI has the kit and must run
 * this; elsewhere it says why it skipped.
 */
const missing = realHostMissing();
if (missing && process.env.CI) throw new Error(missing);
if (missing) console.log(`# ${missing}`);

const MOUNT = "/blogrollapi";
const SECRET = "a-long-secret-for-signing-sessions-and-tokens";
const keys = catalogKeys(JSON.parse(readFileSync(path.join(packageRoot, "locales", "en.json"), "utf8")));

describe(
  "inside the real Indiekit (1.0.0-beta.29, Node 24, plugin installed from npm pack)",
  { skip: missing ?? false, timeout: 15 * 60_000 },
  () => {
    let kit: Kit;
    let work: string;
    let site: FixtureSite;
    let host: RunningHost;
    let owner: Browser;
    let storage: Storage;
    let installed: string;
    let unlock: (() => void) | undefined;
    let hostBadges: Set<string>;
    const databasePath = () => path.join(work, "blogroll.db");
    const pluginOptions = () => ({
      databasePath: databasePath(),
      allowPrivateNetworks: true,
      initialSyncDelay: 3_600_000,
      syncInterval: 3_600_000,
    });

    const boot = async (options: {
      devMode: boolean;
      locale?: string;
      pluginOptions?: Record<string, unknown>;
      withoutSecret?: boolean;
    }) =>
      startIndiekit(kit, path.join(work, "site"), {
        devMode: options.devMode,
        locale: options.locale,
        secret: options.withoutSecret ? undefined : SECRET,
        pluginOptions: { ...pluginOptions(), ...options.pluginOptions },
      });

    /** A page that must render for the owner, with no sign of a broken template or catalog. */
    const renders = async (pathname: string, options: { errorsExpected?: boolean } = {}) => {
      const page = await owner.page(pathname).catch((failure: Error) => {
        throw new Error(`${pathname}: ${failure.message}; Indiekit said:\n${host.output().slice(-4000)}`);
      });
      assert.equal(page.status, 200, `${pathname} answered ${page.status}: ${page.html.slice(0, 300)}`);
      assert.deepEqual(pageProblems(page.html, keys, options), [], pathname);
      for (const [, color] of page.html.matchAll(/class="badge badge--([\w-]+)/g)) {
        assert.ok(hostBadges.has(color), `${pathname}: badge colour "${color}" does not exist in the host's frontend`);
      }
      return page;
    };

    before(async () => {
      kit = await setUpKit();
      const badgeStyles = readFileSync(
        path.join(kit.root, "packages", "frontend", "components", "badge", "styles.css"),
        "utf8",
      );
      hostBadges = new Set([...badgeStyles.matchAll(/\.badge--([\w-]+)/g)].map((match) => match[1]));
      work = workFolder();
      installed = await installPackedPlugin(kit, work);
      unlock = await lockKit(kit);
      linkIntoKit(kit, installed);
      site = await startFixtureSite();
      host = await boot({ devMode: true });
      owner = new Browser(host.url);
      storage = await openStorage({ hostCollections: null, mongodbUrl: null, databasePath: databasePath() });
    });

    after(async () => {
      if (process.env.E2E_DEBUG) console.log(host?.output());
      await storage?.close();
      await host?.stop();
      unlock?.();
      await site?.close();
    });

    it("SQLite storage survives the garbage collector on Node 24 (better-sqlite3 objects are never collected)", async () => {
      const script = `
      const { openStorage } = await import(${JSON.stringify(path.join(installed, "dist", "lib", "storage", "open.js"))});
      for (let round = 0; round < 3; round++) {
        const storage = await openStorage({ hostCollections: null, mongodbUrl: null, databasePath: ${JSON.stringify(path.join(work, "gc.db"))} });
        await storage.sources.create({ type: "manual", name: "n" + round });
        await storage.blogs.count();
        await storage.close();
        for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((resolve) => setTimeout(resolve, 10)); }
      }
      console.log("survived");`;
      const { execFile } = await import("node:child_process");
      const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = execFile(
          kit.node,
          ["--expose-gc", "--input-type=module", "-e", script],
          (_error, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
        );
      });
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /survived/);
    });

    it("loads: the navigation is translated and the plugin's assets are served", async () => {
      const home = await renders("/");
      assert.match(home.html, new RegExp(`href="${MOUNT}"[^>]*>[\\s\\S]*?Blogroll`), "navigation item, translated");
      const dashboard = await renders(MOUNT);
      const assets = [
        ...new Set(
          [...dashboard.html.matchAll(/"(\/assets\/indiekit-endpoint-blogroll\/[^"]+)"/g)].map((match) => match[1]),
        ),
      ];
      assert.ok(
        assets.some((asset) => asset.endsWith(".css")),
        `the dashboard links its stylesheet: ${assets}`,
      );
      for (const asset of assets) assert.equal((await fetch(host.url + asset)).status, 200, asset);
    });

    it("the host's plugin pages render it, options shown without nulls", async () => {
      const list = await renders("/plugins");
      assert.match(list.html, /Blogroll endpoint/);
      const page = await renders("/plugins/indiekit-endpoint-blogroll");
      assert.match(
        page.html,
        /Blogroll aggregator for IndieWeb sites/,
        "description from the package.json beside the main module",
      );
      assert.match(page.html, /syncInterval/);
      assert.doesNotMatch(page.html, /mongodbUrl/, "an unset option is left out");
    });

    it("every source type is created through the forms: OPML URL, upload, paste, FeedLand, manual", async () => {
      await renders(`${MOUNT}/sources`);
      const chooser = await renders(`${MOUNT}/sources/new`);
      for (const type of ["opml_url", "opml_file", "feedland"])
        assert.match(chooser.html, new RegExp(`value="${type}"`));
      for (const type of ["opml_url", "opml_file", "feedland"]) await renders(`${MOUNT}/sources/new?type=${type}`);

      const preview = await owner.post(`${MOUNT}/sources`, {
        type: "opml_url",
        name: "Fixture",
        url: `${site.base}/blogroll.opml`,
        action: "preview",
      });
      assert.equal(preview.status, 200);
      assert.match(preview.html, /Import preview/);
      assert.deepEqual(pageProblems(preview.html, keys), []);

      const byUrl = await owner.post(`${MOUNT}/sources`, {
        type: "opml_url",
        name: "Fixture",
        url: `${site.base}/blogroll.opml`,
        enabled: "true",
        action: "save",
      });
      assert.equal(byUrl.status, 303, byUrl.html.slice(0, 300));
      assert.match((await renders(byUrl.location!)).html, /Source added and imported/);

      const upload = new FormData();
      for (const [name, value] of Object.entries({
        type: "opml_file",
        name: "Uploaded",
        enabled: "true",
        action: "save",
      }))
        upload.append(name, value);
      upload.append(
        "opmlFile",
        new Blob([site.text("blogroll.opml").replace("Alpha Notes", "Alpha (file)")], { type: "text/x-opml" }),
        "list.opml",
      );
      const uploaded = await owner.post(`${MOUNT}/sources`, upload);
      assert.equal(
        uploaded.status,
        303,
        `upload through Indiekit's parsed multipart body: ${uploaded.status} ${uploaded.html.slice(0, 200)}`,
      );

      const uploadPreview = new FormData();
      for (const [name, value] of Object.entries({ type: "opml_file", name: "Preview", action: "preview" }))
        uploadPreview.append(name, value);
      uploadPreview.append("opmlFile", new Blob([site.text("blogroll.opml")], { type: "text/x-opml" }), "list.opml");
      const previewed = await owner.post(`${MOUNT}/sources`, uploadPreview);
      assert.equal(previewed.status, 200);
      assert.match(
        previewed.html,
        /<textarea[^>]*name="xml"[^>]*>[^<]*&lt;opml/,
        "the uploaded list is kept in the form",
      );

      const pasted = await owner.post(`${MOUNT}/sources`, {
        type: "opml_file",
        name: "Pasted",
        xml: site.text("blogroll.opml"),
        enabled: "true",
        action: "save",
      });
      assert.equal(pasted.status, 303);
      const invalid = await owner.post(`${MOUNT}/sources`, {
        type: "opml_file",
        name: "Pasted",
        xml: "<html>no</html>",
        action: "save",
      });
      assert.equal(invalid.status, 422);
      assert.deepEqual(pageProblems(invalid.html, keys, { errorsExpected: true }), []);
      assert.match(invalid.html, /class="error-summary/);

      // Through Indiekit's own multipart parsing: a file that is not text is refused and never pasted into the form.
      const picture = new FormData();
      for (const [name, value] of Object.entries({ type: "opml_file", name: "A picture", action: "save" }))
        picture.append(name, value);
      picture.append(
        "opmlFile",
        new Blob([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex")], { type: "image/png" }),
        "blogroll.opml",
      );
      const refused = await owner.post(`${MOUNT}/sources`, picture);
      assert.equal(refused.status, 422);
      assert.match(refused.html, /This file is not a text document, so it cannot be OPML/);
      assert.match(refused.html, /<textarea[^>]*name="xml"[^>]*>\s*<\/textarea>/);
      const trailing = await owner.post(`${MOUNT}/sources`, {
        type: "opml_file",
        name: "Pasted",
        xml: `${site.text("blogroll.opml").trimEnd()}\nthanks`,
        action: "save",
      });
      assert.match(trailing.html, /Something follows the end of the OPML document, from line \d+/);
      assert.doesNotMatch(trailing.html, /outside of root node/);

      const categories = await owner.post(`${MOUNT}/sources`, {
        type: "feedland",
        name: "FL",
        instance: site.base,
        screenName: "dave",
        action: "categories",
      });
      assert.equal(categories.status, 200);
      assert.match(categories.html, /<option value="Work">/);
      const feedland = await owner.post(`${MOUNT}/sources`, {
        type: "feedland",
        name: "FL",
        instance: site.base,
        screenName: "dave",
        category: "Work",
        enabled: "true",
        action: "save",
      });
      assert.equal(feedland.status, 303);

      const sources = await storage.sources.list();
      assert.deepEqual(sources.map((source) => `${source.type}:${source.name}:${source.status}`).sort(), [
        "feedland:FL:ok",
        "opml_file:Pasted:ok",
        "opml_file:Uploaded:ok",
        "opml_url:Fixture:ok",
      ]);
      assert.match(sources.find((source) => source.name === "Uploaded")!.settings.xml ?? "", /Alpha \(file\)/);
    });

    it("source pages: edit, toggle, sync, delete", async () => {
      const source = (await storage.sources.list()).find((entry) => entry.name === "Fixture")!;
      await renders(`${MOUNT}/sources/${source.id}/edit`);
      const saved = await owner.post(`${MOUNT}/sources/${source.id}`, {
        name: "Fixture list",
        url: `${site.base}/blogroll.opml`,
        enabled: "true",
        action: "save",
      });
      assert.equal(saved.status, 303);
      assert.equal((await owner.post(`${MOUNT}/sources/${source.id}/toggle`, { enabled: "false" })).status, 303);
      assert.equal((await storage.sources.get(source.id))?.enabled, false);
      await owner.post(`${MOUNT}/sources/${source.id}/toggle`, { enabled: "true" });
      assert.equal((await storage.sources.get(source.id))?.enabled, true);
      assert.equal(
        (await owner.post(`${MOUNT}/sources/${source.id}/sync`, {})).location,
        `${MOUNT}/sources?notice=sourceSynced`,
      );

      const pasted = (await storage.sources.list()).find((entry) => entry.name === "Pasted")!;
      await renders(`${MOUNT}/sources/${pasted.id}/delete`);
      assert.equal((await owner.post(`${MOUNT}/sources/${pasted.id}/delete`, { blogs: "keep" })).status, 303);
      assert.equal(await storage.sources.get(pasted.id), null);
    });

    it("manual blogs: discover, add (one request for the feed), edit, refresh, delete; fields held to the server's limits", async () => {
      const form = await renders(`${MOUNT}/blogs/new`);
      assert.match(
        form.html,
        /<input[^>]*id="category"[^>]*maxlength="100"/,
        "the host's input component carries the limit",
      );
      const found = await owner.post(`${MOUNT}/blogs`, {
        url: `${site.base}/delta/`,
        title: "",
        category: "",
        action: "discover",
      });
      assert.equal(found.status, 200);
      assert.match(found.html, /Delta comments/);
      const added = await owner.post(`${MOUNT}/blogs`, {
        url: `${site.base}/delta/`,
        feedUrl: `${site.base}/delta.xml`,
        title: "Delta",
        category: "Friends",
        action: "add",
      });
      assert.equal(added.status, 303, added.html.slice(0, 300));
      const blog = await storage.blogs.getByFeedUrl(`${site.base}/delta.xml`);
      assert.ok(blog);
      // Fetched at once in the background, from the read that found the feed.
      for (let n = 0; n < 300 && !(await storage.blogs.get(blog.id))?.lastFetchAt; n++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok((await storage.blogs.get(blog.id))?.itemCount, "its posts are stored");
      assert.equal(site.requests.filter((request) => request === "/delta.xml").length, 1, site.requests.join(", "));

      const page = await renders(`${MOUNT}/blogs/${blog.id}`);
      assert.match(page.html, /<textarea[^>]*id="notes"[^>]*maxlength="2000"/);
      const edited = await owner.post(`${MOUNT}/blogs/${blog.id}`, {
        title: "Delta (edited)",
        category: "Friends",
        tags: "indie",
        pinned: "true",
        notes: "",
      });
      assert.equal(edited.status, 303);
      assert.equal((await storage.blogs.get(blog.id))?.title, "Delta (edited)");
      const refreshed = await owner.post(`${MOUNT}/blogs/${blog.id}/refresh`, {});
      assert.equal(refreshed.status, 303);
      assert.ok(((await storage.blogs.get(blog.id))?.itemCount ?? 0) > 0, "refresh fetched its posts");
      await renders(refreshed.location!);

      const hidden = await owner.post(`${MOUNT}/blogs/${blog.id}`, { title: "Delta (edited)", hidden: "true" });
      assert.equal(hidden.status, 303);
      assert.equal(
        (await fetch(`${host.url}${MOUNT}/api/blogs/${blog.id}`)).status,
        404,
        "a hidden blog leaves the public API",
      );

      await renders(`${MOUNT}/blogs/${blog.id}/delete`);
      assert.equal((await owner.post(`${MOUNT}/blogs/${blog.id}/delete`, {})).status, 303);
      assert.equal((await owner.page(`${MOUNT}/blogs/${blog.id}`)).status, 404);
    });

    it("a blog added by its fediverse handle (WebFinger over checked https), then given a relationship and a public note", async () => {
      const web = await startFediverseWeb();
      try {
        const found = await owner.post(`${MOUNT}/blogs`, { url: web.ana, action: "discover" });
        assert.equal(found.status, 200, found.html.slice(0, 300));
        assert.match(found.html, new RegExp(`value="${web.anaFeed}" checked`));
        const added = await owner.post(`${MOUNT}/blogs`, { url: web.ana, feedUrl: web.anaFeed, action: "add" });
        assert.equal(added.status, 303, added.html.slice(0, 300));
        const blog = (await storage.blogs.getByFeedUrl(web.anaFeed))!;
        assert.deepEqual([blog.fediverse, blog.fediverseUrl], [web.ana, web.anaProfile]);

        const page = await renders(`${MOUNT}/blogs/${blog.id}`);
        assert.match(page.html, /name="xfn-friendship"/);
        const saved = await owner.post(`${MOUNT}/blogs/${blog.id}`, {
          title: blog.title,
          "xfn-friendship": "friend",
          xfn: "met",
          note: "Posts about birds.",
          fediverse: web.ana,
        });
        assert.equal(saved.status, 303, saved.html.slice(0, 300));
        const refused = await owner.post(`${MOUNT}/blogs/${blog.id}`, {
          title: blog.title,
          "xfn-friendship": "friend",
          xfn: "me",
        });
        assert.equal(refused.status, 422);
        assert.match(refused.html, /“me” is for links to your own sites/);
        await renders(`${MOUNT}/blogs/${blog.id}`);
        const api = await (await fetch(`${host.url}${MOUNT}/api/blogs/${blog.id}`)).json();
        assert.deepEqual(
          [api.relationship, api.note, api.fediverse, api.fediverseUrl],
          [["friend", "met"], "Posts about birds.", web.ana, web.anaProfile],
        );
        // Gone with the local web: later tests sync what is left.
        assert.equal((await owner.post(`${MOUNT}/blogs/${blog.id}/delete`, {})).status, 303);
      } finally {
        await web.close();
      }
    });

    it("sync now, then clear and re-sync; the dashboard and blog list show the result", async () => {
      const sync = await owner.post(`${MOUNT}/sync`, {});
      assert.equal(sync.status, 303);
      await waitForIdle(host.url);
      const status = (await (await fetch(`${host.url}${MOUNT}/api/status`)).json()) as {
        items: { count: number };
        blogs: { count: number };
      };
      assert.ok(status.items.count > 0, `items after a sync: ${JSON.stringify(status)}`);

      await renders(MOUNT);
      await renders(`${MOUNT}/blogs`);
      await renders(`${MOUNT}/blogs?status=error`);
      await renders(`${MOUNT}/clear-resync`);
      const refused = await owner.post(`${MOUNT}/clear-resync`, {});
      assert.equal(refused.status, 422, "without the ticked box the page asks again");
      assert.deepEqual(pageProblems(refused.html, keys, { errorsExpected: true }), []);
      const cleared = await owner.post(`${MOUNT}/clear-resync`, { confirm: "yes" });
      assert.equal(cleared.status, 303);
      await waitForIdle(host.url);
      assert.ok((await storage.items.count()) > 0, "re-synced");
    });

    it("Suggestions: the page (empty, then with the blogs two blogs recommend), Add with a category, Dismiss; a blog's page shows its blogroll", async () => {
      const empty = await renders(`${MOUNT}/suggestions`);
      assert.match(empty.html, /No suggestions yet/);
      const [first, second] = (await storage.blogs.list({ visibility: "admin", limit: 2, offset: 0 })).items;
      assert.ok(first && second, "two blogs from the earlier tests");
      const recommended = (host: string) => ({
        feedUrl: `https://${host}/feed.xml`,
        siteUrl: `https://${host}/`,
        title: `Blog at ${host}`,
        description: `${host} writes`,
      });
      for (const blog of [first, second]) {
        await storage.recommendations.saveBlogroll(
          {
            blogId: blog.id,
            url: `https://friend.example/${blog.id}.opml`,
            via: "head",
            checkedAt: new Date(),
            etag: null,
            lastModified: null,
            count: 2,
          },
          [recommended("one.example"), recommended("two.example")],
        );
      }
      const page = await renders(`${MOUNT}/suggestions`);
      assert.match(page.html, /Blog at one\.example/);
      assert.match(page.html, /Recommended by 2 of your blogs/);
      assert.match(page.html, /aria-current="page"[^>]*>Suggestions|>Suggestions</);
      const added = await owner.post(`${MOUNT}/suggestions/add`, {
        feedUrl: "https://one.example/feed.xml",
        category: "Found",
      });
      assert.equal(added.status, 303, added.html.slice(0, 300));
      assert.equal((await storage.blogs.getByFeedUrl("https://one.example/feed.xml"))?.category, "Found");
      const dismissed = await owner.post(`${MOUNT}/suggestions/dismiss`, { feedUrl: "https://two.example/feed.xml" });
      assert.equal(dismissed.status, 303);
      const after = await renders(dismissed.location!);
      assert.doesNotMatch(after.html, /Blog at (one|two)\.example/);
      const blogPage = await renders(`${MOUNT}/blogs/${first.id}`);
      assert.match(blogPage.html, /Its blogroll/);
      assert.ok(blogPage.html.includes(`https://friend.example/${first.id}.opml`));
    });

    it('two sources overlap a hand-added blog: re-reads change nothing public, deleting a source with "Remove them" keeps what another origin lists', async () => {
      const feed = (name: string, tag: string) => `${site.base}/${name}.xml?overlap=${tag}`;
      const outline = (text: string, url: string) =>
        `<outline type="rss" text="${text}" xmlUrl="${url.replaceAll("&", "&amp;")}"/>`;
      const opml = (body: string) =>
        `<?xml version="1.0"?><opml version="2.0"><head><title>Overlap</title></head><body>${body}</body></opml>`;
      const mineUrl = feed("alpha", "mine");
      await renders(`${MOUNT}/blogs/new`);
      const added = await owner.post(`${MOUNT}/blogs`, {
        url: "",
        feedUrl: mineUrl,
        title: "Mine by hand",
        category: "",
        action: "add",
      });
      assert.equal(added.status, 303, added.html.slice(0, 300));
      const mine = (await storage.blogs.getByFeedUrl(mineUrl))!;
      assert.equal(
        (
          await owner.post(`${MOUNT}/blogs/${mine.id}`, {
            title: "Mine by hand",
            category: "",
            tags: "",
            pinned: "true",
            notes: "Met at the meetup",
          })
        ).status,
        303,
      );

      const folders = opml(
        `<outline text="Friends">${outline("Mine", mineUrl)}${outline("Bob", feed("beta", "bob"))}${outline("Carol", feed("gamma", "carol"))}${outline("Only here", feed("beta", "only"))}</outline>`,
      );
      const bare = opml(
        `${outline("Bob's blog", feed("beta", "bob"))}${outline("Carol's blog", feed("gamma", "carol"))}${outline("Theirs", feed("delta", "theirs"))}`,
      );
      for (const [name, xml] of [
        ["Folders", folders],
        ["Bare", bare],
      ]) {
        assert.equal(
          (await owner.post(`${MOUNT}/sources`, { type: "opml_file", name, xml, enabled: "true", action: "save" }))
            .status,
          303,
          name,
        );
      }
      await waitForIdle(host.url);
      const sources = await storage.sources.list();
      const [foldersSource, bareSource] = ["Folders", "Bare"].map((name) =>
        sources.find((source) => source.name === name)!,
      );
      const publicView = async () => {
        const blogs = (await (await fetch(`${host.url}${MOUNT}/api/blogs?limit=1000`)).json()) as {
          items: Array<{ feedUrl: string; title: string; category: string | null }>;
        };
        const opmlEtag = (await fetch(`${host.url}${MOUNT}/api/opml`)).headers.get("etag");
        const categories = await (await fetch(`${host.url}${MOUNT}/api/categories`)).json();
        return { blogs: blogs.items.filter((blog) => blog.feedUrl.includes("overlap=")), opmlEtag, categories };
      };
      const before = await publicView();
      assert.deepEqual(
        before.blogs.map((blog) => [blog.title, blog.category]).sort(),
        [
          ["Bob", "Friends"],
          ["Carol", "Friends"],
          ["Mine by hand", "Friends"],
          ["Only here", "Friends"],
          ["Theirs", null],
        ],
        "the first origin that gives a folder or title gives it; the owner's typed title wins",
      );
      for (let round = 0; round < 3; round++) {
        for (const source of [bareSource, foldersSource]) {
          assert.equal(
            (await owner.post(`${MOUNT}/sources/${source.id}/sync`, {})).location,
            `${MOUNT}/sources?notice=sourceSynced`,
          );
          const counts = (await storage.sources.get(source.id))!.lastImport!;
          assert.deepEqual(
            [counts.added, counts.updated, counts.missing],
            [0, 0, 0],
            `${source.name}, round ${round}: nothing changed`,
          );
        }
        assert.deepEqual(
          await publicView(),
          before,
          `round ${round}: the public list, its categories and the OPML ETag as they were`,
        );
      }

      const confirm = await renders(`${MOUNT}/sources/${foldersSource.id}/delete`);
      assert.match(confirm.html, /1 blog is listed by this source alone\./);
      const staying =
        /3 blogs stay, also listed by another source or by you:<\/p>\s*<ul>([\s\S]*?)<\/ul>/.exec(confirm.html)?.[1] ??
        "";
      assert.deepEqual(
        [...staying.matchAll(/<li>([^<]+)<\/li>/g)].map((match) => match[1]).sort(),
        ["Bob", "Carol", "Mine by hand"],
        "the others are named as staying",
      );
      assert.equal((await owner.post(`${MOUNT}/sources/${foldersSource.id}/delete`, { blogs: "remove" })).status, 303);
      assert.equal(await storage.blogs.getByFeedUrl(feed("beta", "only")), null, "the blog only it listed is removed");
      const kept = (await storage.blogs.get(mine.id))!;
      assert.deepEqual(
        [kept.title, kept.pinned, kept.notes],
        ["Mine by hand", true, "Met at the meetup"],
        "the owner's blog stays, pin and notes too",
      );
      const after = await publicView();
      assert.deepEqual(
        after.blogs.map((blog) => blog.title).sort(),
        ["Bob's blog", "Carol's blog", "Mine by hand", "Theirs"],
        "the other origin's values now show",
      );
      assert.match(
        (await renders(`${MOUNT}/blogs/${mine.id}`)).html,
        /Listed by\s*<\/dt>\s*<dd[^>]*>\s*You\s*</,
        "its page says the owner alone lists it now",
      );
    });

    it("refuses a form post without the CSRF token", async () => {
      assert.equal((await owner.post(`${MOUNT}/sync`, {}, { csrf: null })).status, 403);
      assert.equal((await owner.post(`${MOUNT}/sync`, {}, { csrf: "forged" })).status, 403);
    });

    it("answers the public API and OPML through the host: CORS, ETag, 304, the spec's errors", async () => {
      const blogs = await fetch(`${host.url}${MOUNT}/api/blogs`, { headers: { Origin: "https://elsewhere.example" } });
      assert.equal(blogs.status, 200);
      assert.equal(blogs.headers.get("access-control-allow-origin"), "*");
      const etag = blogs.headers.get("etag");
      assert.ok(etag);
      const body = (await blogs.json()) as { items: unknown[]; total: number; hasMore: boolean };
      assert.ok(body.total >= 3, `blogs listed: ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal((await fetch(`${host.url}${MOUNT}/api/blogs`, { headers: { "If-None-Match": etag } })).status, 304);
      const items = await fetch(`${host.url}${MOUNT}/api/items?limit=2`);
      assert.equal(((await items.json()) as { items: unknown[] }).items.length, 2, "items");
      assert.deepEqual(await (await fetch(`${host.url}${MOUNT}/api/blogs/nope`)).json(), { error: "Invalid blog ID" });
      assert.deepEqual(await (await fetch(`${host.url}${MOUNT}/api/items?limit=x`)).json(), { error: "Invalid limit" });
      const opml = await fetch(`${host.url}${MOUNT}/api/opml`);
      assert.equal(opml.headers.get("content-type"), "text/x-opml");
      assert.match(await opml.text(), /<opml version="2.0">/);
      const categories = (await (await fetch(`${host.url}${MOUNT}/api/categories`)).json()) as {
        items: Array<{ name: string; count: number }>;
      };
      assert.ok(
        categories.items.length > 0 && categories.items.every((category) => category.name && category.count > 0),
        JSON.stringify(categories),
      );
    });

    it("renders the blogroll page, its fragment and its JSON through the host (public routes, compressed): every listed blog an h-card", async () => {
      const total = ((await (await fetch(`${host.url}${MOUNT}/api/blogs?limit=1000`)).json()) as { total: number })
        .total;
      const page = await fetch(`${host.url}${MOUNT}/blogroll`, { headers: { "Accept-Encoding": "gzip" } });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      const html = await page.text();
      assert.match(html, /<title>example\.com’s blogroll<\/title>/, "titled by the owner (publication.me's host)");
      assert.ok(
        html.includes(
          `<link rel="blogroll" type="text/xml" title="example.com’s blogroll" href="${host.url}${MOUNT}/api/opml">`,
        ),
      );
      const cards = (mf2(html, { baseUrl: host.url }).items as Array<{ type: string[] }>).filter((item) =>
        item.type.includes("h-card"),
      );
      assert.equal(cards.length, total, "one h-card per listed blog");
      assert.equal(
        (await fetch(`${host.url}${MOUNT}/blogroll`, { headers: { "If-None-Match": page.headers.get("etag") ?? "" } }))
          .status,
        304,
        "the ETag survives the host's compression",
      );
      const fragment = await fetch(`${host.url}${MOUNT}/blogroll/embed`);
      assert.equal(fragment.status, 200);
      assert.ok(html.includes(await fragment.text()));
      const json = (await (await fetch(`${host.url}${MOUNT}/blogroll.json`)).json()) as {
        groups: Array<{ blogs: unknown[] }>;
      };
      assert.equal(json.groups.flatMap((group) => group.blogs).length, total);
      assert.deepEqual(await (await fetch(`${host.url}${MOUNT}/blogroll?sort=x`)).json(), { error: "Invalid sort" });
    });

    it("is discoverable through the host: the well-known files (routesWellKnown), river.rss with source:blogroll, Link headers", async () => {
      const opml = await fetch(`${host.url}/.well-known/recommendations.opml`);
      assert.equal(opml.status, 200, "mounted by the host at /.well-known/, public");
      assert.equal(opml.headers.get("content-type"), "text/x-opml");
      const body = await opml.text();
      assert.equal(body, await (await fetch(`${host.url}${MOUNT}/api/opml`)).text(), "the same document as /api/opml");
      assert.match(
        body,
        /<ownerId>https:\/\/example\.com\/<\/ownerId>/,
        "the owner is the publication (publication.me)",
      );
      assert.match(body, /<ownerName>example\.com<\/ownerName>/);
      assert.match(body, /<dateModified>[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT<\/dateModified>/);
      // The host compresses responses: the ETag is still the plugin's, and a second request gets 304.
      const again = await fetch(`${host.url}/.well-known/recommendations.opml`, {
        headers: { "If-None-Match": opml.headers.get("etag") ?? "" },
      });
      assert.equal(again.status, 304);
      const json = await fetch(`${host.url}/.well-known/recommendations.json`);
      assert.equal(json.status, 200);
      const recommendations = (await json.json()) as Array<{ url: string; created_at: string; updated_at: string }>;
      assert.ok(
        recommendations.length >= 3 &&
          recommendations.every(
            (entry) => URL.canParse(entry.url) && Object.keys(entry).join() === "url,updated_at,created_at",
          ),
        JSON.stringify(recommendations),
      );
      const hostOwn = await fetch(`${host.url}/.well-known/oauth-authorization-server`);
      assert.equal(hostOwn.status, 200, "the host's own well-known route still answers");

      const rss = await fetch(`${host.url}${MOUNT}/river.rss`);
      assert.equal(rss.status, 200);
      assert.equal(rss.headers.get("content-type"), "application/rss+xml; charset=utf-8");
      const blogroll = `<${host.url}${MOUNT}/api/opml>; rel="blogroll"; type="text/xml"`;
      assert.equal(rss.headers.get("link"), blogroll);
      assert.ok((await rss.text()).includes(`<source:blogroll>${host.url}${MOUNT}/api/opml</source:blogroll>`));
      for (const river of ["river.atom", "river.json"])
        assert.equal((await fetch(`${host.url}${MOUNT}/${river}`)).headers.get("link"), blogroll, river);
    });

    it("without the host's SECRET: the well-known files and every public route answer (the host's own IndieAuth routes say 501)", async () => {
      await host.stop();
      host = await boot({ devMode: true, withoutSecret: true });
      owner = new Browser(host.url);
      const hostOwn = await fetch(`${host.url}/.well-known/oauth-authorization-server`);
      assert.equal(hostOwn.status, 501, "the host's IndieAuth endpoint refuses without SECRET");
      for (const file of ["recommendations.opml", "recommendations.json"]) {
        const response = await fetch(`${host.url}/.well-known/${file}`, { redirect: "manual" });
        assert.equal(response.status, 200, `${file}: ${(await response.text()).slice(0, 200)}`);
      }
      const { items } = (await (await fetch(`${host.url}${MOUNT}/api/blogs`)).json()) as {
        items: Array<{ id: string }>;
      };
      assert.ok(items.length > 0);
      const publicPaths = [
        "/api/blogs",
        `/api/blogs/${items[0].id}`,
        "/api/items",
        "/api/categories",
        "/api/status",
        "/api/opml",
        "/river.rss",
        "/river.atom",
        "/river.json",
        "/widget.js",
      ];
      for (const pathname of publicPaths)
        assert.equal((await fetch(`${host.url}${MOUNT}${pathname}`, { redirect: "manual" })).status, 200, pathname);
      // A push callback: the plugin's own answer to a token it does not know, not the host's 501.
      assert.equal(
        (
          await fetch(
            `${host.url}${MOUNT}/push/websub/${"x".repeat(32)}?hub.mode=subscribe&hub.topic=t&hub.challenge=c`,
          )
        ).status,
        404,
      );
      await renders(MOUNT);
      await host.stop();
      host = await boot({ devMode: true });
      owner = new Browser(host.url);
    });

    it("wellKnown: false leaves /.well-known/ to the host (404)", async () => {
      await host.stop();
      host = await boot({ devMode: true, pluginOptions: { wellKnown: false } });
      owner = new Browser(host.url);
      for (const file of ["recommendations.opml", "recommendations.json"]) {
        assert.equal((await fetch(`${host.url}/.well-known/${file}`, { redirect: "manual" })).status, 404, file);
      }
      assert.equal((await fetch(`${host.url}${MOUNT}/api/opml`)).status, 200);
    });

    it("a blog that pushes: WebSub and rssCloud call back through the host's public routes, and the posts show at once, live through the host's compression", async (t) => {
      // Hubs reach the plugin at the host's own address (application.url, learnt from the first request).
      // The hub speaks https (a secret goes to https hubs only); Indiekit trusts the loopback certificate (NODE_EXTRA_CA_CERTS).
      const hub = await startLocalHub({ tls: true });
      const cloud = await startLocalCloud();
      const feeds = await startFeedServer();
      try {
        const atomUrl = `${feeds.origins[0]}/pushed.atom`;
        const rssUrl = `${feeds.origins[0]}/cloudy.rss`;
        let entries = [{ id: "pushed-old", at: new Date(Date.now() - 3_600_000) }];
        let cloudItems = [{ id: "cloudy-old", at: new Date(Date.now() - 3_600_000) }];
        const atom = () =>
          `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Pushed</title><id>urn:pushed</id><updated>2026-01-01T00:00:00Z</updated>` +
          `<link rel="hub" href="${hub.url}"/><link rel="self" href="${atomUrl}"/>` +
          entries
            .map(
              (entry) =>
                `<entry><id>urn:${entry.id}</id><title>${entry.id}</title><updated>${entry.at.toISOString()}</updated></entry>`,
            )
            .join("") +
          `</feed>`;
        feeds.route(
          "/pushed.atom",
          (_request, response) => void response.writeHead(200, { "content-type": "application/atom+xml" }).end(atom()),
        );
        feeds.route("/cloudy.rss", (_request, response) => {
          response
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(
              `<?xml version="1.0"?><rss version="2.0"><channel><title>Cloudy</title><link>https://cloudy.example/</link><description>d</description>` +
                `<cloud domain="${cloud.domain}" port="${cloud.port}" path="${cloud.path}" registerProcedure="" protocol="http-post"/>` +
                cloudItems
                  .map(
                    (item) =>
                      `<item><guid>${item.id}</guid><title>${item.id}</title><pubDate>${item.at.toUTCString()}</pubDate></item>`,
                  )
                  .join("") +
                `</channel></rss>`,
            );
        });
        await storage.blogs.upsertFromSource({ feedUrl: atomUrl, title: "Pushed", source: "manual" });
        await storage.blogs.upsertFromSource({ feedUrl: rssUrl, title: "Cloudy", source: "manual" });
        const verified = hub.verified(atomUrl);
        await owner.page(MOUNT); // the host was restarted with a new session: a page whose forms carry the CSRF token
        assert.equal((await owner.post(`${MOUNT}/sync`, {})).status, 303);
        await waitForIdle(host.url);
        const event = await Promise.race([
          verified,
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 60_000)),
        ]);
        assert.equal(
          event?.outcome,
          "confirmed",
          `the hub verified the subscription; Indiekit said:\n${host.output().slice(-2000)}`,
        );
        assert.ok(event && event.callback.startsWith(`${host.url}${MOUNT}/push/websub/`), event?.callback);

        const titles = async () =>
          (
            (await (await fetch(`${host.url}${MOUNT}/api/items?limit=100`)).json()) as {
              items: Array<{ title: string }>;
            }
          ).items.map((item) => item.title);
        // A visitor's page listening: Indiekit compresses every response it can; the stream must come event by event.
        const live = await openEventStream(`${host.url}${MOUNT}/api/events`, {
          "Accept-Encoding": "gzip, deflate, br",
          Origin: "https://elsewhere.example",
        });
        assert.equal(live.status, 200, live.body);
        assert.equal(live.headers["content-type"], "text/event-stream");
        assert.equal(live.headers["content-encoding"], undefined, "not compressed: Cache-Control no-transform");
        assert.equal(live.headers["access-control-allow-origin"], "*");
        await live.until("the opening frame", () => live.raw.includes("\n\n"));
        entries = [{ id: "pushed-new", at: new Date() }, ...entries];
        const notified = Date.now();
        assert.deepEqual(await hub.publish(atomUrl, atom()), [200]);
        assert.ok((await titles()).includes("pushed-new"), "stored before the hub had its answer");
        // The keep-alive comment is 25 s away and nothing else is sent: the event arrives on its own or not at all.
        const pushed = await live.next("post");
        t.diagnostic(
          `the post's live event came through Indiekit ${Date.now() - notified} ms after the hub began notifying`,
        );
        assert.equal(dataOf<{ title: string }>(pushed).title, "pushed-new");
        live.close();
        assert.deepEqual(
          await hub.publish(atomUrl, atom().replace("pushed-new", "forged"), { signature: "wrong" }),
          [202],
        );
        assert.ok(!(await titles()).includes("forged"));
        // Indiekit parses JSON bodies before the plugin: a JSON delivery's signature cannot be checked, so it is refused and fetches nothing.
        const fetchesBefore = feeds.hits("/pushed.atom");
        const jsonFeed = JSON.stringify({
          version: "https://jsonfeed.org/version/1.1",
          title: "Pushed",
          items: [{ id: "json", title: "json-forged" }],
        });
        assert.deepEqual(await hub.publish(atomUrl, jsonFeed, { contentType: "application/json" }), [415]);
        assert.equal(feeds.hits("/pushed.atom"), fetchesBefore, "no fetch for a body the host parsed");
        assert.ok(!(await titles()).includes("json-forged"));

        const deadline = Date.now() + 60_000;
        while (!cloud.registrations.some((registration) => registration.feedUrl === rssUrl) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(
          cloud.requests.some((request) => request.success),
          `registered with the cloud: ${JSON.stringify(cloud.requests)}`,
        );
        cloudItems = [{ id: "cloudy-new", at: new Date() }, ...cloudItems];
        // Indiekit parses the form body before the plugin sees it: the notification still names the feed.
        assert.deepEqual(await cloud.notify(rssUrl), [200]);
        while (!(await titles()).includes("cloudy-new") && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok((await titles()).includes("cloudy-new"));
      } finally {
        await feeds.close();
        await hub.close();
        await cloud.close();
      }
    });

    it("keeps its data across a restart of the host", async () => {
      const before = ((await (await fetch(`${host.url}${MOUNT}/api/blogs`)).json()) as { total: number }).total;
      await host.stop();
      host = await boot({ devMode: true });
      owner = new Browser(host.url);
      const after = ((await (await fetch(`${host.url}${MOUNT}/api/blogs`)).json()) as { total: number }).total;
      assert.equal(after, before);
      await renders(`${MOUNT}/sources`);
    });

    it(
      "looks like Indiekit (Chromium): fields spaced and sized like the host's share form, the filter's selects and button, no visible captions, the progress line apart",
      { skip: browserSkip },
      async (t) => {
        const browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        });
        try {
          const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
          await page.goto(`${host.url}/share`);
          const theirs = await measureForm(page);
          t.diagnostic(`the host's share form: ${JSON.stringify(theirs)}`);
          assert.ok(
            theirs.inputWidths.length >= 2 && theirs.fieldGaps.length >= 1,
            `the host's share form: ${JSON.stringify(theirs)}`,
          );
          for (const pathname of [`${MOUNT}/blogs/new`, `${MOUNT}/sources/new?type=opml_url`]) {
            await page.goto(host.url + pathname);
            const ours = await measureForm(page);
            t.diagnostic(`${pathname}: ${JSON.stringify(ours)}`);
            for (const width of ours.inputWidths)
              assert.ok(
                Math.abs(width - theirs.inputWidths[0]) <= 1,
                `${pathname}: inputs ${ours.inputWidths} wide, the host's ${theirs.inputWidths[0]}`,
              );
            assert.ok(
              Math.abs(Math.min(...ours.fieldGaps) - Math.min(...theirs.fieldGaps)) <= 2,
              `${pathname}: gaps ${ours.fieldGaps} below inputs, the host's ${theirs.fieldGaps}`,
            );
          }
          await page.goto(`${host.url}${MOUNT}/blogs/new`);
          assert.ok(
            (await gapBetween(page, "#url", "button[value=discover]")) >= 16,
            "Find feeds stands apart from the field above",
          );

          await page.goto(`${host.url}${MOUNT}/blogs`);
          const filters = await measureFilters(page);
          t.diagnostic(`blogs filter: ${JSON.stringify(filters)}`);
          assert.ok(
            filters.textRoom.every((room) => room >= 0),
            `each select's text clear of its arrow: ${filters.textRoom}`,
          );
          assert.ok(
            Math.abs(filters.buttonOffset) <= 2,
            `the Filter button level with the fields: ${filters.buttonOffset}`,
          );

          for (const pathname of [MOUNT, `${MOUNT}/sources`, `${MOUNT}/blogs`]) {
            await page.goto(host.url + pathname);
            assert.deepEqual(await visibleCaptions(page), [], `${pathname}: no table repeats the heading as a caption`);
          }
          // The tick boxes' column names itself to screen readers only: it takes no room above the boxes.
          assert.equal(
            (await visibleHeaders(page))[0],
            "",
            `the blogs list's first column: ${JSON.stringify(await visibleHeaders(page))}`,
          );
          await page.goto(`${host.url}${MOUNT}`);
          // The sections are drawn as the host draws its own navigation (the header's), not as underlined links.
          const hostNavigation = await measureNavigation(page, ".header .navigation");
          const sections = await measureNavigation(page, ".blogroll-sections");
          t.diagnostic(`navigation: host ${JSON.stringify(hostNavigation)}, sections ${JSON.stringify(sections)}`);
          assert.deepEqual(sections.link, hostNavigation.link, "links: colour, no underline, padding");
          assert.deepEqual(sections.current, hostNavigation.current, "the current one on the host's bar");
          const titles = await fontOf(page, ".section__title", "subhead");
          assert.equal(titles.ours, titles.host, "section titles in the host's subhead, under the page's heading");
          await page.evaluate(() => {
            const line = document.getElementById("blogroll-progress")!;
            line.hidden = false;
            line.textContent = "Syncing: 3 of 9 blogs fetched";
          });
          assert.ok(
            (await gapBetween(page, "#blogroll-sync-times", "#blogroll-progress")) >= 8,
            "the progress line stands apart from the table above",
          );
          assert.ok(
            (await gapBetween(page, "#blogroll-progress", "#blogroll-progress ~ .blogroll-actions")) >= 8,
            "and from the buttons below",
          );
        } finally {
          await browser.close();
        }
      },
    );

    it(
      "a pending blog's page (Chromium): when its slow first fetch lands, the heading (with the host's parent link), the untouched fields and Freshness and health follow; saving keeps the host name untyped",
      { skip: browserSkip },
      async () => {
        const feeds = await startFeedServer();
        const browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        });
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        try {
          const feedUrl = `${feeds.origins[0]}/slow.xml`;
          // A list that names the feed without a title: the blog carries its host name until the feed names itself.
          feeds.route(
            "/untitled.opml",
            (_request, response) =>
              void response
                .writeHead(200, { "content-type": "text/x-opml" })
                .end(
                  `<?xml version="1.0"?><opml version="2.0"><head/><body><outline type="rss" xmlUrl="${feedUrl}"/></body></opml>`,
                ),
          );
          feeds.route("/slow.xml", async (_request, response) => {
            await held;
            response
              .writeHead(200, { "content-type": "application/rss+xml" })
              .end(
                `<?xml version="1.0"?><rss version="2.0"><channel><title>Slow Feed</title><link>${feeds.origins[0]}/</link><item><guid>s1</guid><title>Slow post</title><pubDate>${new Date(Date.now() - 3_600_000).toUTCString()}</pubDate></item></channel></rss>`,
              );
          });
          await owner.page(`${MOUNT}/sources/new?type=opml_url`);
          const saved = await owner.post(`${MOUNT}/sources`, {
            type: "opml_url",
            name: "Untitled list",
            url: `${feeds.origins[0]}/untitled.opml`,
            enabled: "true",
            action: "save",
          });
          assert.equal(saved.status, 303, saved.html.slice(0, 300));
          const blog = await storage.blogs.getByFeedUrl(feedUrl);
          assert.equal(blog?.title, "127.0.0.1");

          const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
          page.setDefaultTimeout(30_000);
          await page.goto(`${host.url}${MOUNT}/blogs/${blog.id}`);
          const heading = page.locator("main h1");
          assert.match((await heading.textContent()) ?? "", /127\.0\.0\.1/);
          assert.equal(await page.locator("#title").inputValue(), "127.0.0.1");
          assert.match((await page.locator("#blogroll-blog-health").textContent()) ?? "", /Not fetched yet/);
          await page.locator("#tags").fill("slow");
          await heading.click();
          await page.screenshot({
            path: path.join(packageRoot, "test", "artifacts", "indiekit-placeholder-pending.png"),
            fullPage: true,
          });

          release();
          await heading.getByText("Slow Feed").waitFor();
          assert.equal(
            await heading.locator("a.heading__parent").count(),
            1,
            "the host's link to the parent page stays in the heading",
          );
          assert.equal(await page.locator("#title").inputValue(), "Slow Feed");
          assert.equal(await page.locator("#tags").inputValue(), "slow", "what the owner typed stays");
          assert.doesNotMatch((await page.locator("#blogroll-blog-health").textContent()) ?? "", /Not fetched yet/);
          await page.screenshot({
            path: path.join(packageRoot, "test", "artifacts", "indiekit-placeholder-fetched.png"),
            fullPage: true,
          });
          await page.locator("#blogroll-blog-form button").click();
          await page.waitForURL(/notice=blogSaved/);
          const after = (await storage.blogs.get(blog.id))!;
          assert.deepEqual([after.title, after.tags, after.ownerEdited], ["Slow Feed", ["slow"], ["tags"]]);
        } finally {
          release();
          await browser.close();
          await feeds.close();
        }
      },
    );

    it(
      "accessible inside Indiekit (Chromium): axe-core finds nothing in the plugin's pages, the host's error summary takes the focus, error pages say so in the tab",
      { skip: browserSkip },
      async () => {
        const browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        });
        try {
          const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
          const blogs = (await (await fetch(`${host.url}${MOUNT}/api/blogs`)).json()) as {
            items: Array<{ id: string }>;
          };
          const found: string[] = [];
          for (const pathname of [
            MOUNT,
            `${MOUNT}/sources`,
            `${MOUNT}/sources/new?type=opml_file`,
            `${MOUNT}/blogs`,
            `${MOUNT}/blogs/new`,
            `${MOUNT}/blogs/${blogs.items[0].id}`,
            `${MOUNT}/suggestions`,
          ]) {
            await page.goto(host.url + pathname);
            // The plugin's part of the page: what the host draws around it is the host's.
            for (const violation of await axeViolations(page, { include: ["main"] }))
              found.push(`${pathname}: ${violation}`);
          }
          assert.deepEqual(found, []);

          await page.goto(`${host.url}${MOUNT}/blogs/new`);
          await page.getByRole("button", { name: "Add blog", exact: true }).click();
          await page.waitForSelector(".error-summary");
          await page.waitForFunction(() => document.activeElement?.classList.contains("error-summary"));
          assert.match(await page.title(), /^Error: Add a blog - Indiekit$/);
          await page.goto(`${host.url}${MOUNT}/blogs/ffffffffffffffffffffffff`);
          assert.equal(await page.title(), "Error: Not found - Indiekit");
        } finally {
          await browser.close();
        }
      },
    );

    it("on the host's home page and plugin pages: a Blogroll card, the plugin's icon; the log says where the data went", async () => {
      const home = await renders("/");
      const card =
        /<section class="widget"[^>]*>[\s\S]*?<\/section>/.exec(
          home.html.slice(home.html.indexOf('src="/assets/indiekit-endpoint-blogroll/icon.svg"') - 400),
        )?.[0] ?? "";
      assert.match(card, /Blogroll/, "the card is there, titled");
      assert.match(card, new RegExp(`href="${MOUNT}/blogs/new"`), "it offers to add a blog");
      const icon = await fetch(`${host.url}/assets/indiekit-endpoint-blogroll/icon.svg`);
      assert.equal(icon.status, 200, "the plugins page's tile has its icon");
      assert.match(icon.headers.get("content-type") ?? "", /image\/svg\+xml/);
      assert.match(
        host.output(),
        new RegExp(`\\[blogroll\\] data: SQLite \\(${databasePath().replaceAll("/", "\\/").replaceAll(".", "\\.")}\\)`),
      );
    });

    it("renders translated in another of the host's locales (Swedish)", async () => {
      for (const [locale, word] of [["sv", "Källor"]] as const) {
        await host.stop();
        host = await boot({ devMode: true, locale });
        owner = new Browser(host.url);
        const page = await renders(`${MOUNT}/sources`);
        assert.match(page.html, new RegExp(word), `${locale}: translated`);
        await renders(MOUNT);
        await renders(`${MOUNT}/blogs`);
      }
    });

    it("without dev mode: the admin wants a login; a token of the host's own endpoint runs the JSON admin actions", async () => {
      await host.stop();
      host = await boot({ devMode: false });
      const stranger = new Browser(host.url);
      const page = await stranger.page(MOUNT);
      assert.equal(page.status, 302);
      assert.match(page.location ?? "", /^\/session\/login/);
      assert.equal(
        (await fetch(`${host.url}/.well-known/recommendations.opml`, { redirect: "manual" })).status,
        200,
        "the well-known file is public, before the host's login",
      );
      assert.equal(
        (await fetch(`${host.url}${MOUNT}/blogroll`, { redirect: "manual" })).status,
        200,
        "the blogroll page is public, before the host's login",
      );
      const anonymous = await fetch(`${host.url}${MOUNT}/sync`, {
        method: "POST",
        headers: { Accept: "application/json" },
      });
      assert.notEqual(anonymous.status, 202);

      const token = signHostToken(kit, SECRET, { me: "https://example.com", scope: "create update delete media" });
      const bearer = { Authorization: `Bearer ${token}`, Accept: "application/json" };
      const sync = await fetch(`${host.url}${MOUNT}/sync`, { method: "POST", headers: bearer });
      assert.equal(sync.status, 202, await sync.clone().text());
      assert.equal(((await sync.json()) as { status: string }).status, "ok");
      await waitForIdle(host.url);
      const webhook = await fetch(`${host.url}${MOUNT}/api/microsub-webhook`, {
        method: "POST",
        headers: { ...bearer, "Content-Type": "application/json" },
        body: JSON.stringify({ action: "follow", url: "https://x.example/feed" }),
      });
      assert.equal(webhook.status, 503, "past authentication and CSRF: the integration is absent without MongoDB");
      assert.deepEqual(await webhook.json(), { ok: false, error: "Microsub integration not available" });
      const microsubStatus = await fetch(`${host.url}${MOUNT}/api/microsub-status`, { headers: bearer });
      assert.equal(microsubStatus.status, 200);
      const wrong = signHostToken(kit, "not-the-secret", { me: "https://example.com", scope: "create" });
      const refused = await fetch(`${host.url}${MOUNT}/sync`, {
        method: "POST",
        headers: { ...bearer, Authorization: `Bearer ${wrong}` },
      });
      assert.notEqual(refused.status, 202);
    });

    it("on SIGTERM mid-sync (Indiekit exits without calling plugins) the sync's lease is handed back", async () => {
      // Feeds that never answer keep the run going until the host is stopped.
      const hanging = createServer(() => undefined);
      await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
      const slow = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
      try {
        const outlines = Array.from(
          { length: 4 },
          (_, n) => `<outline type="rss" text="Slow ${n}" xmlUrl="${slow}/feed-${n}.xml"/>`,
        ).join("");
        await storage.sources.create({
          type: "opml_file",
          name: "Slow",
          settings: { xml: `<opml version="2.0"><head/><body>${outlines}</body></opml>` },
        });
        const token = signHostToken(kit, SECRET, { me: "https://example.com", scope: "create update delete media" });
        const started = await fetch(`${host.url}${MOUNT}/sync`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
        });
        assert.equal(started.status, 202);
        await waitFor(host.url, (status) => status.isRunning);
        assert.equal(
          await storage.meta.acquireLease("sync", "e2e-test", 60_000),
          false,
          "the host's run holds the lease",
        );
        await host.stop();
        assert.equal(
          await storage.meta.acquireLease("sync", "e2e-test", 60_000),
          true,
          "the lease was handed back before the host exited",
        );
        await storage.meta.releaseLease("sync", "e2e-test");
      } finally {
        hanging.closeAllConnections();
        hanging.close();
      }
    });
  },
);

/** Waits until /api/status says what `done` wants. */
async function waitFor(base: string, done: (status: { isRunning: boolean }) => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await (await fetch(`${base}${MOUNT}/api/status`)).json()) as { isRunning: boolean };
    if (done(status)) return;
    if (Date.now() > deadline) throw new Error(`status still ${JSON.stringify(status)} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const waitForIdle = (base: string) => waitFor(base, (status) => !status.isRunning);
