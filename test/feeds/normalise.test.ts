import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFeed } from "../../lib/parser.js";

const FEED_URL = "https://blog.example.com/feed.xml";

function rss(items: string, channelExtra = ""): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Test blog</title><link>/</link><description>Testing</description>${channelExtra}
${items}
</channel></rss>`;
}

const parse = (body: string, maxItems?: number) => parseFeed(body, { url: FEED_URL, maxItems });

describe("uids", () => {
  it("uses the guid, else the link, else a content hash", async () => {
    const { items } = await parse(
      rss(`
      <item><title>A</title><guid isPermaLink="false">id-a</guid><link>https://blog.example.com/a</link></item>
      <item><title>B</title><link>https://blog.example.com/b</link></item>
      <item><title>C</title><description>no id, no link</description></item>`),
    );
    assert.deepEqual(
      items.slice(0, 2).map((i) => i.uid),
      ["id-a", "https://blog.example.com/b"],
    );
    assert.match(items[2].uid, /^sha256:[0-9a-f]{64}$/);
  });

  it("gives items without guid or link the same uid on every parse, and different ones for different posts", async () => {
    const body = rss(`
      <item><title>Untitled 1</title><description>one</description><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>
      <item><title>Untitled 2</title><description>two</description></item>`);
    const first = await parse(body);
    const second = await parse(body);
    assert.deepEqual(
      first.items.map((i) => i.uid),
      second.items.map((i) => i.uid),
    );
    assert.notEqual(first.items[0].uid, first.items[1].uid);
  });

  it("keeps different posts that share a guid apart, stably, and drops exact repeats", async () => {
    const body = rss(`
      <item><title>First</title><guid>dup</guid><link>https://blog.example.com/1</link></item>
      <item><title>Second</title><guid>dup</guid><link>https://blog.example.com/2</link></item>
      <item><title>Third</title><guid>dup</guid><link>https://blog.example.com/2</link><description>other text</description></item>
      <item><title>First</title><guid>dup</guid><link>https://blog.example.com/1</link></item>`);
    const first = await parse(body);
    const second = await parse(body);
    assert.deepEqual(
      first.items.map((i) => i.title),
      ["First", "Second", "Third"],
    );
    const [a, b, c] = first.items.map((i) => i.uid);
    assert.equal(a, "dup#https://blog.example.com/1");
    assert.match(b, /^dup#[0-9a-f]{16}$/, "two posts share the link /2: neither is named by it");
    assert.match(c, /^dup#[0-9a-f]{16}$/);
    assert.notEqual(b, c);
    assert.deepEqual(
      second.items.map((i) => i.uid),
      [a, b, c],
    );
  });
});

describe("uids of a feed whose items all carry the same guid", () => {
  const post = (n: number) =>
    `<item><title>Post ${n}</title><guid>1</guid><link>https://blog.example.com/${n}</link><description>Text ${n}</description></item>`;

  it("none of the clashing items keeps the bare guid, and each keeps its uid as new posts arrive", async () => {
    const before = await parse(rss(post(2) + post(1)));
    const after = await parse(rss(post(3) + post(2) + post(1)));
    assert.ok(
      before.items.every((item) => item.uid !== "1"),
      "the bare uid would be taken over by the next new post",
    );
    assert.ok(after.items.every((item) => item.uid !== "1"));
    const uidOf = (items: typeof before.items, title: string) => items.find((item) => item.title === title)?.uid;
    assert.equal(uidOf(after.items, "Post 2"), uidOf(before.items, "Post 2"));
    assert.equal(uidOf(after.items, "Post 1"), uidOf(before.items, "Post 1"));
    assert.equal(new Set(after.items.map((item) => item.uid)).size, 3);
  });

  it("names clashing posts the same whatever their order in the feed", async () => {
    const shared = `<item><title>Other</title><guid>1</guid><link>https://blog.example.com/2</link><description>else</description></item>`;
    const one = await parse(rss(post(1) + post(2) + shared));
    const two = await parse(rss(shared + post(2) + post(1)));
    const byTitle = (items: typeof one.items) => Object.fromEntries(items.map((item) => [item.title, item.uid]));
    assert.deepEqual(byTitle(one.items), byTitle(two.items));
  });
});

describe("urls", () => {
  it("resolves relative links against the feed and drops non-http schemes", async () => {
    const { feed, items } = await parse(
      rss(`
      <item><title>Relative</title><link>/posts/1</link></item>
      <item><title>Script</title><link>javascript:alert(1)</link></item>
      <item><title>Data</title><link>data:text/html,hi</link></item>`),
    );
    assert.equal(feed.siteUrl, "https://blog.example.com/");
    assert.deepEqual(
      items.map((i) => i.url),
      ["https://blog.example.com/posts/1", null, null],
    );
  });
});

describe("titles and summaries", () => {
  it("decodes entities, strips tags and collapses whitespace; empty titles are null", async () => {
    const { items } = await parse(
      rss(`
      <item><title>  Tom &amp;amp; Jerry &lt;b&gt;bold&lt;/b&gt;
         again  </title><guid>1</guid></item>
      <item><title> &lt;br&gt; </title><guid>2</guid></item>
      <item><title>Caf&#233; &#8220;quoted&#8221;</title><guid>3</guid></item>`),
    );
    assert.deepEqual(
      items.map((i) => i.title),
      ["Tom & Jerry bold again", null, "Café “quoted”"],
    );
  });

  it("makes a plain-text summary of at most 300 characters cut at a word", async () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");
    const { items } = await parse(
      rss(`<item><guid>1</guid><description>&lt;p&gt;${words}&lt;/p&gt;</description></item>`),
    );
    const summary = items[0].summary!;
    assert.ok(summary.length <= 300, `${summary.length}`);
    assert.ok(summary.endsWith("…"));
    assert.ok(words.startsWith(summary.slice(0, -1)), "cut at a word boundary");
    assert.match(summary.slice(0, -1), /word\d+$/);
    assert.doesNotMatch(summary, /<p>/);
  });

  it("keeps a short summary whole and takes it from the description before the content", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><description>Short &amp; sweet</description><content:encoded><![CDATA[<p>Full <em>text</em></p>]]></content:encoded></item>
      <item><guid>2</guid><content:encoded><![CDATA[<p>Only <em>content</em></p>]]></content:encoded></item>`),
    );
    assert.equal(items[0].summary, "Short & sweet");
    assert.equal(items[0].content, "<p>Full <em>text</em></p>");
    assert.equal(items[1].summary, "Only content");
  });
});

describe("dates and order", () => {
  it("never invents a date and puts undated items after dated ones in feed order", async () => {
    const { items } = await parse(
      rss(`
      <item><title>undated 1</title><guid>u1</guid></item>
      <item><title>old</title><guid>o</guid><pubDate>Mon, 01 Jan 2018 00:00:00 GMT</pubDate></item>
      <item><title>bad date</title><guid>b</guid><pubDate>Tue, 31 Jun 2003 04:00:00 GMT</pubDate></item>
      <item><title>new</title><guid>n</guid><dc:date>2020-05-05T10:00:00+02:00</dc:date></item>
      <item><title>undated 2</title><guid>u2</guid></item>`),
    );
    assert.deepEqual(
      items.map((i) => i.title),
      ["new", "old", "undated 1", "bad date", "undated 2"],
    );
    assert.equal(items[0].published?.toISOString(), "2020-05-05T08:00:00.000Z");
    assert.equal(items[2].published, null);
  });

  it("keeps at most maxItems, the newest", async () => {
    const entries = Array.from(
      { length: 60 },
      (_, i) => `<item><guid>${i}</guid><pubDate>${new Date(Date.UTC(2020, 0, 1 + i)).toUTCString()}</pubDate></item>`,
    ).join("");
    assert.equal((await parse(rss(entries))).items.length, 50);
    const three = await parse(rss(entries), 3);
    assert.deepEqual(
      three.items.map((i) => i.uid),
      ["59", "58", "57"],
    );
  });
});

describe("photos, authors and categories", () => {
  it("takes item images from media:thumbnail, itunes:image, image enclosures, then content", async () => {
    const { items } = await parse(
      rss(`
      <item><guid>1</guid><media:thumbnail url="/thumb.jpg"/></item>
      <item><guid>2</guid><itunes:image href="https://cdn.example.com/cover.png"/></item>
      <item><guid>3</guid><enclosure url="https://cdn.example.com/a.mp3" type="audio/mpeg" length="1"/><enclosure url="https://cdn.example.com/b.jpg" type="image/jpeg" length="1"/></item>
      <item><guid>4</guid><description><![CDATA[<img src="/pixel.gif" width="1" height="1"><img src="javascript:alert(1)"><img src="/real.png">]]></description></item>
      <item><guid>5</guid><description>no image</description></item>`),
    );
    assert.deepEqual(
      items.map((i) => i.photo),
      [
        "https://blog.example.com/thumb.jpg",
        "https://cdn.example.com/cover.png",
        "https://cdn.example.com/b.jpg",
        "https://blog.example.com/real.png",
        null,
      ],
    );
  });

  it("reads the author name and de-duplicates categories", async () => {
    const { feed, items } = await parse(
      rss(
        `
      <item><guid>1</guid><author>jane@example.com (Jane Doe)</author><category>News</category><category> news </category><category>Tech</category></item>
      <item><guid>2</guid><dc:creator>  John   Roe </dc:creator></item>`,
        "<image><url>/logo.png</url><title>x</title><link>/</link></image>",
      ),
    );
    assert.equal(items[0].author, "Jane Doe");
    assert.deepEqual(items[0].categories, ["News", "Tech"]);
    assert.equal(items[1].author, "John Roe");
    assert.equal(feed.photo, "https://blog.example.com/logo.png");
  });
});

describe("lenient but safe XML reading", () => {
  it("accepts HTML entities, forbidden control characters and a BOM", async () => {
    const { items } = await parse(`\uFEFF${rss("<item><guid>1</guid><title>a&nbsp;b\u0008c&eacute;</title></item>")}`);
    // &nbsp; decodes to U+00A0, which whitespace collapsing turns into a plain space.
    assert.equal(items[0].title, "a bcé");
  });

  it("reads Atom 0.3", async () => {
    const { feed, items } = await parse(`<?xml version="1.0"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#">
  <title>Old Atom</title><link rel="alternate" type="text/html" href="http://old.example.com/"/>
  <entry><title>Entry</title><link rel="alternate" type="text/html" href="http://old.example.com/e1"/>
    <id>tag:old.example.com,2004:1</id><issued>2004-01-02T03:04:05Z</issued><modified>2004-02-02T00:00:00Z</modified>
    <content type="text/html" mode="escaped">&lt;p&gt;Hi&lt;/p&gt;</content></entry>
</feed>`);
    assert.equal(feed.type, "atom");
    assert.equal(feed.title, "Old Atom");
    assert.equal(items[0].url, "http://old.example.com/e1");
    assert.equal(items[0].published?.toISOString(), "2004-01-02T03:04:05.000Z");
    assert.equal(items[0].content, "<p>Hi</p>");
  });

  it("keeps Atom type=text content as text", async () => {
    const { items } = await parse(`<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
      <entry><id>1</id><title type="text">a &lt; b</title><content type="text">x &lt;b&gt; y</content></entry></feed>`);
    assert.equal(items[0].title, "a < b");
    assert.equal(items[0].content, "<p>x &lt;b&gt; y</p>");
  });
});
