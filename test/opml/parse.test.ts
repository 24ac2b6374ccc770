import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { OpmlParseError, parseOpml, type OpmlFeed } from "../../lib/opml/parse.js";
import { fixture } from "./fixture.js";

/** A feed as the parser reports it, with the fields a fixture leaves out set to null. */
function feed(fields: Pick<OpmlFeed, "xmlUrl" | "title"> & Partial<OpmlFeed>): OpmlFeed {
  return { htmlUrl: null, description: null, type: null, category: null, ...fields };
}

describe("parseOpml: small fixtures, exact results", () => {
  it("reads a flat list: head, titles, trimmed fields, unsafe site links dropped", () => {
    assert.deepEqual(parseOpml(fixture("flat.opml")), {
      title: "My Blogroll",
      dateCreated: "Mon, 03 Nov 2025 10:00:00 GMT",
      feeds: [
        feed({
          xmlUrl: "https://example.com/feed.xml",
          title: "Example Blog",
          htmlUrl: "https://example.com/",
          description: "Thoughts on things",
          type: "rss",
        }),
        feed({ xmlUrl: "https://atom.example.org/atom.xml", title: "Only A Title", type: "atom" }),
        feed({ xmlUrl: "http://untitled.example.net/rss", title: "untitled.example.net" }),
        feed({ xmlUrl: "https://sneaky.example/feed", title: "Sneaky Site Link", type: "rss" }),
      ],
      skipped: [],
      includes: [],
      outlineCount: 4,
    });
  });

  it("gives each feed in a deep tree the nearest named folder as category", () => {
    const parsed = parseOpml(fixture("nested.opml"));
    assert.equal(parsed.title, "Nested");
    assert.equal(parsed.dateCreated, null);
    assert.deepEqual(parsed.feeds, [
      feed({ xmlUrl: "https://top.example/feed", title: "Top level feed" }),
      feed({ xmlUrl: "https://l1.example/feed", title: "L1 feed", category: "Level 1" }),
      feed({ xmlUrl: "https://l2.example/feed", title: "L2 feed", category: "Level 2 (title only)" }),
      feed({ xmlUrl: "https://l3.example/feed", title: "L3 unnamed-folder feed", category: "Level 3" }),
      feed({ xmlUrl: "https://l5.example/feed", title: "L5 feed", category: "Level 5" }),
      feed({ xmlUrl: "https://inner.example/feed", title: "Inside a feed", category: "Level 5" }),
      feed({ xmlUrl: "https://l4.example/feed", title: "L4 feed", category: "Level 4" }),
      feed({ xmlUrl: "https://back-l2.example/feed", title: "Back at L2", category: "Level 2 (title only)" }),
      feed({
        xmlUrl: "https://under.example/feed",
        title: "Under empty-url folder",
        category: "Empty xmlUrl is a folder",
      }),
    ]);
    assert.deepEqual(parsed.skipped, []);
  });

  it("takes the first entry of a FeedLand category attribute, the last segment of a path, over nesting", () => {
    const parsed = parseOpml(fixture("feedland.opml"));
    assert.equal(parsed.title, "davewiner's subscriptions");
    assert.deepEqual(parsed.feeds, [
      feed({
        xmlUrl: "http://scripting.com/rss.xml",
        title: "Scripting News",
        htmlUrl: "http://scripting.com/",
        type: "rss",
        category: "news",
      }),
      feed({ xmlUrl: "https://paths.example/rss", title: "Paths", type: "rss", category: "Weather" }),
      feed({ xmlUrl: "https://blanks.example/rss", title: "Leading blanks", type: "rss", category: "tech" }),
      feed({ xmlUrl: "https://commas.example/rss", title: "Only commas", type: "rss" }),
      feed({ xmlUrl: "https://wins.example/rss", title: "Attribute wins", type: "rss", category: "music" }),
      feed({ xmlUrl: "https://nesting.example/rss", title: "Nesting used", type: "rss", category: "Folder" }),
    ]);
  });

  it("reads OPML 1.0 (Radio UserLand shape, predefined entities)", () => {
    const parsed = parseOpml(fixture("opml1.opml"));
    assert.equal(parsed.title, "mySubscriptions");
    assert.equal(parsed.dateCreated, "Mon, 27 Jan 2003 19:46:05 GMT");
    assert.deepEqual(parsed.feeds, [
      feed({
        xmlUrl: "http://news.com.com/2547-1_3-0-5.xml",
        title: "CNET News.com",
        htmlUrl: "http://news.com.com/",
        description: "Tech news and business reports by CNET News.com.",
        type: "rss",
      }),
      feed({
        xmlUrl: "http://www.washingtonpost.com/wp-srv/politics/rssheadlines.xml",
        title: "washingtonpost.com - Politics",
        htmlUrl: "http://www.washingtonpost.com/wp-dyn/politics?nav=rss_politics",
        description: "Politics",
        type: "rss",
      }),
      feed({
        xmlUrl: "http://radio.weblogs.com/0001011/rss.xml",
        title: "Scobleizer: Microsoft Geek Blogger",
        htmlUrl: "http://radio.weblogs.com/0001011/",
        description: "Robert Scoble's look at geek and Microsoft life.",
        type: "rss",
      }),
    ]);
  });

  it("reads attribute names in any case", () => {
    assert.deepEqual(parseOpml(fixture("case-insensitive.opml")).feeds, [
      feed({
        xmlUrl: "https://upper.example/feed",
        title: "Upper",
        htmlUrl: "https://upper.example/",
        description: "Shouting",
        type: "RSS",
      }),
      feed({ xmlUrl: "https://lower.example/feed", title: "Lower", htmlUrl: "https://lower.example/" }),
      feed({
        xmlUrl: "https://mixed.example/feed",
        title: "Mixed",
        htmlUrl: "https://mixed.example/",
        category: "Cats",
      }),
    ]);
  });

  it("keeps the first of duplicate feeds (same URL key) and lists the others as skipped", () => {
    const parsed = parseOpml(fixture("duplicates.opml"));
    assert.deepEqual(parsed.feeds, [
      feed({ xmlUrl: "https://dup.example/feed/", title: "First", category: "Tech" }),
      feed({ xmlUrl: "https://dup.example/feed?page=2", title: "Different query is different", category: "Personal" }),
    ]);
    assert.deepEqual(parsed.skipped, [
      { xmlUrl: "http://DUP.example/feed", reason: "duplicate" },
      { xmlUrl: "https://dup.example/feed#top", reason: "duplicate" },
    ]);
  });

  it("skips relative and non-http(s) feed URLs with a reason, and rewrites feed: URLs", () => {
    const parsed = parseOpml(fixture("bad-urls.opml"));
    assert.deepEqual(parsed.feeds, [
      feed({ xmlUrl: "http://feedscheme.example/rss", title: "Feed scheme" }),
      feed({ xmlUrl: "https://wrapped.example/atom", title: "Feed scheme wrapping https" }),
      feed({ xmlUrl: "https://good.example/feed", title: "Good" }),
    ]);
    assert.deepEqual(parsed.skipped, [
      { xmlUrl: "/feed.xml", reason: "not an absolute URL" },
      { xmlUrl: "javascript:alert(document.cookie)", reason: "unsupported scheme javascript:" },
      { xmlUrl: "file:///etc/passwd", reason: "unsupported scheme file:" },
      { xmlUrl: "mailto:someone@example.com", reason: "unsupported scheme mailto:" },
      { xmlUrl: "ftp://ftp.example.com/feed.xml", reason: "unsupported scheme ftp:" },
      { xmlUrl: "http://", reason: "not an absolute URL" },
    ]);
  });
});

describe("parseOpml: text decoding and lenient edges", () => {
  it("decodes the five predefined entities and numeric character references, in attributes and CDATA", () => {
    const parsed = parseOpml(
      `<opml version="2.0"><head><title><![CDATA[Raw <b>]]> &amp; more</title></head><body>` +
        `<outline text="&lt;b&gt; &amp; &quot;q&quot; &apos;s&apos; &#233; &#x1F600;" xmlUrl="https://e.example/f?a=1&amp;b=2"/></body></opml>`,
    );
    assert.equal(parsed.title, "Raw <b> & more");
    assert.equal(parsed.feeds[0].title, `<b> & "q" 's' é 😀`);
    assert.equal(parsed.feeds[0].xmlUrl, "https://e.example/f?a=1&b=2");
  });

  it("accepts a BOM and blank lines before the XML declaration, and a DOCTYPE without entities", () => {
    const parsed = parseOpml(
      `\uFEFF\n\n<?xml version="1.0"?>\n<!DOCTYPE opml>\n<opml><body><outline text="A" xmlUrl="https://a.example/"/></body></opml>`,
    );
    assert.deepEqual(
      parsed.feeds.map((f) => f.xmlUrl),
      ["https://a.example/"],
    );
  });

  it("ignores outlines outside <body> and unknown elements inside it", () => {
    const parsed = parseOpml(
      `<opml><head><outline text="In head" xmlUrl="https://head.example/"/></head>` +
        `<body><extra><outline text="Wrapped" xmlUrl="https://wrapped.example/"/></extra></body></opml>`,
    );
    assert.deepEqual(
      parsed.feeds.map((f) => f.title),
      ["Wrapped"],
    );
  });

  it("parses a generated 10 000-outline file completely", () => {
    const folders = 100;
    const perFolder = 99;
    const parts = [`<?xml version="1.0"?><opml version="2.0"><head><title>Big</title></head><body>`];
    for (let folder = 0; folder < folders; folder++) {
      parts.push(`<outline text="Folder ${folder}">`);
      for (let n = 0; n < perFolder; n++) {
        parts.push(
          `<outline type="rss" text="Feed ${folder}-${n}" xmlUrl="https://f${folder}.example/feed/${n}" htmlUrl="https://f${folder}.example/"/>`,
        );
      }
      parts.push(`</outline>`);
    }
    parts.push(`</body></opml>`);
    const text = parts.join("\n");

    const parsed = parseOpml(text);
    assert.equal(parsed.feeds.length, folders * perFolder);
    assert.equal(parsed.skipped.length, 0);
    const perCategory = new Map<string | null, number>();
    for (const f of parsed.feeds) perCategory.set(f.category, (perCategory.get(f.category) ?? 0) + 1);
    assert.equal(perCategory.size, folders);
    assert.deepEqual(new Set(perCategory.values()), new Set([perFolder]));
    assert.deepEqual(parsed.feeds.at(-1), {
      xmlUrl: `https://f${folders - 1}.example/feed/${perFolder - 1}`,
      title: `Feed ${folders - 1}-${perFolder - 1}`,
      htmlUrl: `https://f${folders - 1}.example/`,
      description: null,
      type: "rss",
      category: `Folder ${folders - 1}`,
    });

    // The same file is refused once the outline limit is below its 10 000 outlines.
    assert.throws(
      () => parseOpml(text, { maxOutlines: folders * (perFolder + 1) - 1 }),
      (error: unknown) => {
        assert.ok(error instanceof OpmlParseError);
        assert.match(error.message, /more than 9999 outlines/);
        return true;
      },
    );
    assert.equal(parseOpml(text, { maxOutlines: folders * (perFolder + 1) }).feeds.length, folders * perFolder);
  });

  it("refuses a document larger than maxBytes, counting UTF-8 bytes", () => {
    const text = `<opml><body><outline text="ééééé" xmlUrl="https://a.example/"/></body></opml>`;
    const bytes = Buffer.byteLength(text);
    assert.equal(parseOpml(text, { maxBytes: bytes }).feeds.length, 1);
    assert.ok(text.length < bytes);
    assert.throws(() => parseOpml(text, { maxBytes: bytes - 1 }), OpmlParseError);
  });

  it("reads 900 levels of nested folders (under the depth limit)", () => {
    const depth = 900;
    const open = Array.from({ length: depth }, (_, i) => `<outline text="L${i}">`).join("");
    const text = `<opml><body>${open}<outline text="Deep" xmlUrl="https://deep.example/"/>${"</outline>".repeat(depth)}</body></opml>`;
    assert.deepEqual(
      parseOpml(text).feeds.map((f) => f.category),
      [`L${depth - 1}`],
    );
  });
});

describe("parseOpml: OPML 2.0 include outlines", () => {
  it("lists includes with their label as category, resolves relative addresses against the document's, and skips unusable ones", () => {
    const text =
      `<opml version="2.0"><head/><body><outline text="Friends"><outline type="include" text="Ann's list" url="ann.opml"/>` +
      `<outline type="INCLUDE" url="https://b.example/list.opml"/></outline><outline type="include" url="javascript:alert(1)"/><outline type="include"/></body></opml>`;
    const parsed = parseOpml(text, { url: "https://me.example/lists/mine.opml" });
    assert.deepEqual(parsed.includes, [
      { url: "https://me.example/lists/ann.opml", category: "Ann's list" },
      { url: "https://b.example/list.opml", category: "Friends" },
    ]);
    assert.deepEqual(parsed.feeds, []);
    assert.deepEqual(parsed.skipped, [
      { xmlUrl: "javascript:alert(1)", reason: "include address is not an absolute http(s) URL" },
    ]);
    assert.equal(parsed.outlineCount, 5);
    assert.deepEqual(
      parseOpml(text).includes.map((include) => include.url),
      ["https://b.example/list.opml"],
      "without a base only absolute addresses are kept",
    );
  });
});
