import assert from "node:assert/strict";
import { test } from "node:test";
import type { FetchResult } from "../../lib/http/fetch.js";
import { FirstReads } from "../../lib/sync/first-reads.js";

/** A response told apart by its final address (the rest does not matter here). */
const read = (url: string) => ({ url, status: 200 }) as FetchResult;

test("a read is taken once, by the feed's address in any spelling", () => {
  const reads = new FirstReads();
  reads.remember("https://example.com/feed.xml", read("https://example.com/feed.xml"));
  assert.equal(reads.take("https://EXAMPLE.com/feed.xml")?.url, "https://example.com/feed.xml");
  assert.equal(reads.take("https://example.com/feed.xml"), null, "taken already: the next fetch asks the site");
  assert.equal(reads.take("https://example.com/other.xml"), null);
});

test("a read older than two minutes is not used (the blog's first fetch asks again)", () => {
  let now = 0;
  const reads = new FirstReads(() => now);
  reads.remember("https://example.com/a.xml", read("a"));
  reads.remember("https://example.com/b.xml", read("b"));
  now = 2 * 60_000;
  assert.equal(reads.take("https://example.com/a.xml")?.url, "a", "two minutes: still fresh");
  now = 2 * 60_000 + 1;
  assert.equal(reads.take("https://example.com/b.xml"), null);
});

test("at most eight reads wait: the oldest goes first", () => {
  const reads = new FirstReads();
  for (let n = 0; n < 9; n++) reads.remember(`https://example.com/${n}.xml`, read(String(n)));
  assert.equal(reads.take("https://example.com/0.xml"), null, "the oldest was dropped");
  for (let n = 1; n < 9; n++) assert.equal(reads.take(`https://example.com/${n}.xml`)?.url, String(n));
});
