/**
 * Every feed format, in several character sets, served over HTTP by a local
 * fixture and synced through the real runner (parse workers included) into
 * SQLite: what the blog and its items hold afterwards is what the feed said.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import zlib from "node:zlib";
import type { Storage } from "../../lib/storage/types.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";
import { addBlog, openTempStorage, reload, testOptions, type TempStorage } from "./harness.js";

let server: FeedServer;
let origin: string;
let temp: TempStorage;
let storage: Storage;

before(async () => {
  server = await startFeedServer();
  origin = server.origins[0];
  temp = await openTempStorage();
  storage = temp.storage;
});
after(async () => {
  await server.close();
  await temp.cleanup();
  await closeParsePool();
});

// Whole seconds, so RFC 822 (seconds) and ISO 8601 (milliseconds) dates name the same instant.
const day = new Date(Math.floor((Date.now() - 3600_000) / 1000) * 1000);
const rfc822 = day.toUTCString();
const iso = day.toISOString();
const utf8 = (text: string) => Buffer.from(text, "utf8");
/** Latin-1 text as bytes (every character below U+0100). */
const latin1 = (text: string) => Buffer.from(text, "latin1");
/** Windows-1252: Latin-1 plus the euro sign and curly quotes in 0x80-0x9f. */
const cp1252 = (text: string) => latin1(text.replace(/€/g, "\x80").replace(/“/g, "\x93").replace(/”/g, "\x94"));
/** Shift_JIS for the ASCII text around the one Japanese word used here (日本 = 93 FA 96 7B). */
const shiftJis = (text: string) =>
  Buffer.concat(
    text
      .split("日本")
      .flatMap((part, index) => (index ? [Buffer.from([0x93, 0xfa, 0x96, 0x7b]), utf8(part)] : [utf8(part)])),
  );
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);

interface Case {
  name: string;
  contentType: string;
  body: Buffer;
  encoding?: "gzip";
  feedType: string;
  title: string;
  itemTitle: string;
  itemUrl: string;
  dated: boolean;
}

const cases: Case[] = [
  {
    name: "rss-0.91-windows-1252",
    contentType: "application/rss+xml",
    body: cp1252(
      `<?xml version="1.0" encoding="windows-1252"?><rss version="0.91"><channel><title>Caf\u00e9 “0.91”</title><link>https://old.example/</link>` +
        `<description>d</description><item><title>Price 5 €</title><link>https://old.example/p1</link><description>x</description></item></channel></rss>`,
    ),
    feedType: "rss",
    title: "Café “0.91”",
    itemTitle: "Price 5 €",
    itemUrl: "https://old.example/p1",
    dated: false,
  },
  {
    name: "rss-1.0-iso-8859-1-by-http",
    contentType: "application/rdf+xml; charset=ISO-8859-1",
    body: latin1(
      // The HTTP charset outranks the declaration (which a transcoding server left behind).
      `<?xml version="1.0" encoding="utf-8"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
        `<channel rdf:about="https://rdf.example/"><title>Jürgen's RDF</title><link>https://rdf.example/</link><description>d</description></channel>` +
        `<item rdf:about="https://rdf.example/a"><title>Anaïs</title><link>https://rdf.example/a</link><dc:date>${iso}</dc:date></item></rdf:RDF>`,
    ),
    feedType: "rss",
    title: "Jürgen's RDF",
    itemTitle: "Anaïs",
    itemUrl: "https://rdf.example/a",
    dated: true,
  },
  {
    name: "rss-2.0-utf-8-bom-gzip",
    contentType: "text/xml",
    body: Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      utf8(
        `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Τεστ</title><link>https://two.example/</link><description>d</description>` +
          `<item><title>Ωμέγα &amp; more</title><link>/relative</link><guid>g-1</guid><pubDate>${rfc822}</pubDate></item></channel></rss>`,
      ),
    ]),
    encoding: "gzip",
    feedType: "rss",
    title: "Τεστ",
    itemTitle: "Ωμέγα & more",
    itemUrl: `/relative`,
    dated: true,
  },
  {
    name: "atom-0.3",
    contentType: "application/atom+xml",
    body: utf8(
      `<?xml version="1.0" encoding="utf-8"?><feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Atom Zero Three</title>` +
        `<link rel="alternate" type="text/html" href="https://atom03.example/"/><entry><title>Old Atom</title>` +
        `<link rel="alternate" type="text/html" href="https://atom03.example/e"/><id>tag:atom03.example,2004:1</id><issued>${iso}</issued></entry></feed>`,
    ),
    feedType: "atom",
    title: "Atom Zero Three",
    itemTitle: "Old Atom",
    itemUrl: "https://atom03.example/e",
    dated: true,
  },
  {
    name: "atom-1.0-shift-jis",
    contentType: "application/atom+xml",
    body: shiftJis(
      `<?xml version="1.0" encoding="Shift_JIS"?><feed xmlns="http://www.w3.org/2005/Atom"><title>日本 blog</title><link href="https://jp.example/"/>` +
        `<id>urn:jp</id><updated>${iso}</updated><entry><title>日本</title><link href="https://jp.example/1"/><id>urn:jp:1</id><updated>${iso}</updated></entry></feed>`,
    ),
    feedType: "atom",
    title: "日本 blog",
    itemTitle: "日本",
    itemUrl: "https://jp.example/1",
    dated: true,
  },
  {
    name: "json-feed-1.1",
    contentType: "application/feed+json",
    body: utf8(
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "JSON ✓",
        home_page_url: "https://json.example/",
        items: [
          { id: "1", url: "https://json.example/1", title: "Ünïcödé", content_text: "text", date_published: iso },
        ],
      }),
    ),
    feedType: "json",
    title: "JSON ✓",
    itemTitle: "Ünïcödé",
    itemUrl: "https://json.example/1",
    dated: true,
  },
  {
    name: "json-feed-1.0-as-text-plain",
    contentType: "text/plain",
    body: utf8(
      JSON.stringify({
        version: "https://jsonfeed.org/version/1",
        title: "Plain JSON",
        items: [{ id: "a", url: "https://plain.example/a", title: "Labelled wrong", content_html: "<p>hi</p>" }],
      }),
    ),
    feedType: "json",
    title: "Plain JSON",
    itemTitle: "Labelled wrong",
    itemUrl: "https://plain.example/a",
    dated: false,
  },
  {
    name: "h-feed-utf-16",
    contentType: "text/html",
    body: utf16le(
      `<!doctype html><html><head><title>Page</title></head><body><div class="h-feed"><h1 class="p-name">Microformats ♥</h1>` +
        `<article class="h-entry"><h2 class="p-name">Entry €</h2><a class="u-url" href="/e1">link</a><time class="dt-published" datetime="${iso}">t</time></article></div></body></html>`,
    ),
    feedType: "hfeed",
    title: "Microformats ♥",
    itemTitle: "Entry €",
    itemUrl: "/e1",
    dated: true,
  },
];

test("every format, in several character sets, syncs over HTTP with the right titles, links and dates", async () => {
  const blogs = [];
  for (const entry of cases) {
    const path = `/${entry.name}`;
    server.route(path, (_request, response) => {
      const headers: Record<string, string> = { "content-type": entry.contentType };
      if (entry.encoding) headers["content-encoding"] = entry.encoding;
      response.writeHead(200, headers).end(entry.encoding ? zlib.gzipSync(entry.body) : entry.body);
    });
    blogs.push(await addBlog(storage, `${origin}${path}`, "placeholder"));
  }
  const stats = await createSyncRunner({ options: testOptions() })(storage, {
    signal: new AbortController().signal,
    progress: () => undefined,
  });
  assert.equal(stats.blogs.failed, 0);
  for (const [index, entry] of cases.entries()) {
    const blog = await reload(storage, blogs[index]);
    assert.equal(blog.status, "active", `${entry.name}: ${blog.lastError}`);
    assert.equal(blog.title, entry.title, entry.name);
    assert.equal(blog.feedType, entry.feedType, entry.name);
    const items = await storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
    assert.equal(items.length, 1, entry.name);
    assert.equal(items[0].title, entry.itemTitle, entry.name);
    const expectedUrl = entry.itemUrl.startsWith("/") ? `${origin}${entry.itemUrl}` : entry.itemUrl;
    assert.equal(items[0].url, expectedUrl, entry.name);
    if (entry.dated) assert.deepEqual(items[0].published, day, entry.name);
    else assert.equal(items[0].published, null, `${entry.name}: no date invented`);
    assert.doesNotMatch(JSON.stringify(items[0]), /\uFFFD/, `${entry.name}: no replacement characters`);
  }
});
