import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseFeed } from "../../lib/parser.js";
import { CORPORA, corpusBytes } from "./corpus.js";

const PAGE_URL = "http://example.com/";

/** The expected mf2 JSON shipped with each fixture. */
interface Mf2Json {
  items: Array<{ type: string[]; properties: Record<string, unknown[]>; children?: Mf2Json["items"] }>;
}

function expectedJson(path: string): Mf2Json {
  return JSON.parse(readFileSync(`${CORPORA}/microformats/${path}`, "utf8")) as Mf2Json;
}

function firstString(values: unknown[] | undefined): string | null {
  const value = values?.[0];
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "value" in value) return String((value as { value: unknown }).value);
  return null;
}

describe("h-feed fixtures", () => {
  for (const name of ["simple", "implied-title"]) {
    it(`h-feed/${name}.html matches ${name}.json`, async () => {
      const expected = expectedJson(`h-feed/${name}.json`).items[0];
      const entry = expected.children![0].properties;
      const parsed = await parseFeed(corpusBytes(`microformats/h-feed/${name}.html`), { url: PAGE_URL });

      assert.equal(parsed.feed.type, "hfeed");
      assert.equal(parsed.items.length, expected.children!.length);
      const item = parsed.items[0];
      assert.equal(item.title, firstString(entry.name));
      assert.equal(item.url, firstString(entry.url));
      assert.equal(item.uid, firstString(entry.url));
      // "2012-06-25T17:08:26" has no zone: read as UTC.
      assert.equal(item.published?.toISOString(), `${firstString(entry.updated)}.000Z`);
      assert.ok(item.summary!.startsWith("Last week the microformats.org community celebrated its 7th birthday"));
      assert.ok(
        item.content!.includes(
          '<a href="http://microformats.org/wiki/principles" rel="noopener noreferrer">principles</a>',
        ),
      );
    });
  }

  it("takes the feed's name, author, url and photo from the h-feed", async () => {
    const expected = expectedJson("h-feed/simple.json").items[0].properties;
    const { feed } = await parseFeed(corpusBytes("microformats/h-feed/simple.html"), { url: PAGE_URL });
    assert.equal(feed.title, firstString(expected.name));
    assert.equal(feed.author, "Tantek");
    assert.equal(feed.siteUrl, firstString(expected.url));
    assert.equal(feed.photo, firstString(expected.photo));
  });

  it("takes the author's h-card photo as the feed's image when the h-feed has none (no icon lookup then)", async () => {
    const page = `<!doctype html><html><head><title>Home</title></head><body><div class="h-feed">
      <a class="p-author h-card" href="/"><img class="u-photo" src="/me.jpg" alt="">Ada</a>
      <article class="h-entry"><a class="u-url" href="/1">One</a><time class="dt-published" datetime="2024-01-01T00:00:00Z"></time></article>
    </div></body></html>`;
    const { feed } = await parseFeed(new TextEncoder().encode(page), { url: PAGE_URL, contentType: "text/html" });
    assert.equal(feed.author, "Ada");
    assert.equal(feed.photo, "http://example.com/me.jpg");
  });

  it("falls back to the page <title> for an unnamed h-feed and to the page URL for its site", async () => {
    const { feed } = await parseFeed(corpusBytes("microformats/h-feed/implied-title.html"), { url: PAGE_URL });
    assert.equal(feed.title, "microformats blog");
    assert.equal(feed.siteUrl, PAGE_URL);
  });

  it("reads a page whose body is the h-feed (change log)", async () => {
    const parsed = await parseFeed(corpusBytes("microformats/h-entry/change-log.html"), { url: PAGE_URL });
    assert.equal(parsed.feed.title, "h-entry parsing tests ‐ change logs");
    assert.equal(parsed.items.length, 10);
    // Newest first; the names repeat the content, so they are notes without a title.
    assert.equal(parsed.items[0].published?.toISOString(), "2019-06-24T00:00:00.000Z");
    assert.equal(parsed.items[0].title, null);
    assert.equal(parsed.items[0].author, "Jan Sauer");
    assert.ok(parsed.items[0].summary!.startsWith("Updated JSON in order to reflect"));
    assert.equal(parsed.items.at(-1)!.published?.toISOString(), "2013-06-30T00:00:00.000Z");
  });
});

describe("top-level h-entries form an implied feed", () => {
  const cases = ["justahyperlink", "justaname", "summarycontent", "u-property", "impliedname", "scriptstyletags"];
  for (const name of cases) {
    it(`h-entry/${name}.html matches ${name}.json`, async () => {
      const expected = expectedJson(`h-entry/${name}.json`).items;
      const parsed = await parseFeed(corpusBytes(`microformats/h-entry/${name}.html`), { url: PAGE_URL });
      assert.equal(parsed.items.length, expected.length);
      expected.forEach((entry, index) => {
        const item = parsed.items[index];
        assert.equal(item.url, firstString(entry.properties.url));
        const name = firstString(entry.properties.name);
        if (name !== null) assert.equal(item.title, name);
        if (entry.properties.published)
          assert.equal(item.published?.toISOString().slice(0, 10), firstString(entry.properties.published));
      });
    });
  }

  it("gives url-less, id-less entries stable hash uids", async () => {
    const first = await parseFeed(corpusBytes("microformats/h-entry/impliedname.html"), { url: PAGE_URL });
    const second = await parseFeed(corpusBytes("microformats/h-entry/impliedname.html"), { url: PAGE_URL });
    assert.deepEqual(
      first.items.map((i) => i.uid),
      second.items.map((i) => i.uid),
    );
    for (const item of first.items) assert.match(item.uid, /^sha256:[0-9a-f]{64}$/);
    assert.equal(new Set(first.items.map((i) => i.uid)).size, 4);
  });

  it("drops script and style from h-entry content", async () => {
    const { items } = await parseFeed(corpusBytes("microformats/h-entry/scriptstyletags.html"), { url: PAGE_URL });
    assert.equal(items[0].content, "text <strong>bold</strong>");
    assert.equal(items[0].summary, "text bold");
  });

  it("makes content URLs absolute and picks the first image as photo", async () => {
    const expected = expectedJson("h-entry/urlincontent.json").items[0].properties;
    const { items } = await parseFeed(corpusBytes("microformats/h-entry/urlincontent.html"), { url: PAGE_URL });
    assert.equal(items[0].title, firstString(expected.name));
    for (const href of ["http://www.w3.org/", "http://example.com/test.html", "http://example.com/test/test.html"]) {
      assert.ok(items[0].content!.includes(`href="${href}"`), href);
    }
    assert.equal(items[0].photo, "http://example.com/images/photo.gif");
  });

  it("keeps escaped markup as text", async () => {
    const { items } = await parseFeed(corpusBytes("microformats/h-entry/encoding.html"), { url: PAGE_URL });
    assert.equal(items[0].summary, "x<y AT&T <b>NotBold</b> Bold");
    assert.equal(items[0].content, "x&lt;y AT&amp;T &lt;b&gt;NotBold&lt;/b&gt; <b>Bold</b>");
  });

  it("takes the h-entry photo and the h-card author name", async () => {
    const photo = await parseFeed(corpusBytes("microformats/h-entry/u-property.html"), { url: PAGE_URL });
    assert.equal(photo.items[0].photo, "http://example.com/images/logo.gif");
    const author = await parseFeed(corpusBytes("microformats/h-entry/summarycontent.html"), { url: PAGE_URL });
    assert.equal(author.items[0].author, "Tantek");
  });
});
