/**
 * The benchmarks' feed generator and fixture server, exercised small: every
 * generated feed (all four formats) syncs through the real runner and store,
 * per-host limits hold on the fixture's host names, and an immediate
 * re-sync is answered 304 throughout. Keeps bench/ from drifting away from
 * the product it measures.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { resolveOptions } from "../../lib/options.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { loopbackDispatcher, startFeedFixture, type FeedFixture } from "../../bench/support/fixture-server.js";
import { addBlogs } from "../../bench/support/stores.js";
import { openTempStorage, type TempStorage } from "../sync/harness.js";

const FEEDS = 24;
let fixture: FeedFixture;
let store: TempStorage;

before(async () => {
  fixture = await startFeedFixture({ feeds: FEEDS, hosts: 4, delayMs: 0 });
  store = await openTempStorage();
});
after(async () => {
  await store.cleanup();
  await fixture.close();
  await closeParsePool();
});

test("generated feeds of every format sync through the real runner, then re-sync as 304s", async () => {
  const formats = new Set(Array.from({ length: FEEDS }, (_, index) => fixture.describe(index).format));
  assert.ok(formats.size >= 4, `every format generated: ${[...formats].join(", ")}`);
  await addBlogs(
    store.storage,
    Array.from({ length: FEEDS }, (_, index) => fixture.urlOf(index)),
  );

  const options = resolveOptions({
    concurrency: 8,
    perHostConcurrency: 2,
    allowPrivateNetworks: true,
    mongodbUrl: null,
  });
  const run = createSyncRunner({ options, dispatcher: loopbackDispatcher(2) });
  const context = () => ({ signal: new AbortController().signal, everyone: true, progress: () => undefined });

  const first = await run(store.storage, context());
  assert.equal(first.blogs.success, FEEDS, `all feeds parsed (${first.blogs.failed} failed)`);
  const expectedItems = Array.from({ length: FEEDS }, (_, index) =>
    Math.min(fixture.describe(index).items, options.maxItemsPerBlog),
  );
  assert.ok(first.items.added > 0);
  assert.ok(first.items.added <= expectedItems.reduce((sum, count) => sum + count, 0));

  // A success leaves no nextFetchAt: every blog is due again at once.
  const before304 = (await fixture.stats()).byStatus["304"] ?? 0;
  const second = await run(store.storage, context());
  assert.equal(second.blogs.notModified, FEEDS, "the fixture answers 304 to the validators it gave");
  assert.equal(second.items.added, 0);
  assert.equal(((await fixture.stats()).byStatus["304"] ?? 0) - before304, FEEDS);
});

test("the home-pages fixture: feeds without images, half the sites declaring an icon, found once and not asked again", async () => {
  const homes = await startFeedFixture({ feeds: 8, hosts: 2, delayMs: 0, homePages: true });
  const icons = await openTempStorage();
  try {
    await addBlogs(
      icons.storage,
      Array.from({ length: 8 }, (_, index) => homes.urlOf(index)),
    );
    const options = resolveOptions({
      concurrency: 4,
      perHostConcurrency: 2,
      allowPrivateNetworks: true,
      mongodbUrl: null,
    });
    const run = createSyncRunner({ options, dispatcher: loopbackDispatcher(2) });
    const context = () => ({ signal: new AbortController().signal, everyone: true, progress: () => undefined });
    const first = await run(icons.storage, context());
    assert.equal(first.blogs.success, 8);
    assert.deepEqual(
      (await homes.stats()).byKind,
      { feed: 8, "home page": 8, favicon: 1, "well-known": 2 },
      "a page per blog, one favicon for the host whose pages declare none (odd blogs), one well-known blogroll path per host",
    );
    const { items: blogs } = await icons.storage.blogs.list({ limit: 8, offset: 0, visibility: "admin" });
    const withIcon = blogs
      .filter((blog) => blog.iconUrl)
      .map((blog) => new URL(blog.iconUrl!).pathname)
      .sort();
    assert.deepEqual(withIcon, ["/blog0/icon.png", "/blog2/icon.png", "/blog4/icon.png", "/blog6/icon.png"]);
    await run(icons.storage, context());
    assert.deepEqual(
      (await homes.stats()).byKind,
      { feed: 16, "home page": 8, favicon: 1, "well-known": 2 },
      "the re-sync asks only the feeds (blogrolls are looked at weekly)",
    );
  } finally {
    await icons.cleanup();
    await homes.close();
  }
});
