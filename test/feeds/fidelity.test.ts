/**
 * Parsing fidelity: the cases where feed readers agree on a reading and this
 * parser used to differ (issue 14's list). Feeds are written here, small.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFeed } from "../../lib/parser.js";

const FEED_URL = "https://blog.example.com/feed.xml";
const parse = (body: string) => parseFeed(body, { url: FEED_URL });

const NS = {
  atom: "http://www.w3.org/2005/Atom",
  dc: "http://purl.org/dc/elements/1.1/",
  itunes: "http://www.itunes.com/dtds/podcast-1.0.dtd",
  media: "http://search.yahoo.com/mrss/",
  xhtml: "http://www.w3.org/1999/xhtml",
};

/** An RSS 2.0 feed with the usual prefixes declared. */
function rss(items: string, channel = ""): string {
  return `<?xml version="1.0"?><rss version="2.0" xmlns:dc="${NS.dc}" xmlns:itunes="${NS.itunes}" xmlns:media="${NS.media}" xmlns:xhtml="${NS.xhtml}" xmlns:atom="${NS.atom}">
<channel><link>https://blog.example.com/</link>${channel}${items}</channel></rss>`;
}

function atom(entries: string, feed = ""): string {
  return `<?xml version="1.0"?><feed xmlns="${NS.atom}" xmlns:dc="${NS.dc}" xmlns:itunes="${NS.itunes}" xmlns:media="${NS.media}">${feed}${entries}</feed>`;
}

describe("full content in an XHTML body", () => {
  it("reads <xhtml:body> and a <body> in the XHTML namespace as the item's content", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><xhtml:body><p>Prefixed <b>body</b></p></xhtml:body></item>
        <item><guid>2</guid><body xmlns="${NS.xhtml}"><p>Default namespace <a href="/p">body</a></p></body></item>`),
    );
    const byUid = new Map(items.map((item) => [item.uid, item]));
    assert.equal(byUid.get("1")?.content, "<p>Prefixed <b>body</b></p>");
    assert.equal(byUid.get("1")?.summary, "Prefixed body");
    assert.equal(
      byUid.get("2")?.content,
      '<p>Default namespace <a href="https://blog.example.com/p" rel="noopener noreferrer">body</a></p>',
    );
  });

  it("reads a <body> without namespace and a <fullitem> of escaped HTML", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><body><p>Plain body</p></body></item>
        <item><guid>2</guid><fullitem>&lt;p&gt;Full item&lt;/p&gt;</fullitem></item>`),
    );
    assert.deepEqual(
      items.map((item) => item.content),
      ["<p>Plain body</p>", "<p>Full item</p>"],
    );
  });

  it("prefers content:encoded, and keeps the description as the summary", async () => {
    const { items } = await parse(
      rss(`<item xmlns:content="http://purl.org/rss/1.0/modules/content/"><guid>1</guid><description>Short</description>
        <content:encoded>&lt;p&gt;Encoded&lt;/p&gt;</content:encoded><xhtml:body><p>Body</p></xhtml:body></item>`),
    );
    assert.equal(items[0].content, "<p>Encoded</p>");
    assert.equal(items[0].summary, "Short");
  });
});

describe("sanitising keeps fallback text, never script or style text", () => {
  it("keeps the text of object, iframe, noscript, applet and unknown elements; drops only the element", async () => {
    const html =
      'A<object data="x.swf"> object fallback</object> B<iframe src="https://e.example/"> <b>iframe text</b></iframe>' +
      ' C<noscript> no script</noscript> D<blink> blinking</blink> E<applet code="a.class"> applet text</applet>';
    const { items } = await parse(rss(`<item><guid>1</guid><description><![CDATA[${html}]]></description></item>`));
    assert.equal(items[0].content, "A object fallback B <b>iframe text</b> C no script D blinking E applet text");
    assert.equal(items[0].summary, "A object fallback B iframe text C no script D blinking E applet text");
  });

  it("never keeps the text of script or style: content, summary, item and feed titles", async () => {
    const script =
      "safe&lt;script&gt;location.href='https://evil.example/'&lt;/script&gt;&lt;style&gt;p{color:red}&lt;/style&gt; text";
    const { feed, items } = await parse(
      atom(
        `<entry><id>urn:e</id><title type="html">${script}</title><content type="html">${script}</content></entry>
         <entry><id>urn:f</id><title type="xhtml"><div xmlns="${NS.xhtml}">safe<script>location.href='x'</script> text</div></title></entry>`,
        `<title type="xhtml"><div xmlns="${NS.xhtml}">safe<script type="text/javascript">location.href='x'</script> text</div></title>
         <subtitle type="html">${script}</subtitle>`,
      ),
    );
    assert.equal(feed.title, "safe text");
    assert.equal(feed.description, "safe text");
    for (const item of items) assert.equal(item.title, "safe text");
    assert.equal(items.find((item) => item.uid === "urn:e")?.content, "safe text");
    assert.doesNotMatch(JSON.stringify({ feed, items }), /location|color:red/);
  });
});

describe("text constructs: escaped markup stays text, DOCTYPE entities are expanded", () => {
  it("keeps escaped markup in Atom type=text (the default) and in XHTML as text", async () => {
    const { feed, items } = await parse(
      atom(
        `<entry><id>urn:1</id><title>History of the &lt;blink&gt; tag</title>
           <summary type="text">1 &lt; 2 &amp;&amp; &lt;b&gt;not bold&lt;/b&gt;</summary></entry>`,
        `<title type="xhtml"><div xmlns="${NS.xhtml}">History of the &lt;blink&gt; tag</div></title>`,
      ),
    );
    assert.equal(feed.title, "History of the <blink> tag");
    assert.equal(items[0].title, "History of the <blink> tag");
    assert.equal(items[0].summary, "1 < 2 && <b>not bold</b>");
    assert.equal(items[0].content, "<p>1 &lt; 2 &amp;&amp; &lt;b&gt;not bold&lt;/b&gt;</p>");
  });

  it("reads an RSS title as HTML only when it looks like HTML", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><title>History of the &lt;blink&gt; tag</title></item>
        <item><guid>2</guid><title>a &lt; b and c &gt; d</title></item>
        <item><guid>3</guid><title>&lt;b&gt;Bold&lt;/b&gt; move &amp;amp; more</title></item>`),
    );
    assert.deepEqual(
      items.map((item) => item.title),
      ["History of the <blink> tag", "a < b and c > d", "Bold move & more"],
    );
  });

  it("expands entities the DOCTYPE declares, in text and attributes", async () => {
    const body = `<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY site "https://blog.example.com">
  <!ENTITY id "tag:example.com,2006:">
  <!ENTITY who "Ada &amp; Grace">
]>
<rss version="2.0"><channel><title>By &who;</title><link>&site;/</link>
<item><guid isPermaLink="false">&id;post-1</guid><link>&site;/post-1</link><title>T</title></item></channel></rss>`;
    const { feed, items } = await parse(body);
    assert.equal(feed.title, "By Ada & Grace");
    assert.equal(feed.siteUrl, "https://blog.example.com/");
    assert.equal(items[0].uid, "tag:example.com,2006:post-1");
    assert.equal(items[0].url, "https://blog.example.com/post-1");
  });

  it("bounds the expansion by the document's size and never reads external entities", async () => {
    const laughs =
      '<!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa">' +
      Array.from({ length: 8 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i === 0 ? "" : i};`.repeat(10)}">`).join("") +
      '<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    const body = `${laughs}<rss version="2.0"><channel><title>&a1;|&a8;|&xxe;</title><item><guid>1</guid><title>&a2;</title></item></channel></rss>`;
    const { feed, items } = await parse(body);
    // a1 (100 characters) fits the budget; a8 (10^9) does not and stays as written, like the external entity.
    assert.equal(feed.title, `${"a".repeat(100)}|&a8;|&xxe;`);
    assert.ok(JSON.stringify({ feed, items }).length < body.length * 3);
  });
});

describe("Atom in other namespaces", () => {
  const entry = "<entry><id>urn:e</id><title>Entry</title></entry>";
  for (const [name, root] of [
    ["Atom 0.3", '<feed version="0.3" xmlns="http://purl.org/atom/ns#">'],
    ["a prefixed Atom 1.0 namespace", '<a:feed xmlns:a="http://www.w3.org/2005/Atom">'],
    ["the namespace in odd case", '<feed xmlns="HTTP://WWW.W3.ORG/2005/Atom">'],
    ["a pre-1.0 draft namespace", '<feed version="0.3" xmlns="http://purl.org/pie/">'],
  ] as const) {
    it(`reads ${name} as Atom`, async () => {
      const prefix = root.startsWith("<a:") ? "a:" : "";
      const body = `${root}<${prefix}title>Example Atom</${prefix}title>${entry.replace(/<(\/?)/g, `<$1${prefix}`)}</${prefix}feed>`;
      const { feed, items } = await parse(body);
      assert.equal(feed.type, "atom");
      assert.equal(feed.title, "Example Atom");
      assert.deepEqual(
        items.map((item) => item.title),
        ["Entry"],
      );
    });
  }

  it("reads RSS in the UserLand 2.1 namespace", async () => {
    const { feed } = await parse(
      '<rss xmlns="http://backend.userland.com/rss2.1"><channel><description>Example description</description></channel></rss>',
    );
    assert.equal(feed.description, "Example description");
  });
});

describe("fallbacks: iTunes, Dublin Core, Media RSS", () => {
  it("takes the blog's image, description and author from iTunes, in odd namespace case too", async () => {
    const body = `<rss version="2.0" xmlns:itunes="http://www.itunes.com/DTDs/Podcast-1.0.dtd"><channel>
      <itunes:image href="https://cdn.example/show.jpg"/><itunes:subtitle>A show</itunes:subtitle>
      <itunes:summary>Longer summary</itunes:summary><itunes:author>Ada</itunes:author></channel></rss>`;
    const { feed } = await parse(body);
    assert.deepEqual([feed.photo, feed.description, feed.author], ["https://cdn.example/show.jpg", "A show", "Ada"]);
    const summaryOnly = await parse(body.replace(/<itunes:subtitle>.*?<\/itunes:subtitle>/, ""));
    assert.equal(summaryOnly.feed.description, "Longer summary");
    const urlAttribute = await parse(
      body.replace('href="https://cdn.example/show.jpg"', 'url="https://cdn.example/u.jpg"'),
    );
    assert.equal(urlAttribute.feed.photo, "https://cdn.example/u.jpg");
  });

  it("takes an item's summary, author, categories and image from iTunes", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><title>Episode</title><itunes:subtitle>Episode subtitle</itunes:subtitle>
        <itunes:author>Grace</itunes:author><itunes:image href="/ep.png"/>
        <itunes:category text="Technology"><itunes:category text="Gadgets"/></itunes:category>
        <itunes:keywords>podcasts, radio</itunes:keywords></item>`),
    );
    assert.equal(items[0].summary, "Episode subtitle");
    assert.equal(items[0].author, "Grace");
    assert.equal(items[0].photo, "https://blog.example.com/ep.png");
    assert.deepEqual(items[0].categories, ["Technology", "Gadgets", "podcasts", "radio"]);
  });

  it("takes author, description, categories and date from Dublin Core", async () => {
    const { feed, items } = await parse(
      rss(
        `<item><guid>1</guid><title>T</title><dc:author>Grace</dc:author><dc:description>DC description</dc:description>
          <dc:subject>Science</dc:subject><dc:date>2026-11-20T10:00:00Z</dc:date></item>
         <item><guid>2</guid><title>U</title><dc:creator>Ada</dc:creator></item>`,
        "<dc:author>The editor</dc:author><dc:description>Channel by DC</dc:description>",
      ),
    );
    assert.equal(feed.author, "The editor");
    assert.equal(feed.description, "Channel by DC");
    const [first, second] = items;
    assert.deepEqual(
      [first.author, first.summary, first.categories, first.published?.toISOString()],
      ["Grace", "DC description", ["Science"], "2026-11-20T10:00:00.000Z"],
    );
    assert.equal(second.author, "Ada");
  });

  it("takes an item's title, summary and image from Media RSS, in a media:group too", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><media:title>Media title</media:title><media:description type="html">&lt;p&gt;Media &lt;b&gt;text&lt;/b&gt;&lt;/p&gt;</media:description>
          <media:thumbnail url="https://cdn.example/t.jpg"/></item>
        <item><guid>2</guid><media:group><media:title>Grouped</media:title><media:description>Plain &lt;text&gt;</media:description>
          <media:content url="https://cdn.example/g.png" medium="image"/></media:group></item>`),
    );
    const byUid = new Map(items.map((item) => [item.uid, item]));
    assert.deepEqual(
      [byUid.get("1")?.title, byUid.get("1")?.summary, byUid.get("1")?.photo],
      ["Media title", "Media text", "https://cdn.example/t.jpg"],
    );
    assert.deepEqual(
      [byUid.get("2")?.title, byUid.get("2")?.summary, byUid.get("2")?.photo],
      ["Grouped", "Plain <text>", "https://cdn.example/g.png"],
    );
  });

  it("keeps the format's own fields first", async () => {
    const { feed, items } = await parse(
      rss(
        "<item><guid>1</guid><title>Own title</title><media:title>Media title</media:title><description>Own</description><itunes:subtitle>iTunes</itunes:subtitle></item>",
        "<description>Own channel</description><itunes:subtitle>iTunes channel</itunes:subtitle>",
      ),
    );
    assert.equal(feed.description, "Own channel");
    assert.deepEqual([items[0].title, items[0].summary], ["Own title", "Own"]);
  });
});

describe("authors and dates", () => {
  it("reads the name out of 'name (email)', 'email (name)' and 'name <email>'", async () => {
    const { feed, items } = await parse(
      rss(
        `<item><guid>1</guid><author>ada@example.org (Ada Lovelace)</author></item>
         <item><guid>2</guid><author>Grace Hopper (grace@example.org)</author></item>
         <item><guid>3</guid><dc:creator>Alan Turing &lt;alan@example.org&gt;</dc:creator></item>
         <item><guid>4</guid><author>Margaret (Peggy) Hamilton</author></item>`,
        "<managingEditor>Editor Name (editor@example.org)</managingEditor>",
      ),
    );
    assert.equal(feed.author, "Editor Name");
    assert.deepEqual(
      items.map((item) => item.author),
      ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Margaret (Peggy) Hamilton"],
    );
  });

  it("takes the first valid date, past invalid ones of the same kind", async () => {
    const { items } = await parse(
      atom(`<entry><id>urn:1</id><updated>not a date</updated><updated>2026-11-20T10:00:00Z</updated><updated>2003-12-31T10:14:55Z</updated></entry>
        <entry><id>urn:2</id><published>2026-11-21T08:00:00Z</published><updated>2026-11-22T08:00:00Z</updated></entry>`),
    );
    const byUid = new Map(items.map((item) => [item.uid, item.published?.toISOString()]));
    assert.equal(byUid.get("urn:1"), "2026-11-20T10:00:00.000Z");
    assert.equal(byUid.get("urn:2"), "2026-11-21T08:00:00.000Z");
  });
});

describe("links and xml:base", () => {
  it("takes the alternate link (or one without rel) over enclosure, related and self, in any order", async () => {
    const { items } = await parse(
      atom(`<entry><id>urn:1</id><link rel="enclosure" href="https://cdn.example/a.mp3"/><link rel="related" href="https://other.example/"/>
          <link rel="self" href="https://blog.example.com/api/1"/><link rel="alternate" href="https://blog.example.com/1"/></entry>
        <entry><id>urn:2</id><link rel="enclosure" type="text/html">https://cdn.example/b</link><link>https://blog.example.com/2</link></entry>
        <entry><id>urn:3</id><link rel="self" href="https://blog.example.com/api/3"/></entry>`),
    );
    const byUid = new Map(items.map((item) => [item.uid, item.url]));
    assert.equal(byUid.get("urn:1"), "https://blog.example.com/1");
    assert.equal(byUid.get("urn:2"), "https://blog.example.com/2");
    assert.equal(byUid.get("urn:3"), "https://blog.example.com/api/3");
  });

  it("resolves ids and links against xml:base at every level, nested bases combined", async () => {
    const { feed, items } = await parse(`<feed xmlns="${NS.atom}" xml:base="https://blog.example.com/base/">
      <link href="home/"/>
      <entry xml:base="posts/"><id>1</id><link href="one.html"/>
        <content type="html" xml:base="media/">&lt;img src="pic.png"&gt;</content></entry>
      <entry><id>tag:example.com,2026:2</id><link xml:base="/other/" href="two.html"/></entry>
    </feed>`);
    assert.equal(feed.siteUrl, "https://blog.example.com/base/home/");
    const [first, second] = items;
    assert.equal(first.uid, "https://blog.example.com/base/posts/1");
    assert.equal(first.url, "https://blog.example.com/base/posts/one.html");
    assert.equal(first.content, '<img src="https://blog.example.com/base/posts/media/pic.png" />');
    assert.equal(second.uid, "tag:example.com,2026:2");
    assert.equal(second.url, "https://blog.example.com/other/two.html");
  });

  it("resolves a permalink guid against xml:base, never a guid that is not one", async () => {
    const { items } = await parse(`<rss version="2.0" xml:base="https://blog.example.com/"><channel>
      <item><guid>posts/1</guid></item><item><guid isPermaLink="false">abc</guid></item></channel></rss>`);
    assert.deepEqual(
      items.map((item) => item.uid),
      ["https://blog.example.com/posts/1", "abc"],
    );
  });
});

describe("issue 23: the last misses on feedparser's suite", () => {
  it("takes an Atom alternate link written as text (no href) over an enclosure, whichever comes first", async () => {
    const { items } = await parse(
      atom(`<entry><id>urn:1</id><link rel="alternate" type="text/html">https://blog.example.com/1</link><link rel="enclosure" type="text/html">https://cdn.example/1</link></entry>
        <entry><id>urn:2</id><link rel="enclosure" type="text/html">https://cdn.example/2</link><link rel="alternate" type="text/html">https://blog.example.com/2</link></entry>
        <entry><id>urn:3</id><link rel="enclosure" type="text/html">https://cdn.example/3</link><link rel="alternate" href="https://blog.example.com/3"/></entry>`),
    );
    assert.deepEqual(
      new Map(items.map((item) => [item.uid, item.url])),
      new Map([
        ["urn:1", "https://blog.example.com/1"],
        ["urn:2", "https://blog.example.com/2"],
        ["urn:3", "https://blog.example.com/3"],
      ]),
    );
  });

  it("takes an Atom 1.0 entry's own id and title, never those of an element nested in it, in either order", async () => {
    const { items } = await parse(
      atom(`<entry><id>urn:right-1</id><title>Right 1</title><image><id>urn:wrong</id><title>Wrong</title></image></entry>
        <entry><image><id>urn:wrong</id><title>Wrong</title></image><id>urn:right-2</id><title>Right 2</title></entry>`),
    );
    assert.deepEqual(items.map((item) => [item.uid, item.title]).sort(), [
      ["urn:right-1", "Right 1"],
      ["urn:right-2", "Right 2"],
    ]);
  });

  it("takes Content-Location as the base of an XML feed's relative ids and links; never an unsafe one, never for HTML", async () => {
    const feed = atom(`<link href="home/"/><entry><id>/posts/1</id><link href="1.html"/></entry>`);
    const moved = await parseFeed(feed, { url: FEED_URL, contentLocation: "https://cdn.example.net/blog/feed.atom" });
    assert.equal(moved.feed.siteUrl, "https://cdn.example.net/blog/home/");
    assert.deepEqual(
      moved.items.map((item) => [item.uid, item.url]),
      [["https://cdn.example.net/posts/1", "https://cdn.example.net/blog/1.html"]],
    );
    const relative = await parseFeed(feed, { url: FEED_URL, contentLocation: "/other/feed.atom" });
    assert.equal(
      relative.items[0].url,
      "https://blog.example.com/other/1.html",
      "a relative Content-Location is resolved against the address fetched",
    );
    for (const contentLocation of ["javascript:alert(1)", "", null]) {
      const kept = await parseFeed(feed, { url: FEED_URL, contentLocation });
      assert.equal(kept.items[0].url, "https://blog.example.com/1.html", String(contentLocation));
    }
    const page = `<!DOCTYPE html><html><body><div class="h-feed"><article class="h-entry"><a class="u-url" href="/p/1">One</a></article></div></body></html>`;
    const hfeed = await parseFeed(page, { url: FEED_URL, contentLocation: "https://cdn.example.net/blog/" });
    assert.equal(hfeed.items[0].url, "https://blog.example.com/p/1", "browsers take no base from Content-Location");
  });

  it("keeps an item's categories in the order the feed writes them, whichever element each comes from", async () => {
    const { items } = await parse(
      rss(
        `<item><guid>1</guid><tags>tag one, tag two</tags><category>category one</category><dc:subject>subject</dc:subject><itunes:keywords>k1,k2</itunes:keywords><category>category two</category></item>`,
      ),
    );
    assert.deepEqual(items[0].categories, [
      "tag one",
      "tag two",
      "category one",
      "subject",
      "k1",
      "k2",
      "category two",
    ]);
  });

  it("reads the <item>s of an Atom feed that has no <entry> (an RSS habit in hand-written feeds) as its entries", async () => {
    const { items } = await parse(
      atom(`<item><id>urn:1</id><title>One</title><link href="https://blog.example.com/1"/></item>`),
    );
    assert.deepEqual(
      items.map((item) => [item.uid, item.title, item.url]),
      [["urn:1", "One", "https://blog.example.com/1"]],
    );
    const mixed = await parse(atom(`<entry><id>urn:e</id></entry><item><id>urn:i</id></item>`));
    assert.deepEqual(
      mixed.items.map((item) => item.uid),
      ["urn:e"],
      "beside real entries, an <item> is not one",
    );
  });

  it("takes the feed's language from Content-Language when the document declares none", async () => {
    assert.equal((await parseFeed(atom(""), { url: FEED_URL, contentLanguage: "de-AT, en" })).feed.language, "de-AT");
    assert.equal(
      (await parseFeed(`<feed xmlns="${NS.atom}" xml:lang="fr"/>`, { url: FEED_URL, contentLanguage: "de" })).feed
        .language,
      "fr",
    );
    assert.equal((await parseFeed(atom(""), { url: FEED_URL })).feed.language, null);
  });

  it("reads an RSS item's <summary> as its summary and its <description> as its content, in either order", async () => {
    const { items } = await parse(
      rss(`<item><guid>1</guid><description>The whole &lt;b&gt;post&lt;/b&gt;</description><summary>In short</summary></item>
        <item><guid>2</guid><summary>In short</summary><description>The whole post</description></item>
        <item><guid>3</guid><summary>Only a summary</summary></item>`),
    );
    const byUid = new Map(items.map((item) => [item.uid, item]));
    assert.equal(byUid.get("1")?.summary, "In short");
    assert.equal(byUid.get("1")?.content, "The whole <b>post</b>");
    assert.equal(byUid.get("2")?.summary, "In short");
    assert.equal(byUid.get("2")?.content, "The whole post");
    assert.equal(byUid.get("3")?.summary, "Only a summary");
    assert.equal(byUid.get("3")?.content, "Only a summary");
  });
});

describe("other encodings of content", () => {
  it("decodes base64 Atom content (a non-text media type, or Atom 0.3 mode=base64)", async () => {
    const encoded = Buffer.from("Example <b>Atom</b>").toString("base64");
    const { items } = await parse(
      atom(`<entry><id>urn:1</id><content type="application/octet-stream">${encoded}</content></entry>`),
    );
    assert.equal(items[0].content, "Example <b>Atom</b>");
    const old = await parse(
      `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><id>urn:2</id><title type="text/html" mode="base64">${encoded}</title></entry></feed>`,
    );
    assert.equal(old.items[0].title, "Example Atom");
  });

  it("writes language tags with hyphens", async () => {
    const { feed } = await parse(`<feed xmlns="${NS.atom}" xml:lang="en_US"><title>t</title></feed>`);
    assert.equal(feed.language, "en-US");
  });
});
