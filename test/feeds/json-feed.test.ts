import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FeedParseError, parseFeed } from "../../lib/parser.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

describe("JSON Feed 1.0", () => {
  it("reads feed metadata and items, newest first", async () => {
    const { feed, items } = await parseFeed(new Uint8Array(fixture("json-feed-1.0.json")), {
      url: "https://example.org/feed.json",
      contentType: "application/feed+json",
    });
    assert.deepEqual(feed, {
      type: "json",
      title: "Brent Simmons’s Microblog",
      // JSON Feed descriptions are plain text: entities stay as written.
      description: "A sample JSON Feed 1.0 &amp; its items.",
      siteUrl: "https://example.org/",
      photo: "https://example.org/icon.png",
      author: "Brent Simmons",
      language: null,
    });
    assert.deepEqual(
      items.map((item) => [item.uid, item.title, item.published?.toISOString()]),
      [
        ["2347260", "Newer post", "2017-05-18T10:00:00.000Z"],
        ["2347259", "Older post", "2017-05-17T15:02:12.000Z"],
      ],
    );
  });

  it("resolves relative URLs, sanitises content_html and escapes content_text", async () => {
    const { items } = await parseFeed(fixture("json-feed-1.0.json").toString("utf8"), {
      url: "https://example.org/feed.json",
    });
    const [newer, older] = items;
    assert.equal(newer.url, "https://example.org/2017/05/18/newer.html");
    assert.equal(
      newer.content,
      '<p>Hello <a href="https://example.org/2017/05/18/relative/link" rel="noopener noreferrer">link</a></p><img src="https://example.org/img/photo.jpg" />',
    );
    assert.equal(newer.summary, "A short summary");
    assert.equal(newer.photo, "https://example.org/img/photo.jpg");
    assert.deepEqual(newer.categories, ["json", "feeds"]);
    assert.equal(newer.author, "Brent Simmons", "items inherit the feed author");
    assert.equal(older.content, "<p>First paragraph.</p><p>Second &lt;paragraph&gt; &amp; more.</p>");
    assert.equal(older.summary, "First paragraph. Second <paragraph> & more.");
  });
});

describe("JSON Feed 1.1", () => {
  it("reads authors, language, images and falls back to external_url", async () => {
    const { feed, items } = await parseFeed(fixture("json-feed-1.1.json").toString("utf8"), {
      url: "https://blog.example.net/feed.json",
    });
    assert.equal(feed.title, "A JSON Feed 1.1");
    assert.equal(feed.language, "en-GB");
    assert.equal(feed.author, "Jane Doe", "first author with a name");
    assert.equal(feed.photo, "https://blog.example.net/favicon.ico");
    assert.equal(items.length, 3);

    const linked = items[0];
    assert.equal(linked.title, "Linked post");
    assert.equal(linked.url, "https://blog.example.net/posts/2");
    assert.equal(linked.author, "John Roe");
    assert.equal(linked.photo, "https://blog.example.net/images/2.jpg");
    assert.equal(linked.published?.toISOString(), "2021-03-04T04:06:07.000Z");

    // Undated items keep feed order after dated ones; 30 February is not a date.
    assert.deepEqual(
      items.slice(1).map((item) => [item.uid, item.published]),
      [
        ["https://blog.example.net/notes/1", null],
        ["https://blog.example.net/posts/3", null],
      ],
    );
    assert.equal(items[1].title, null);
    assert.equal(items[2].url, "https://elsewhere.example.com/other");
  });

  it("rejects JSON that is not a JSON Feed", async () => {
    await assert.rejects(
      parseFeed(JSON.stringify({ version: "https://example.com/version/1", items: [] }), {
        url: "https://example.com/",
      }),
      (error: unknown) => error instanceof FeedParseError && /JSON Feed/.test(error.message),
    );
  });
});
