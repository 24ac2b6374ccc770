import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseOpml } from "../../lib/opml/parse.js";
import { fixture } from "./fixture.js";

// Shapes written from the public exports of common readers (not copied files).
describe("parseOpml: real-world reader exports", () => {
  it("reads a Feedly export: OPML 1.0, one folder level, a feed listed in two folders", () => {
    const parsed = parseOpml(fixture("feedly.opml"));
    assert.equal(parsed.title, "Ada subscriptions in feedly Cloud");
    assert.deepEqual(parsed.feeds, [
      {
        xmlUrl: "https://feeds.arstechnica.com/arstechnica/index",
        title: "Ars Technica",
        htmlUrl: "https://arstechnica.com/",
        description: null,
        type: "rss",
        category: "Tech",
      },
      {
        xmlUrl: "https://www.theverge.com/rss/index.xml",
        title: "The Verge - All Posts",
        htmlUrl: "https://www.theverge.com/",
        description: null,
        type: "rss",
        category: "Tech",
      },
      {
        xmlUrl: "https://jakearchibald.com/posts.rss",
        title: "Jake Archibald's blog",
        htmlUrl: "https://jakearchibald.com/",
        description: null,
        type: "rss",
        category: "Blogs",
      },
    ]);
    assert.deepEqual(parsed.skipped, [
      { xmlUrl: "https://feeds.arstechnica.com/arstechnica/index", reason: "duplicate" },
    ]);
  });

  it("reads an Inoreader export: namespaced extra attributes, escaped folder names, top-level feeds", () => {
    const parsed = parseOpml(fixture("inoreader.opml"));
    assert.equal(parsed.title, "Subscriptions of Ada from Inoreader [https://www.inoreader.com]");
    assert.deepEqual(
      parsed.feeds.map((f) => [f.title, f.category, f.xmlUrl]),
      [
        ["BBC News - World", "News", "https://feeds.bbci.co.uk/news/world/rss.xml"],
        ["NASA Breaking News", "News", "https://www.nasa.gov/news-release/feed/"],
        ["CSS-Tricks", "Web & Dev", "https://css-tricks.com/feed/"],
        ["Kottke", null, "https://feeds.kottke.org/main"],
      ],
    );
  });

  it("reads a NetNewsWire export: OPML 1.1, empty descriptions, JSON feeds, query strings", () => {
    const parsed = parseOpml(fixture("netnewswire.opml"));
    assert.equal(parsed.title, "Subscriptions-OnMyMac.opml");
    assert.deepEqual(parsed.feeds, [
      {
        xmlUrl: "https://daringfireball.net/feeds/json",
        title: "Daring Fireball",
        htmlUrl: "https://daringfireball.net/",
        description: null,
        type: "rss",
        category: null,
      },
      {
        xmlUrl: "https://inessential.com/feed.json",
        title: "inessential",
        htmlUrl: "https://inessential.com/",
        description: null,
        type: "rss",
        category: null,
      },
      {
        xmlUrl: "https://feedpress.me/sixcolors?type=xml",
        title: "Six Colors",
        htmlUrl: "https://sixcolors.com/",
        description: null,
        type: "rss",
        category: "Apple",
      },
      {
        xmlUrl: "https://netnewswire.blog/feed.json",
        title: "NetNewsWire News",
        htmlUrl: "https://netnewswire.blog/",
        description: null,
        type: "rss",
        category: "Apple",
      },
    ]);
  });
});
