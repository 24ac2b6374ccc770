import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import BlogrollEndpoint from "../index.js";
import { OptionsError, resolveOptions } from "../lib/options.js";
import { createFakeDb } from "./support/fake-mongo.js";
import { microsubFollow } from "./support/microsub-follow.js";
import { memoryLogger } from "./support/server.js";

/** A follow in the Microsub channel "News". */
const follow = (feedUrl: string, title: string) => ({
  feedUrl,
  title,
  siteUrl: "https://followed.example/",
  channel: "News",
  feedId: "f1",
  channelId: "c1",
});

/** The part of the database getBlogrollDb gives that the Microsub plugin uses. */
interface MicrosubView {
  collection(name: string): {
    findOne(filter: object): Promise<Record<string, unknown> | null>;
    updateOne(filter: object, update: object, options?: object): Promise<unknown>;
  };
}

/** An object shaped like Indiekit, recording what the plugin asks of it. */
function fakeIndiekit(withDatabase: boolean) {
  const db = createFakeDb();
  const calls = { endpoints: [] as unknown[], collections: [] as string[] };
  const collections = new Map<string, unknown>();
  const application: Record<string, unknown> = { collections };
  return {
    calls,
    db,
    application,
    config: { application },
    collections,
    database: withDatabase ? db : null,
    addEndpoint(endpoint: unknown) {
      calls.endpoints.push(endpoint);
    },
    addCollection(name: string) {
      calls.collections.push(name);
      // Like Indiekit: only adds the collection when a database is connected.
      if (withDatabase) collections.set(name, db.collection(name));
    },
  };
}

describe("plugin class", () => {
  it("defaults every option as documented", () => {
    // The whole table, written out: a default that changes (a guard switched off, a limit raised) fails here.
    assert.deepEqual(resolveOptions({}), {
      mountPath: "/blogrollapi",
      syncInterval: 60_000,
      minFetchInterval: 900_000,
      maxFetchInterval: 86_400_000,
      dormantAfterDays: 180,
      initialSyncDelay: 15_000,
      maxItemsPerBlog: 50,
      maxItemAge: 7,
      fetchTimeout: 15_000,
      maxBodySize: 5_242_880,
      concurrency: 16,
      perHostConcurrency: 2,
      allowPrivateNetworks: false,
      cors: "*",
      cacheMaxAge: 300,
      mongodbUrl: null,
      databasePath: "data/blogroll.db",
      scheduler: true,
      riverTitle: "Blogroll",
      riverDescription: "The newest posts of the blogs in this blogroll",
      riverHomePageUrl: null,
      wellKnown: true,
      publicUrl: null,
      ownerName: null,
      push: true,
      siteIcons: true,
      minRecommenders: 2,
      locale: null,
      live: true,
      liveMaxConnections: 1000,
      liveMaxPerAddress: 8,
      liveKeepAlive: 25_000,
    });
    assert.deepEqual(
      resolveOptions({ allowPrivateNetworks: undefined, perHostConcurrency: undefined }),
      resolveOptions({}),
      "an option given as undefined takes its default",
    );
  });

  it("merges options over the documented defaults", () => {
    const plugin = new BlogrollEndpoint({ syncInterval: 60_000, mongodbUrl: null });
    assert.equal(plugin.mountPath, "/blogrollapi");
    assert.equal(plugin.options.syncInterval, 60_000);
    assert.equal(plugin.options.maxItemsPerBlog, 50);
    assert.equal(plugin.options.maxItemAge, 7);
    assert.equal(plugin.options.fetchTimeout, 15_000);
    assert.equal(plugin.options.concurrency, 16);
    assert.equal(new BlogrollEndpoint({ mountPath: "/roll/" }).mountPath, "/roll");
    const defaults = new BlogrollEndpoint({ mongodbUrl: null }).options;
    assert.deepEqual(
      [defaults.syncInterval, defaults.minFetchInterval, defaults.maxFetchInterval, defaults.dormantAfterDays],
      [60_000, 900_000, 86_400_000, 180],
      "the scheduler looks for due blogs every minute; a blog is fetched every 15 min to 24 h",
    );
    assert.ok(defaults.syncInterval! <= defaults.minFetchInterval!);
  });

  it("accepts every duration option at its maximum", () => {
    const plugin = new BlogrollEndpoint({
      mongodbUrl: null,
      syncInterval: 2 ** 31 - 1,
      initialSyncDelay: 2 ** 31 - 1,
      fetchTimeout: 2 ** 31 - 1,
      maxItemAge: 36_500,
      cacheMaxAge: 31_536_000,
      minFetchInterval: 2 ** 31 - 1,
      maxFetchInterval: 2 ** 31 - 1,
      dormantAfterDays: 36_500,
    });
    assert.equal(plugin.options.syncInterval, 2 ** 31 - 1);
    assert.equal(plugin.options.maxFetchInterval, 2 ** 31 - 1);
  });

  it("throws a clear error on invalid options", () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ syncInterval: -1 }, /syncInterval/],
      [{ syncInterval: "often" }, /syncInterval/],
      [{ mountPath: "blogroll" }, /mountPath/],
      [{ mountPath: "/" }, /mountPath/],
      [{ maxItemsPerBlog: 2.5 }, /maxItemsPerBlog/],
      [{ fetchTimeout: 0 }, /fetchTimeout/],
      [{ allowPrivateNetworks: "yes" }, /allowPrivateNetworks/],
      [{ mongodbUrl: "http://db" }, /mongodbUrl/],
      // Node turns a timer over 2^31-1 ms (≈24.8 days) into 1 ms: a 30-day interval would sync back to back.
      [{ syncInterval: 30 * 24 * 3600_000 }, /"syncInterval" must be a number from 1000 to 2147483647/],
      [{ initialSyncDelay: 2 ** 31 }, /initialSyncDelay/],
      [{ fetchTimeout: 2 ** 31 }, /fetchTimeout/],
      [{ maxItemAge: 1e9 }, /maxItemAge/],
      [{ cacheMaxAge: 1e12 }, /cacheMaxAge/],
      [{ minFetchInterval: 999 }, /"minFetchInterval" must be a number from 1000 to 2147483647/],
      [{ maxFetchInterval: 2 ** 31 }, /"maxFetchInterval" must be a number from 1000 to 2147483647/],
      [
        { minFetchInterval: 7_200_000, maxFetchInterval: 3_600_000 },
        /"maxFetchInterval" must be at least minFetchInterval/,
      ],
      [{ dormantAfterDays: 0 }, /dormantAfterDays/],
      [{ locale: "not a language" }, /"locale" must be a language tag/],
      [{ locale: 7 }, /"locale"/],
      [{ live: "yes" }, /"live" must be true or false/],
      [{ liveMaxConnections: 0 }, /liveMaxConnections/],
      [{ liveMaxPerAddress: 2.5 }, /"liveMaxPerAddress" must be an integer/],
      [{ liveKeepAlive: 999 }, /"liveKeepAlive" must be a number from 1000 to 2147483647/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => new BlogrollEndpoint(options),
        (error: unknown) => error instanceof OptionsError && message.test((error as Error).message),
      );
    }
  });

  it("the page's language: the locale option, else the host's publication.locale, else its application.locale, else English", async () => {
    const plugin = new BlogrollEndpoint({ mongodbUrl: null, scheduler: false });
    assert.equal(plugin.context.owner().locale, "en");
    const host = (publication: Record<string, unknown>, application: Record<string, unknown>) => ({
      addEndpoint() {},
      publication,
      application,
    });
    await plugin.init(host({ locale: "de" }, { locale: "fr" }));
    assert.equal(plugin.context.owner().locale, "de");
    await plugin.init(host({}, { locale: "pt-br" }));
    assert.equal(plugin.context.owner().locale, "pt-BR", "canonical");
    const chosen = new BlogrollEndpoint({ mongodbUrl: null, scheduler: false, locale: "sv" });
    await chosen.init(host({ locale: "de" }, {}));
    assert.equal(chosen.context.owner().locale, "sv");
    await plugin.destroy();
    await chosen.destroy();
  });

  it("exposes the getters a host reads", () => {
    const plugin = new BlogrollEndpoint({ mongodbUrl: null });
    assert.equal(plugin.name, "Blogroll endpoint");
    assert.deepEqual(plugin.navigationItems, {
      href: "/blogrollapi",
      text: "blogroll.title",
      iconName: "bookmark",
      requiresDatabase: false,
    });
    assert.equal(plugin.shortcutItems.url, "/blogrollapi");
    // Indiekit reads views/, locales/, assets/ and package.json from the folder of the main module.
    for (const file of ["views/blogroll-dashboard.njk", "locales/en.json", "assets/styles.css", "package.json"]) {
      assert.ok(existsSync(path.join(plugin.filePath, file)), file);
    }
    assert.equal(typeof plugin.routes, "function");
    assert.equal(typeof plugin.routesPublic, "function");
    assert.equal(plugin.routes, plugin.routes, "routers are built once");
  });

  it("shows the host's plugin page its options without nulls or credentials", () => {
    const plugin = new BlogrollEndpoint({ mongodbUrl: "mongodb://ada:hunter2@db.example:27017/blog" });
    assert.equal(plugin.options.mongodbUrl, "mongodb://db.example:27017/blog");
    assert.equal(plugin.settings.mongodbUrl, "mongodb://ada:hunter2@db.example:27017/blog");
    const unset = new BlogrollEndpoint({ mongodbUrl: null });
    assert.ok(!("mongodbUrl" in unset.options));
    assert.ok(Object.values(unset.options).every((value) => value !== null && value !== undefined));
  });

  it("init without a host database: registers, asks for collections, falls back to SQLite", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "blogroll-plugin-"));
    const host = fakeIndiekit(false);
    const logged: string[] = [];
    const plugin = new BlogrollEndpoint(
      { databasePath: path.join(folder, "sub", "b.db"), mongodbUrl: null, scheduler: false },
      memoryLogger(logged),
    );
    await plugin.init(host);
    assert.ok(
      logged.some((line) => line.includes(`data: SQLite (${path.join(folder, "sub", "b.db")})`)),
      `the start says where the data goes: ${logged.join(" | ")}`,
    );
    assert.deepEqual(host.calls.endpoints, [plugin]);
    assert.deepEqual(host.calls.collections, [
      "blogrollSources",
      "blogrollBlogs",
      "blogrollItems",
      "blogrollMeta",
      "blogrollPush",
      "blogrollRecommendations",
      "blogrollEvents",
    ]);
    assert.equal(typeof host.application.getBlogrollDb, "function");
    assert.equal((host.application.getBlogrollDb as () => unknown)(), null);
    assert.match(plugin.describeStorage(), /^SQLite/);
    const storage = await plugin.getStorage();
    assert.equal(storage.kind, "sqlite");
    assert.ok(existsSync(path.join(folder, "sub", "b.db")), "the database folder is created");
    assert.equal(plugin.context.getMicrosub(), null);
    await plugin.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it("init with a host database: uses the host's collections and offers getBlogrollDb", async () => {
    const host = fakeIndiekit(true);
    const logged: string[] = [];
    const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null }, memoryLogger(logged));
    await plugin.init(host);
    assert.match(plugin.describeStorage(), /MongoDB \(host collections\)/);
    assert.ok(
      logged.some((line) => line.includes("data: MongoDB (host collections)")),
      logged.join(" | "),
    );
    const storage = await plugin.getStorage();
    assert.equal(storage.kind, "mongodb");
    await storage.blogs.upsertFromSource({ feedUrl: "https://a.example/feed", title: "A", source: "manual" });
    const raw = await (
      host.collections.get("blogrollBlogs") as { findOne(filter: object): Promise<Record<string, unknown> | null> }
    ).findOne({ feedUrl: "https://a.example/feed" });
    assert.equal(raw?.title, "A");
    const shared = (host.application.getBlogrollDb as () => MicrosubView)();
    const viaMicrosub = await shared.collection("blogrollBlogs").findOne({ feedUrl: "https://a.example/feed" });
    assert.equal(viaMicrosub?.title, "A", "the Microsub plugin reads our blogs through it");
    await plugin.destroy();
  });

  it("the Microsub plugin's follows and unfollows, written straight into blogrollBlogs, record live events", async () => {
    const host = fakeIndiekit(true);
    const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null }, memoryLogger([]));
    await plugin.init(host);
    const storage = await plugin.getStorage();
    const { newest } = await storage.events.bounds();
    // What the Microsub plugin does on a follow and an unfollow (see docs/indiekit.md).
    const blogs = (host.application.getBlogrollDb as () => MicrosubView)().collection("blogrollBlogs");
    const feedUrl = "https://followed.example/feed.xml";
    await microsubFollow(blogs, follow(feedUrl, "Followed"));
    const followed = await storage.blogs.getByFeedUrl(feedUrl);
    assert.ok(followed, "the follow is a blog");
    await blogs.updateOne(
      { feedUrl, source: "microsub" },
      { $set: { status: "deleted", hidden: true, deletedAt: new Date() } },
    );
    const events = await storage.events.after(newest, 100);
    assert.deepEqual(
      events.map((event) => (event.kind === "blog" ? `${event.blogId} ${event.change}` : event.kind)),
      [`${followed.id} added`, `${followed.id} removed`],
    );
    await plugin.destroy();
  });

  it("a blog the Microsub plugin follows, or follows again under a new title, is listed by its title at once", async () => {
    const host = fakeIndiekit(true);
    const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null }, memoryLogger([]));
    await plugin.init(host);
    const storage = await plugin.getStorage();
    await storage.blogs.upsertFromSource({ feedUrl: "https://m.example/feed", title: "Middle", source: "manual" });
    const blogs = (host.application.getBlogrollDb as () => MicrosubView)().collection("blogrollBlogs");
    const titles = async () =>
      (await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).items.map((blog) => blog.title);
    await microsubFollow(blogs, follow("https://followed.example/feed.xml", "Alpha"));
    assert.deepEqual(await titles(), ["Alpha", "Middle"]);
    // Followed again (another channel, a renamed feed): the title changes, and so does its place.
    await microsubFollow(blogs, follow("https://followed.example/feed.xml", "Zulu"));
    assert.deepEqual(await titles(), ["Middle", "Zulu"]);
    await plugin.destroy();
  });

  it("detects the Microsub plugin's collections, even when they appear after init", async () => {
    const host = fakeIndiekit(true);
    const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null }, memoryLogger([]));
    await plugin.init(host);
    assert.equal(plugin.context.getMicrosub(), null);
    host.collections.set("microsub_channels", host.db.collection("microsub_channels"));
    assert.equal(plugin.context.getMicrosub(), null, "channels alone are not enough");
    host.collections.set("microsub_feeds", host.db.collection("microsub_feeds"));
    assert.notEqual(plugin.context.getMicrosub(), null);
    await plugin.destroy();
  });

  it("starts the scheduler on init and stops it on destroy", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "blogroll-plugin-"));
    const plugin = new BlogrollEndpoint(
      { databasePath: path.join(folder, "b.db"), mongodbUrl: null, initialSyncDelay: 60_000 },
      memoryLogger([]),
    );
    await plugin.init(fakeIndiekit(false));
    const status = await plugin.context.scheduler.getStatus();
    assert.ok(status.nextSync, "a first sync is scheduled");
    await plugin.destroy();
    rmSync(folder, { recursive: true, force: true });
  });
});
