import assert from "node:assert/strict";
import { after, test } from "node:test";
import { parseFeed } from "../../lib/feeds/parse.js";
import { FeedParseError } from "../../lib/feeds/errors.js";
import { readDiscoveryPage } from "../../lib/discovery/read-page.js";
import { OpmlParseError, parseOpml } from "../../lib/opml/parse.js";
import {
  closeParsePool,
  parseFeedInWorker,
  parseOpmlInWorker,
  ParsePool,
  readDiscoveryPageInWorker,
} from "../../lib/sync/parse-pool.js";
import { rss } from "./feed-server.js";
import { defaultOptions } from "../../lib/options.js";

after(() => closeParsePool());

const body = rss([
  { guid: "a", published: new Date("2025-03-01T10:00:00Z") },
  { guid: "b", published: new Date("2025-02-01T10:00:00Z") },
  { guid: "c", published: null },
]);

test("a worker parses a feed exactly as the main thread does, dates included", async () => {
  const options = { url: "https://example.org/feed.xml", maxItems: 10 };
  const inWorker = await parseFeedInWorker(new TextEncoder().encode(body), options);
  assert.deepEqual(inWorker, await parseFeed(body, options));
  assert.ok(inWorker.items[0].published instanceof Date);
  assert.equal(inWorker.items.length, 3);
});

test("errors come back as the same classes", async () => {
  await assert.rejects(parseFeedInWorker("plain words, not a feed", { url: "https://example.org/x" }), FeedParseError);
  await assert.rejects(parseFeedInWorker(body, { url: "not a url" }), TypeError);
});

test("many parses queue through a small pool and all complete", async () => {
  const pool = new ParsePool({ size: 2, maxQueue: 3 });
  try {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        pool.parse(rss([{ guid: `item-${index}` }]), { url: `https://example.org/${index}.xml` }),
      ),
    );
    assert.deepEqual(
      results.map((result) => result.items[0].uid),
      (
        await Promise.all(
          results.map((_, index) =>
            parseFeed(rss([{ guid: `item-${index}` }]), { url: `https://example.org/${index}.xml` }),
          ),
        )
      ).map((result) => result.items[0].uid),
    );
  } finally {
    await pool.close();
  }
});

test("content in flight never exceeds the byte budget: the rest waits its turn, and a task larger than it runs alone", async () => {
  const budget = 256 * 1024;
  const pool = new ParsePool({ size: 2, maxBytesInFlight: budget });
  // Feeds of about 60 KB: four fit the budget at once; submitted together, 40 would hold 2.4 MB.
  const feedOf = (index: number) =>
    new TextEncoder().encode(
      rss(Array.from({ length: 300 }, (_, item) => ({ guid: `feed-${index}-item-${item}`, published: null }))),
    );
  const feeds = Array.from({ length: 40 }, (_, index) => feedOf(index));
  assert.ok(feeds[0].byteLength > budget / 5 && feeds[0].byteLength < budget / 3, `${feeds[0].byteLength} bytes`);
  const large = new TextEncoder().encode(
    rss(Array.from({ length: 2000 }, (_, item) => ({ guid: `large-item-${item}`, published: null }))),
  );
  assert.ok(large.byteLength > budget);
  try {
    const parsed = await Promise.all([
      ...feeds.map((body, index) => pool.parse(body, { url: `https://example.org/${index}.xml`, maxItems: 1 })),
      pool.parse(large, { url: "https://example.org/large.xml", maxItems: 1 }),
    ]);
    assert.deepEqual(
      parsed.map((feed) => feed.items[0].uid.split("-item-")[0]),
      [...feeds.map((_, index) => `feed-${index}`), "large"],
    );
    const { now, peak } = pool.bytesInFlight();
    assert.equal(now, 0);
    // The large task ran alone (its size is the peak); the small ones never held more than the budget together.
    assert.equal(peak, large.byteLength);
  } finally {
    await pool.close();
  }
  const small = new ParsePool({ size: 2, maxBytesInFlight: budget });
  try {
    await Promise.all(feeds.map((body, index) => small.parse(body, { url: `https://example.org/${index}.xml` })));
    const { peak } = small.bytesInFlight();
    assert.ok(peak <= budget && peak >= 3 * feeds[0].byteLength, `peak ${peak} of ${budget}`);
  } finally {
    await small.close();
  }
});

test("a parse that overruns its time limit fails and the worker is replaced", async () => {
  // 1 ms is less than a worker takes to start, so the first parse always overruns.
  const pool = new ParsePool({ size: 1, taskTimeout: 1 });
  try {
    await assert.rejects(pool.parse(body, { url: "https://example.org/feed.xml" }), FeedParseError);
  } finally {
    await pool.close();
  }
  const healthy = new ParsePool({ size: 1 });
  try {
    assert.equal((await healthy.parse(body, { url: "https://example.org/feed.xml" })).items.length, 3);
  } finally {
    await healthy.close();
  }
});

test("a closed pool refuses work and fails what was queued", async () => {
  const pool = new ParsePool({ size: 1 });
  const queued = assert.rejects(pool.parse(body, { url: "https://example.org/feed.xml" }), /closed/);
  await pool.close();
  await queued;
  await assert.rejects(pool.parse(body, { url: "https://example.org/feed.xml" }), /closed/);
});

test("a feed that needs more memory than a worker may use fails as a parse error, and the pool goes on", async () => {
  const pool = new ParsePool({ size: 1, maxHeapMb: 32 });
  try {
    const huge = rss(
      Array.from({ length: 60_000 }, (_, index) => ({
        guid: `item-${index}`,
        published: new Date(1_700_000_000_000 + index),
      })),
    );
    await assert.rejects(
      pool.parse(huge, { url: "https://example.org/huge.xml", maxItems: 100_000 }),
      (error: Error) => {
        assert.ok(error instanceof FeedParseError, `${error.name}: ${error.message}`);
        assert.equal(error.message, "The feed needs more memory than a parse may use");
        return true;
      },
    );
    assert.equal((await pool.parse(body, { url: "https://example.org/feed.xml" })).items.length, 3);
  } finally {
    await pool.close();
  }
});

test("the largest feed allowed by default, made of the smallest items, parses within a worker's heap limits", async () => {
  // maxBodySize of items as small as a feed's items get: the most objects a parse may have to build.
  const itemsOf = (count: number) =>
    rss(
      Array.from({ length: count }, (_, index) => ({
        guid: `i${index}`,
        published: new Date(1_700_000_000_000 + index),
      })),
    );
  let count = Math.floor(defaultOptions.maxBodySize / (itemsOf(1000).length / 1000));
  while (itemsOf(count).length > defaultOptions.maxBodySize) count = Math.floor(count * 0.99);
  const feed = itemsOf(count);
  assert.ok(feed.length > defaultOptions.maxBodySize * 0.95, `${feed.length} bytes`);
  const pool = new ParsePool({ size: 1 });
  try {
    const parsed = await pool.parse(new TextEncoder().encode(feed), {
      url: "https://example.org/largest.xml",
      maxItems: defaultOptions.maxItemsPerBlog,
    });
    assert.equal(parsed.items.length, defaultOptions.maxItemsPerBlog);
  } finally {
    await pool.close();
  }
});

test("discovery pages and OPML documents are read in workers exactly as on the main thread", async () => {
  const page =
    '<html><head><title>Site</title><link rel="alternate" type="application/rss+xml" href="/feed"></head><body><div class="h-feed"><p class="p-name">Notes</p></div></body></html>';
  assert.deepEqual(
    await readDiscoveryPageInWorker(page, "https://example.org/"),
    readDiscoveryPage(page, "https://example.org/"),
  );
  const opml =
    '<opml version="2.0"><head><title>List</title></head><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>';
  assert.deepEqual(await parseOpmlInWorker(opml, {}), parseOpml(opml));
  await assert.rejects(parseOpmlInWorker("<rss/>", {}), OpmlParseError);
});

test("a page or OPML parse over the time limit fails with its kind's error, and the next task runs", async () => {
  // 1 ms is less than a worker takes to start, so each first task overruns and its worker is terminated.
  const opml = '<opml version="2.0"><head/><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>';
  const tight = new ParsePool({ size: 1, taskTimeout: 1 });
  try {
    await assert.rejects(tight.run({ kind: "opml", text: opml, options: {} }), (error: Error) => {
      assert.ok(error instanceof OpmlParseError);
      assert.equal(error.message, "The OPML document took longer than 0.001 s to parse");
      return true;
    });
    await assert.rejects(tight.run({ kind: "page", html: "<p>x</p>", url: "https://example.org/" }), (error: Error) => {
      assert.ok(error instanceof FeedParseError);
      assert.match(error.message, /^The page took longer than/);
      return true;
    });
  } finally {
    await tight.close();
  }
});
