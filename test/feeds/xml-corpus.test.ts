import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { FeedParseError, parseFeed, type ParsedFeed } from "../../lib/parser.js";
import { CORPORA, corpusBytes } from "./corpus.js";

interface Expected {
  file: string;
  url: string;
  contentType?: string;
  title: string | null;
  count: number;
  maxItems?: number;
  /** The first item in document order, found by title. */
  first: { title: string | null; url: string | null; published: string | null };
}

const CASES: Expected[] = [
  {
    file: "node-feedparser/rss2sample.xml",
    url: "http://liftoff.msfc.nasa.gov/rss.xml",
    title: "Liftoff News",
    count: 4,
    first: {
      title: "Star City",
      url: "http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp",
      published: "2003-06-03T09:39:21.000Z",
    },
  },
  {
    file: "node-feedparser/category-feed.xml",
    url: "http://www.nytimes.com/services/xml/rss/nyt/HomePage.xml",
    title: "NYT > Home Page",
    count: 1,
    first: {
      title: "E.P.A. Plan to Clean Up Gowanus Canal Meets Local Resistance",
      url: "http://www.nytimes.com/2013/05/06/nyregion/epa-plan-to-clean-up-gowanus-canal-meets-local-resistance.html?partner=rss&emc=rss",
      published: "2013-05-05T17:15:11.000Z",
    },
  },
  {
    file: "node-feedparser/atom-with-tag-uri-links.xml",
    url: "http://example.com/feed",
    title: "Test Feed",
    count: 1,
    first: { title: "Test Entry", url: null, published: null },
  },
  {
    file: "node-feedparser/complexNamespaceFeed.xml",
    url: "http://localhost:8080/namespace/feed/",
    title: "namespace/feed",
    count: 1,
    first: {
      title: "This is the title",
      url: "http://localhost:8080/namespace/feed/entries/urn:uuid:d5ffaea2-0a9a-4f38-98fc-5c364177b6b4",
      published: "2012-08-04T01:29:34.677Z",
    },
  },
  {
    file: "node-feedparser/guid-dupes.xml",
    url: "http://feeds.braingle.com/braingle/newteasers",
    title: "Braingle's Newest Brain Teasers and Riddles",
    count: 1,
    first: { title: "Huh?", url: "http://www.braingle.com/50366.html", published: "2014-06-19T06:00:00.000Z" },
  },
  {
    file: "node-feedparser/iconv.xml",
    url: "http://www.oren.ru/rss/",
    title: "Новости Оренбурга и области / Раздел Новости",
    count: 10,
    first: {
      title: "В Бузулуке главные стройплощадки – детсад и Ледовый дворец",
      url: "http://www.oren.ru/news/2743422/",
      published: "2014-01-22T14:31:31.000Z",
    },
  },
  {
    // Same feed, gzip-compressed: the HTTP layer inflates it, here the test does.
    file: "node-feedparser/compressed.xml",
    url: "http://www.oren.ru/rss/",
    title: "Новости Оренбурга и области / Раздел Новости",
    count: 10,
    first: {
      title: "В Бузулуке главные стройплощадки – детсад и Ледовый дворец",
      url: "http://www.oren.ru/news/2743422/",
      published: "2014-01-22T14:31:31.000Z",
    },
  },
  {
    file: "node-feedparser/illegally-nested.xml",
    url: "http://feeds.feedburner.com/ziffdavis/pcmag/dvorak",
    title: "PCMag.com: the Official John C. Dvorak RSS Feed",
    count: 10,
    first: {
      title: "My Professional Armchair Analysis of CES",
      // feedburner:origLink, not the feedproxy redirector
      url: "http://www.pcmag.com/article2/0,2817,2525649,00.asp?kc=PCRSS03079TX1K0000584",
      published: "2018-01-17T20:50:00.000Z",
    },
  },
  {
    file: "node-feedparser/intertwingly.atom",
    url: "http://intertwingly.net/blog/index.atom",
    title: "Sam Ruby",
    count: 20,
    first: {
      title: "Inhibiting Suspend",
      url: "http://intertwingly.net/blog/2012/07/16/Inhibiting-Suspend",
      published: "2012-07-16T15:48:01.000Z",
    },
  },
  {
    file: "node-feedparser/mediacontent-dupes.xml",
    url: "http://www.dailymail.co.uk/ushome/index.rss",
    title: "Home | Mail Online",
    count: 1,
    first: {
      title:
        "Could the infamous Black Dahlia case be about to be solved? Cadaver dog discovers death scent at Hollywood home of suspect 66 years after the horrific murder",
      url: "http://www.dailymail.co.uk/news/article-2272640/Could-infamous-Black-Dahlia-case-solved-Cadaver-dog-discovers-death-scent-Hollywood-home-suspect-66-years-horrific-murder.html?ITO=1490&ns_mchannel=rss&ns_campaign=1490",
      published: "2013-02-03T04:13:03.000Z",
    },
  },
  {
    file: "node-feedparser/non-text-alternate-links.xml",
    url: "https://ncatlab.org/nlab/atom_with_headlines",
    title: "nLab",
    count: 1,
    first: {
      title: "(0,1)-category",
      url: "https://ncatlab.org/nlab/show/%280%2C1%29-category",
      published: "2009-09-08T23:20:59.000Z",
    },
  },
  {
    file: "node-feedparser/nondefaultnamespace-baseline.atom",
    url: "http://example.org/tests/namespace/baseline.atom",
    title: "Non-default namespace test baseline",
    count: 1,
    first: {
      title: "If you can read the content of this entry, checking the test case will be meaningful.",
      url: "http://example.org/tests/namespace/result.html",
      published: "2006-01-18T11:26:54.000Z",
    },
  },
  {
    file: "node-feedparser/nondefaultnamespace.atom",
    url: "http://example.org/tests/namespace/feed.atom",
    title: "Non-default namespace test",
    count: 1,
    first: {
      title: "If you can read the content of this entry, your aggregator works fine.",
      url: "http://example.org/tests/namespace/result.html",
      published: "2006-01-18T11:26:54.000Z",
    },
  },
  {
    file: "node-feedparser/nondefaultnamespace-xhtml.atom",
    url: "http://example.org/tests/namespace/xhtml.atom",
    title: "Non-default XHTML namespace test",
    count: 1,
    first: {
      title: "If you can read the content of this entry, and it has a list and links, your aggregator works fine.",
      url: "http://example.org/tests/namespace/result.html",
      published: "2006-01-18T11:26:54.000Z",
    },
  },
  {
    file: "node-feedparser/unknown-namespace.atom",
    url: "http://hsivonen.iki.fi/test/unknown-namespace.atom",
    title: "Prefixed XHTML with unprefixed bogo-namespace",
    count: 1,
    first: {
      title: "This entry contains XHTML-looking markup that is not XHTML",
      url: "http://example.org/tests/namespace/result.html",
      published: "2006-01-22T19:47:34.000Z",
    },
  },
  {
    file: "node-feedparser/relative-channel-image-url.xml",
    url: "https://www.virtualbox.org/ticket/10860?format=rss",
    title: "Oracle VM VirtualBox: Ticket #10860: Full resolution not exposed to Linux guest",
    count: 1,
    first: {
      title: null,
      url: "https://www.virtualbox.org/ticket/10860#comment:1",
      published: "2012-08-24T08:54:14.000Z",
    },
  },
  {
    file: "node-feedparser/rss-with-relative-urls.xml",
    url: "http://www.arcgames.com/en/games/neverwinter/news/rss",
    title: "Neverwinter",
    count: 2,
    first: {
      title: "Neverwinter & Jingle Jam Humble Bundle!",
      url: "http://www.arcgames.com/en/games/neverwinter/news/detail/10743874-neverwinter-%26-jingle-jam-humble-bundle%21",
      published: "2017-12-07T18:00:29.000Z",
    },
  },
  {
    file: "node-feedparser/rss-with-relative-urls-with-absolute-xmlurl.xml",
    url: "http://www.arcgames.com/en/games/neverwinter/news/rss",
    title: "Neverwinter",
    count: 2,
    first: {
      title: "Neverwinter & Jingle Jam Humble Bundle!",
      url: "http://www.arcgames.com/en/games/neverwinter/news/detail/10743874-neverwinter-%26-jingle-jam-humble-bundle%21",
      published: "2017-12-07T18:00:29.000Z",
    },
  },
  {
    file: "node-feedparser/rss-with-trailing-meta.xml",
    url: "https://example.com/feed.xml",
    title: "Trailing Meta Feed",
    count: 1,
    first: { title: "First item", url: "https://example.com/items/1", published: null },
  },
  ...["tpm.atom", "tpm-with-empty-base.atom", "tpm-with-fragment-base.atom"].map((file) => ({
    file: `node-feedparser/${file}`,
    url: "http://talkingpointsmemo.com/account/feed/all/LpNewCzTqYYiHqtKqyTw5DaF1aUucgyyXb2dsqKU2yMr",
    title: "All TPM News",
    count: 20,
    first: {
      title: "Hannity Announces Fox Has Hired Sebastian Gorka As NatSec Strategist",
      url: "http://talkingpointsmemo.com/livewire/hannity-announces-fox-hired-sebastian-gorka-national-security-strategist",
      published: "2017-11-08T23:15:58.000Z",
    },
  })),
  {
    file: "node-feedparser/wapowellness.xml",
    url: "http://feeds.washingtonpost.com/rss/lifestyle/wellness",
    title: "Wellness: Health, Fitness, Nutrition & More - The Washington Post",
    count: 29,
    first: {
      title: "Schools minister to kids’ fitness and nutrition needs",
      url: "http://www.washingtonpost.com/lifestyle/wellness/schools-minister-to-kids-fitness-and-nutrition-needs/2012/08/21/0ca90d46-e6eb-11e1-936a-b801f1abab19_story.html?wprss=rss_wellness",
      published: "2012-08-21T15:33:00.000Z",
    },
  },
  {
    file: "miniflux/parser__encoding_ISO-8859-1.xml",
    url: "https://rss.golem.de/rss.php?feed=RSS2.0",
    contentType: "application/rss+xml; charset=ISO-8859-1",
    title: "Golem.de",
    count: 40,
    first: {
      title: "Red Dead Redemption 2: Hinweise auf PC-Umsetzung in App von Rockstar Games",
      url: "https://www.golem.de/news/red-dead-redemption-2-hinweise-auf-pc-umsetzung-in-app-von-rockstar-games-1810-137358-rss.html",
      published: "2018-10-28T12:48:00.000Z",
    },
  },
  {
    file: "miniflux/parser__encoding_WINDOWS-1251.xml",
    url: "http://ibash.org.ru/rss.xml",
    contentType: "text/xml",
    title: "iBash.Org.Ru",
    count: 50,
    first: {
      title: "Цитата #17703",
      url: "http://ibash.org.ru/quote.php?id=17703",
      published: "2018-03-21T07:27:32.000Z",
    },
  },
  ...["parser__large_atom.xml", "parser__large_rss.xml"].map((file) => ({
    file: `miniflux/${file}`,
    url: "https://dustri.org/b/feed",
    title: "Artificial truth",
    count: 25,
    first: {
      title: "Using vale with vim",
      url: "https://dustri.org/b/using-vale-with-vim.html",
      published: "2024-03-10T16:15:00.000Z",
    },
  })),
  {
    file: "miniflux/parser__no_encoding_ISO-8859-1.xml",
    url: "https://le-cercle-psy.scienceshumaines.com/rss",
    contentType: "application/xml; charset=ISO-8859-1",
    title: "Flux RSS du magazine de psychologie Le Cercle Psy",
    count: 10,
    first: {
      title: "Perturbateurs endocriniens : quels effets sur le cerveau ?",
      url: "https://le-cercle-psy.scienceshumaines.com/perturbateurs-endocriniens-quels-effets-sur-le-cerveau_sh_39995",
      published: "2018-10-17T10:30:00.000Z",
    },
  },
  {
    file: "miniflux/parser__rdf_UTF8.xml",
    url: "https://www.heise.de/newsticker/heise.rdf",
    title: "heise online News",
    count: 60,
    maxItems: 100,
    first: {
      title: "OLED-TVs: Vorsichtsmaßnahmen gegen Einbrennen",
      url: "https://www.heise.de/newsticker/meldung/OLED-TVs-Vorsichtsmassnahmen-gegen-Einbrennen-4205274.html?wt_mc=rss.ho.beitrag.rdf",
      published: null,
    },
  },
  {
    file: "miniflux/parser__small_atom.xml",
    url: "https://github.com/miniflux/v2/commits/main.atom",
    title: "Recent Commits to v2:main",
    count: 20,
    first: {
      title: "Parse podcast categories",
      url: "https://github.com/miniflux/v2/commit/6d97f8b4582414b6ce69467656824690057d4793",
      published: "2024-03-12T05:30:27.000Z",
    },
  },
  {
    file: "miniflux/parser__urdu_UTF8.xml",
    url: "http://www.bbc.com/urdu/index.xml",
    contentType: "text/xml; charset=utf-8",
    title: "BBC News اردو - پاکستان کے لیے امریکی امداد کی بہار و خزاں",
    count: 26,
    first: {
      title: "امریکی عسکری امداد کی بندش کی وجوہات: انڈیا سے جنگ، جوہری پروگرام اور اب دہشت گردوں کی پشت پناہی",
      url: "http://www.bbc.com/urdu/pakistan-42575603",
      published: "2018-01-05T16:51:00.000Z",
    },
  },
  ...["encoding__koi8r.xml", "xml__koi8r.xml"].map((file) => ({
    file: `miniflux/${file}`,
    url: "http://example.com/feed.xml",
    title: "Пример RSS ленты",
    count: 2,
    first: { title: "Первая новость", url: "http://example.com/post1", published: "2026-02-15T10:00:00.000Z" },
  })),
  // A <feed> without the Atom namespace, with right, wrong and unknown encoding declarations.
  ...["encoding__utf8.xml", "encoding__utf8-incorrect-prolog.xml", "encoding__invalid-prolog.xml"].map((file) => ({
    file: `miniflux/${file}`,
    url: "https://example.com/feed.xml",
    title: "테스트 피드",
    count: 1,
    first: { title: "Café", url: null, published: null },
  })),
];

describe("XML feeds from the corpora", () => {
  for (const expected of CASES) {
    it(expected.file, async () => {
      const parsed = await parseFeed(corpusBytes(expected.file), {
        url: expected.url,
        contentType: expected.contentType,
        maxItems: expected.maxItems,
      });
      assert.equal(parsed.feed.title, expected.title);
      assert.equal(parsed.items.length, expected.count);
      const first = parsed.items.find((item) => item.title === expected.first.title);
      assert.ok(first, `an item titled ${JSON.stringify(expected.first.title)}`);
      assert.equal(first.url, expected.first.url);
      assert.equal(first.published?.toISOString() ?? null, expected.first.published);
      assertWellFormedItems(parsed);
    });
  }

  it("covers every well-formed XML feed in the corpora", () => {
    const covered = new Set(CASES.map((c) => c.file));
    const rejected = new Set<string>();
    const tested = new Set([
      "node-feedparser/saxerror.xml",
      "node-feedparser/rss-with-item-scoped-html-base.xml",
      "node-feedparser/rss-with-relative-html-urls.xml",
      "node-feedparser/rss-with-relative-html-urls-no-base.xml",
      "node-feedparser/invalid-characters-gzipped.xml",
    ]);
    const feeds = [
      ...readdirSync(`${CORPORA}/node-feedparser`)
        .filter((f) => /\.(xml|atom)$/.test(f))
        .map((f) => `node-feedparser/${f}`),
      ...readdirSync(`${CORPORA}/miniflux`)
        .filter((f) => /^(parser|xml)__/.test(f))
        .map((f) => `miniflux/${f}`),
    ];
    const missing = feeds.filter(
      (f) => !covered.has(f) && !rejected.has(f) && !tested.has(f) && !f.includes("iso88591"),
    );
    assert.deepEqual(missing, []);
  });
});

/** Invariants every parsed feed must hold. */
function assertWellFormedItems(parsed: ParsedFeed): void {
  const uids = parsed.items.map((item) => item.uid);
  assert.equal(new Set(uids).size, uids.length, "uids are unique");
  const dated = parsed.items.filter((item) => item.published);
  assert.deepEqual(
    parsed.items.slice(0, dated.length).map((item) => item.published !== null),
    dated.map(() => true),
    "dated items come first",
  );
  for (let i = 1; i < dated.length; i++) {
    assert.ok(dated[i - 1].published!.getTime() >= dated[i].published!.getTime(), "newest first");
  }
  for (const item of parsed.items) {
    if (item.url) assert.match(item.url, /^https?:\/\//);
    if (item.photo) assert.match(item.photo, /^https?:\/\//);
    if (item.summary) assert.ok(item.summary.length <= 300);
    if (item.content) assert.doesNotMatch(item.content, /<script/i);
  }
}

describe("corpus feeds with special handling", () => {
  it("resolves item-scoped xml:base in links and HTML", async () => {
    const { items } = await parseFeed(corpusBytes("node-feedparser/rss-with-item-scoped-html-base.xml"), {
      url: "https://example.com/feed.xml",
    });
    const first = items.find((item) => item.title === "First")!;
    const second = items.find((item) => item.title === "Second")!;
    assert.equal(first.url, "https://example.com/first/first");
    assert.ok(first.content!.includes('href="https://example.com/first/post"'));
    assert.equal(second.url, "https://example.com/second");
    assert.ok(second.content!.includes('href="https://example.com/post"'));
  });

  it("resolves relative HTML URLs against xml:base", async () => {
    const { items } = await parseFeed(corpusBytes("node-feedparser/rss-with-relative-html-urls.xml"), {
      url: "https://example.com/feed.xml",
    });
    assert.equal(items.length, 1);
    assert.equal(items[0].url, "https://example.com/posts/posts/post-1");
    assert.ok(items[0].content!.includes('href="https://example.com/posts/post-1"'));
    assert.ok(items[0].content!.includes('src="https://example.com/images/post-1.png"'));
    assert.equal(items[0].photo, "https://example.com/images/post-1.png");
    assert.doesNotMatch(items[0].content!, /<video/);
  });

  it("resolves relative HTML URLs against the feed URL without xml:base", async () => {
    const { items } = await parseFeed(corpusBytes("node-feedparser/rss-with-relative-html-urls-no-base.xml"), {
      url: "https://example.com/feed/rss.xml",
    });
    assert.equal(items[0].url, "https://example.com/feed/posts/post-1");
    assert.ok(items[0].content!.includes('src="https://example.com/images/post-1.png"'));
  });

  it("makes the relative channel image absolute", async () => {
    const { feed } = await parseFeed(corpusBytes("node-feedparser/relative-channel-image-url.xml"), {
      url: "https://www.virtualbox.org/ticket/10860?format=rss",
    });
    assert.equal(feed.photo, "https://www.virtualbox.org/graphics/vbox_logo2_gradient.png");
    assert.equal(feed.siteUrl, "https://www.virtualbox.org/ticket/10860");
  });

  it("keeps XHTML lists and links written with a namespace prefix", async () => {
    const { items } = await parseFeed(corpusBytes("node-feedparser/nondefaultnamespace-xhtml.atom"), {
      url: "http://example.org/tests/namespace/xhtml.atom",
    });
    assert.match(
      items[0].content!,
      /<ul>\s*<li><a href="http:\/\/plasmasturm.org\/log\/376\/" rel="noopener noreferrer">/,
    );
  });

  it("reads a feed with XML-forbidden control characters (gzipped in the corpus)", async () => {
    const parsed = await parseFeed(corpusBytes("node-feedparser/invalid-characters-gzipped.xml"), {
      url: "http://nshipster.com/feed.xml",
    });
    assert.equal(parsed.feed.title, "NSHipster");
    assert.equal(parsed.items.length, 25);
    assertWellFormedItems(parsed);
  });

  it("takes media:content / enclosure images and the feed image", async () => {
    const { feed, items } = await parseFeed(corpusBytes("node-feedparser/mediacontent-dupes.xml"), {
      url: "http://www.dailymail.co.uk/ushome/index.rss",
    });
    assert.equal(feed.photo, "http://i.mol.im/i/furniture/mastHead_1_rss.gif");
    assert.equal(items[0].photo, "http://i.mol.im/i/pix/2013/02/03/article-2272640-174FCEE2000005DC-697_154x115.jpg");
  });

  it("reads categories and authors", async () => {
    const category = await parseFeed(corpusBytes("node-feedparser/category-feed.xml"), {
      url: "http://www.nytimes.com/feed.xml",
    });
    assert.deepEqual(category.items[0].categories, ["Water Pollution", "Gowanus Canal (Brooklyn, NY)"]);
    const complex = await parseFeed(corpusBytes("node-feedparser/complexNamespaceFeed.xml"), {
      url: "http://localhost:8080/namespace/feed/",
    });
    assert.equal(complex.items[0].author, "John Doe");
    assert.deepEqual(complex.items[0].categories, ["MyCategory 1", "MyCategory 2", "MyCategory 3"]);
  });

  it("keeps undated items in feed order (RSS 0.90 has no dates)", async () => {
    const { items } = await parseFeed(corpusBytes("miniflux/parser__rdf_UTF8.xml"), {
      url: "https://www.heise.de/newsticker/heise.rdf",
    });
    assert.equal(items.length, 50, "default limit");
    assert.equal(items[0].title, "OLED-TVs: Vorsichtsmaßnahmen gegen Einbrennen");
    assert.equal(items[1].title, "Mega-Deal: IBM übernimmt Red Hat");
  });

  it("finds the item Miniflux checks in the ISO-8859-1 feed", async () => {
    const { items } = await parseFeed(corpusBytes("miniflux/parser__encoding_ISO-8859-1.xml"), {
      url: "https://rss.golem.de/rss.php?feed=RSS2.0",
      contentType: "application/rss+xml; charset=ISO-8859-1",
    });
    assert.ok(
      items.some((item) => item.title === "Projekt Jedi: Microsoft will weiter mit US-Militär zusammenarbeiten"),
    );
  });

  it("reads a feed with a bare ampersand (not well-formed XML) and keeps every item", async () => {
    const parsed = await parseFeed(corpusBytes("node-feedparser/saxerror.xml"), { url: "http://example.com/feed.xml" });
    assert.equal(parsed.feed.title, "SAXError Test Feed");
    assert.deepEqual(
      parsed.items.map((item) => [item.title, item.url, item.uid]),
      [
        ["Good Item", "http://example.com/good", "http://example.com/good"],
        ["Bad Item", "http://example.com/bad?foo=1&bar=2", "http://example.com/bad"],
        ["Item After Error", "http://example.com/after", "http://example.com/after"],
      ],
    );
    assert.equal(parsed.items[0].content, "This item is fine.");
    assertWellFormedItems(parsed);
  });

  it("reads feeds that have no items", async () => {
    for (const [file, title] of [
      ["miniflux/encoding__iso-8859-1.xml", "Café"],
      ["miniflux/encoding__windows-1252.xml", "Euro €"],
      ["miniflux/encoding__windows-1252-incorrect-prolog.xml", "Euro €"],
    ]) {
      const parsed = await parseFeed(corpusBytes(file), { url: "https://example.com/feed.xml" });
      assert.equal(parsed.feed.title, title);
      assert.equal(parsed.items.length, 0);
    }
  });
});

describe("bodies that are not feeds", () => {
  const cases: Array<[file: string, message: RegExp]> = [
    ["node-feedparser/notafeed.html", /no h-feed or h-entry/],
    ["miniflux/xml__iso88591.xml", /root <note>/],
    ["miniflux/xml__iso88591_utf8_mismatch.xml", /root <note>/],
    ["miniflux/encoding__utf8.html", /no h-feed or h-entry/],
    ["microformats/h-card/hcard.html", /no h-feed or h-entry/],
  ];
  for (const [file, message] of cases) {
    it(`${file} throws FeedParseError`, async () => {
      await assert.rejects(parseFeed(corpusBytes(file), { url: "https://example.com/" }), (error: unknown) => {
        assert.ok(error instanceof FeedParseError);
        assert.equal(error.name, "FeedParseError");
        assert.match(error.message, message);
        return true;
      });
    });
  }

  it("throws FeedParseError for gzip bytes the HTTP layer did not inflate", async () => {
    const { readFileSync } = await import("node:fs");
    const raw = new Uint8Array(readFileSync(`${CORPORA}/node-feedparser/compressed.xml`));
    await assert.rejects(parseFeed(raw, { url: "https://example.com/" }), FeedParseError);
  });

  it("throws FeedParseError for plain text, empty bodies and other JSON", async () => {
    for (const body of [
      "",
      "   ",
      "hello world",
      "[1,2,3]",
      '{"foo": 1}',
      '{"version": "1.0", "items": []}',
      "{not json",
    ]) {
      await assert.rejects(parseFeed(body, { url: "https://example.com/" }), FeedParseError, JSON.stringify(body));
    }
  });

  it("refuses a relative options.url as a programming error", async () => {
    await assert.rejects(parseFeed("<rss/>", { url: "/feed.xml" }), TypeError);
  });
});
