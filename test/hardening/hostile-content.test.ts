/**
 * Issue 17: content that made parsing grow with the square of its size —
 * deep nesting (htmlparser2's element stack, parse5 and the microformats
 * parser), "&" without ";" (the entity decoder) — gives bounded work and
 * the same text. These tests check the bounds and the outcomes, never the
 * time taken: latency while such content is processed is measured by
 * bench/hardening-hostile-content.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Parser } from "htmlparser2";
import { parse as parse5 } from "parse5";
import { FeedParseError } from "../../lib/feeds/errors.js";
import { readHFeed } from "../../lib/feeds/h-feed.js";
import { boundHtmlNesting, boundXmlNesting, MAX_HTML_DEPTH } from "../../lib/feeds/nesting.js";
import { parseFeed } from "../../lib/feeds/parse.js";
import { sanitizeHtml } from "../../lib/feeds/sanitize.js";
import { htmlToText } from "../../lib/feeds/text.js";
import { decodeReferences } from "../../lib/feeds/xml/entities.js";
import { readDiscoveryPage } from "../../lib/discovery/read-page.js";

/** Deepest element stack htmlparser2 builds for `html` (it reports every open and close, implied ones too). */
function htmlparser2Depth(html: string, xmlMode = false): number {
  let depth = 0;
  let deepest = 0;
  new Parser(
    {
      onopentagname() {
        deepest = Math.max(deepest, ++depth);
      },
      onclosetag() {
        depth--;
      },
    },
    { xmlMode },
  ).end(html);
  return deepest;
}

/** Deepest element in the tree parse5 (the microformats parser's HTML parser) builds for `html`. */
function parse5Depth(html: string): number {
  type Node = { childNodes?: Node[] };
  let deepest = 0;
  const pending: Array<[Node, number]> = [[parse5(html) as Node, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    deepest = Math.max(deepest, depth);
    for (const child of node.childNodes ?? []) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Nesting shapes, each repeated: plain nesting, and ones where parsers
 * disagree (implied end tags, misnested end tags, comments and raw text
 * that one tokenizer ends where another does not, foreign content).
 */
const SHAPES: Record<string, string> = {
  "nested div": "<div>",
  "rows and cells without tbody": "<table><td><table><tr>",
  "unclosed p then div": "<p><div></p>",
  "formatting then block": "<b x=1><p>t",
  "p, formatting, block": "<p><b x=1><div>t",
  "nested anchors": "<a href=x>t",
  "table cells": "<table><tr><td>",
  "list items in lists": "<ul><li>",
  "short comment": "<!--><div>",
  "self-closing div": "<div/>",
  "misnested end tags": "<div><span></div><i>",
};

/** Shapes htmlparser2 reads from their first occurrence on as one unclosed comment or title: no text remains for it. */
const SWALLOWING_SHAPES: Record<string, string> = {
  "cdata in html": "<![CDATA[><div>",
  "svg title": "<svg><title><div>",
};

describe("boundHtmlNesting", () => {
  for (const [name, shape] of [...Object.entries(SHAPES), ...Object.entries(SWALLOWING_SHAPES)]) {
    it(`${name}: neither htmlparser2 nor parse5 nests deeper than the bound`, () => {
      const hostile = `<body>${shape.repeat(5000)}text`;
      const bounded = boundHtmlNesting(hostile);
      // +1: a void element (or the empty <p> of a stray </p>) opens and closes one level below the deepest.
      assert.ok(htmlparser2Depth(bounded) <= MAX_HTML_DEPTH + 1, `htmlparser2 depth ${htmlparser2Depth(bounded)}`);
      // parse5 adds html and body, and may re-open a few formatting elements.
      assert.ok(parse5Depth(bounded) <= MAX_HTML_DEPTH + 8, `parse5 depth ${parse5Depth(bounded)}`);
      if (name in SHAPES) assert.ok(htmlToText(bounded).endsWith("text"), "the text is kept");
    });
  }

  it("leaves ordinary markup as it reads, closing optional end tags explicitly", () => {
    assert.equal(boundHtmlNesting("<p>a<div>b</div>"), "<p>a</p><div>b</div>");
    assert.equal(boundHtmlNesting("<ul><li>a<li>b</ul>"), "<ul><li>a</li><li>b</li></ul>");
    assert.equal(
      boundHtmlNesting(`<a href='x' title="y" data-z=w checked>t</a><br/><img src=x>`),
      `<a href='x' title="y" data-z=w checked>t</a><br/><img src=x>`,
    );
    assert.equal(
      boundHtmlNesting("<title>a<b</title><script>if (a<b) x()</script>1 < 2 &amp; 3"),
      "<title>a&lt;b</title><script></script>1 &lt; 2 &amp; 3",
    );
  });

  it("drops tags below the bound and keeps their text", () => {
    assert.equal(
      boundHtmlNesting(`${"<div>".repeat(5)}x${"</div>".repeat(5)}y`, 3),
      "<div><div><div>x</div></div></div>y",
    );
  });
});

describe("boundXmlNesting", () => {
  it("bounds the depth htmlparser2's XML mode reaches, keeping text and CDATA", () => {
    const bounded = boundXmlNesting(`<a><b/><c x='1'><![CDATA[<i>]]>t<d><e>deep</e></d></c></a><!-- c -->`, 3);
    assert.equal(bounded, "<a><b/><c x='1'><![CDATA[<i>]]>t<d>deep</d></c></a>");
    assert.ok(htmlparser2Depth(boundXmlNesting("<x>".repeat(100_000), 128), true) <= 128);
  });
});

describe("parsers on deeply nested content", () => {
  it("the sanitiser nests at most MAX_HTML_DEPTH elements and keeps the text", () => {
    const clean = sanitizeHtml(`${"<div>".repeat(100_000)}deep text`);
    assert.ok(htmlparser2Depth(clean) <= MAX_HTML_DEPTH, `depth ${htmlparser2Depth(clean)}`);
    assert.ok(clean.includes("deep text"));
  });

  it("plain text (summaries) of deeply nested content is its text", () => {
    assert.equal(htmlToText(`${"<div>".repeat(100_000)}deep text`), "deep text");
  });

  it("an h-feed page nesting 50 000 elements still gives its entries", () => {
    const entry = (n: number) =>
      `<article class="h-entry"><a class="u-url p-name" href="/${n}">Post ${n}</a></article>`;
    const raw = readHFeed(
      `<div class="h-feed">${entry(1)}${entry(2)}${"<div>".repeat(50_000)}</div>`,
      "https://example.org/",
    );
    assert.deepEqual(
      raw.entries.map((entry) => entry.link),
      ["https://example.org/1", "https://example.org/2"],
    );
  });

  it("a feed nesting 200 000 XML elements in an item parses, its text kept", async () => {
    const body = `<rss version="2.0"><channel><title>T</title><item><guid>g</guid><title>${"<x>".repeat(200_000)}Deep title${"</x>".repeat(200_000)}</title></item></channel></rss>`;
    const parsed = await parseFeed(body, { url: "https://example.org/feed" });
    assert.equal(parsed.items[0].title, "Deep title");
  });

  it("a discovery page nesting 1 000 000 elements gives its head", () => {
    const page = `<html><head><title>Deep</title><link rel="alternate" type="application/rss+xml" href="/feed"></head><body>${"<div>".repeat(1_000_000)}</body></html>`;
    const reading = readDiscoveryPage(page, "https://example.org/");
    assert.equal(reading.head.title, "Deep");
    assert.deepEqual(
      reading.head.links.map((link) => link.href),
      ["https://example.org/feed"],
    );
    assert.equal(reading.hfeed, null);
  });

  it("any parse failure on hostile nesting is a FeedParseError", async () => {
    for (const body of [
      `<html><body>${"<div>".repeat(100_000)}`,
      `<feed xmlns="http://www.w3.org/2005/Atom">${"<entry>".repeat(100_000)}`,
    ]) {
      await parseFeed(body, { url: "https://example.org/" }).catch((error: unknown) =>
        assert.ok(error instanceof FeedParseError, String(error)),
      );
    }
  });
});

describe("the XML entity decoder on text full of '&'", () => {
  it("leaves 1.2 MB of '&' before one ';' as written, examining a bounded window after each '&'", () => {
    const text = `${"&".repeat(1_200_000)};`;
    // Counts the characters String#indexOf runs over: the old decoder searched to the end for ";" after every "&".
    const indexOf = String.prototype.indexOf;
    let scanned = 0;
    String.prototype.indexOf = function (this: string, search: string, from = 0) {
      const found = indexOf.call(this, search, from);
      scanned += (found === -1 ? this.length : found) - from;
      return found;
    };
    let decoded: string;
    try {
      decoded = decodeReferences(text);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.equal(decoded, text);
    assert.ok(scanned <= 4 * text.length, `indexOf ran over ${scanned} characters for ${text.length}`);
  });
});
