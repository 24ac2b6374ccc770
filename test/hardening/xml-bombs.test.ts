/**
 * XML and encoding attacks on the feed and OPML parsers: entity expansion,
 * external entities and DTDs, deep nesting, invalid and mixed encodings.
 * Each is refused with the parser's own error or read without expanding
 * anything: output never grows beyond the input, nothing is fetched or read
 * from disk. (Oversized bodies are cut off before parsing: sync-remote-faults.)
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseFeed } from "../../lib/feeds/parse.js";
import { FeedParseError } from "../../lib/feeds/errors.js";
import type { ParsedFeed } from "../../lib/feeds/types.js";
import { OpmlParseError, parseOpml } from "../../lib/opml/parse.js";

const URL_ = "https://blog.example.com/feed.xml";

/** A canary server: any request to it means a parser fetched something it must not. */
let canary: Server;
let canaryUrl: string;
let canaryHits = 0;
before(async () => {
  canary = createServer((_request, response) => {
    canaryHits++;
    response.end('<!ENTITY leak "LEAKED">');
  });
  await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
  canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/evil.dtd`;
});
after(() => new Promise<void>((resolve) => canary.close(() => resolve())));

/** Parses, returning the feed or the FeedParseError; anything else fails the test. */
async function parseOrRefuse(
  body: string | Uint8Array,
  contentType: string | null = null,
): Promise<ParsedFeed | FeedParseError> {
  try {
    return await parseFeed(body, { url: URL_, contentType });
  } catch (error) {
    assert.ok(
      error instanceof FeedParseError,
      `expected FeedParseError, got ${(error as Error).name}: ${(error as Error).message}`,
    );
    assert.ok(error.message.length > 0 && error.message.length < 500, "a short, clear message");
    return error;
  }
}

/** Total text the parser produced: bounded by the input when nothing is expanded. */
function producedLength(result: ParsedFeed | FeedParseError): number {
  if (result instanceof FeedParseError) return 0;
  return JSON.stringify(result).length;
}

const rss = (doctype: string, title: string, extra = "") =>
  `<?xml version="1.0"?>${doctype}<rss version="2.0"><channel><title>${title}</title><link>https://blog.example.com/</link>` +
  `<item><title>${title}</title><guid>g1</guid><description>${title}</description>${extra}</item></channel></rss>`;
const atom = (doctype: string, title: string) =>
  `<?xml version="1.0"?>${doctype}<feed xmlns="http://www.w3.org/2005/Atom"><title>${title}</title><id>urn:x</id>` +
  `<entry><id>urn:e</id><title>${title}</title><content type="html">${title}</content></entry></feed>`;

const billionLaughs =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`).join("") +
  "]>";
const quadratic = `<!DOCTYPE q [<!ENTITY big "${"x".repeat(100_000)}">]>`;
const xxe = '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';

describe("feed parser: entity attacks", () => {
  for (const [format, build] of [
    ["RSS", rss],
    ["Atom", atom],
  ] as const) {
    it(`${format}: billion laughs is not expanded`, async () => {
      const body = build(billionLaughs, "&lol9;");
      const result = await parseOrRefuse(body);
      assert.ok(producedLength(result) < body.length * 3, "no exponential growth");
      assert.doesNotMatch(JSON.stringify(result), /(lol){20}/);
    });

    it(`${format}: quadratic blowup is not expanded`, async () => {
      const body = build(quadratic, "&big;".repeat(2000));
      const result = await parseOrRefuse(body);
      assert.ok(producedLength(result) < body.length * 3, "no quadratic growth");
    });

    it(`${format}: an external entity is never read`, async () => {
      const result = await parseOrRefuse(build(xxe, "&xxe;"));
      assert.doesNotMatch(JSON.stringify(result), /root:|\/bin\/(ba)?sh/);
    });

    it(`${format}: external DTDs and parameter entities are never fetched`, async () => {
      const before = canaryHits;
      await parseOrRefuse(build(`<!DOCTYPE r SYSTEM "${canaryUrl}">`, "&leak;"));
      await parseOrRefuse(build(`<!DOCTYPE r [<!ENTITY % p SYSTEM "${canaryUrl}"> %p;]>`, "&leak;"));
      const result = await parseOrRefuse(build(`<!DOCTYPE r [<!ENTITY e SYSTEM "${canaryUrl}">]>`, "&e;"));
      assert.equal(canaryHits, before);
      assert.doesNotMatch(JSON.stringify(result), /LEAKED/);
    });
  }
});

describe("feed parser: deep nesting (10 000 levels)", () => {
  const depth = 10_000;
  const cases: Array<[string, string]> = [
    ["XML elements inside an item", rss("", "deep", `${"<x>".repeat(depth)}${"</x>".repeat(depth)}`)],
    [
      "HTML inside an item's content",
      rss(
        "",
        "deep",
        `<content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/"><![CDATA[${"<div>".repeat(depth)}hi${"</div>".repeat(depth)}]]></content:encoded>`,
      ),
    ],
    [
      "JSON arrays in a JSON Feed",
      `{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[{"id":"1","content_text":"x","_deep":${"[".repeat(depth)}${"]".repeat(depth)}}]}`,
    ],
    [
      "HTML around an h-feed",
      `<html><body><div class="h-feed">${"<div>".repeat(depth)}<div class="h-entry"><a class="u-url" href="/a">a</a></div>${"</div>".repeat(depth)}</div></body></html>`,
    ],
    ["unclosed elements", `<?xml version="1.0"?><rss version="2.0"><channel>${"<item>".repeat(depth)}`],
  ];
  for (const [name, body] of cases) {
    it(`${name}: parsed or refused with FeedParseError`, async () => {
      const result = await parseOrRefuse(body);
      assert.ok(producedLength(result) < body.length * 3);
    });
  }
});

describe("feed parser: encodings", () => {
  const head = (encoding: string) =>
    `<?xml version="1.0" encoding="${encoding}"?><rss version="2.0"><channel><title>t</title><link>https://blog.example.com/</link><item><guid>g</guid><title>`;
  const tail = "</title></item></channel></rss>";

  /** The first item's title, from a feed that must be read, not refused. */
  async function titleOf(body: string | Uint8Array, contentType: string | null = null): Promise<string | null> {
    const result = await parseOrRefuse(body, contentType);
    assert.ok(
      !(result instanceof FeedParseError),
      `refused: ${result instanceof FeedParseError ? result.message : ""}`,
    );
    return result.items[0].title;
  }

  it("invalid UTF-8 becomes replacement characters, one per bad sequence (WHATWG), the valid bytes kept", async () => {
    const bytes = Buffer.concat([
      Buffer.from(head("utf-8")),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xed, 0xa0, 0x80]),
      Buffer.from(tail),
    ]);
    const R = "\uFFFD";
    assert.equal(
      await titleOf(new Uint8Array(bytes), "application/rss+xml; charset=utf-8"),
      `${R.repeat(3)}(${R.repeat(3)}(${R.repeat(2)}(${R.repeat(5)}`,
    );
  });

  it("mixed encodings (UTF-8 bytes in a Latin-1 document) read as the declared Latin-1, byte for byte", async () => {
    const bytes = Buffer.concat([
      Buffer.from(head("iso-8859-1")),
      Buffer.from("café ", "latin1"),
      Buffer.from("café", "utf8"),
      Buffer.from(tail),
    ]);
    assert.equal(await titleOf(new Uint8Array(bytes)), "café caf\u00C3\u00A9");
  });

  it("a declaration that lies (UTF-16 declared, UTF-8 sent) and unknown charsets read the UTF-8 text intact", async () => {
    for (const [encoding, contentType] of [
      ["utf-16", null],
      ["x-no-such-charset", "text/xml; charset=x-no-such-charset"],
      ["utf-8", "text/xml; charset=utf-32"],
    ] as const) {
      // ASCII only, and with characters beyond it: each takes a different path through the decoder.
      for (const title of ["hello", "héllo € 😀"]) {
        assert.equal(
          await titleOf(new Uint8Array(Buffer.from(`${head(encoding)}${title}${tail}`)), contentType),
          title,
          `${encoding} / ${contentType}`,
        );
      }
    }
  });

  it("NUL bytes and U+FFFF inside text are dropped; a lone surrogate reads as U+FFFD, whether the body comes as text or as bytes", async () => {
    const text = `${head("utf-8")}a\u0000b\uD800c\uFFFFd\uDC00e 😀${tail}`;
    assert.equal(await titleOf(text), "ab\uFFFDcd\uFFFDe 😀");
    assert.equal(await titleOf(new Uint8Array(Buffer.from(text))), "ab\uFFFDcd\uFFFDe 😀");
  });
});

describe("OPML parser: entity attacks and nesting", () => {
  const opml = (doctype: string, text: string) =>
    `<?xml version="1.0"?>${doctype}<opml version="2.0"><head><title>${text}</title></head><body>` +
    `<outline text="${text}" xmlUrl="https://a.example/feed.xml"/></body></opml>`;

  for (const [name, doctype, text] of [
    ["billion laughs", billionLaughs, "&lol9;"],
    ["quadratic blowup", quadratic, "&big;".repeat(2000)],
    ["an external entity", xxe, "&xxe;"],
  ] as const) {
    it(`${name} is refused with OpmlParseError`, () => {
      assert.throws(() => parseOpml(opml(doctype, text)), OpmlParseError);
    });
  }

  it("external DTDs are never fetched", () => {
    const before = canaryHits;
    for (const doctype of [
      `<!DOCTYPE opml SYSTEM "${canaryUrl}">`,
      `<!DOCTYPE opml [<!ENTITY % p SYSTEM "${canaryUrl}"> %p;]>`,
    ]) {
      try {
        const result = parseOpml(opml(doctype, "plain"));
        assert.doesNotMatch(JSON.stringify(result), /LEAKED/);
      } catch (error) {
        assert.ok(error instanceof OpmlParseError);
      }
    }
    assert.equal(canaryHits, before);
  });

  it("10 000 nested folders are refused with OpmlParseError", () => {
    const depth = 10_000;
    const body = `<?xml version="1.0"?><opml version="2.0"><head/><body>${'<outline text="f">'.repeat(depth)}<outline xmlUrl="https://a.example/f"/>${"</outline>".repeat(depth)}</body></opml>`;
    assert.throws(() => parseOpml(body), OpmlParseError);
  });

  it("a document over 10 MB is refused before it is read", () => {
    const outline = '<outline text="x" xmlUrl="https://a.example/feed.xml"/>';
    const body = `<?xml version="1.0"?><opml version="2.0"><head/><body>${outline.repeat(Math.ceil((10.5 * 1024 * 1024) / outline.length))}</body></opml>`;
    assert.throws(
      () => parseOpml(body),
      (error: unknown) => error instanceof OpmlParseError && /large|size|bytes|MB/i.test(error.message),
    );
  });

  it("more than 20 000 outlines are refused", () => {
    const body = `<?xml version="1.0"?><opml version="2.0"><head/><body>${Array.from({ length: 20_001 }, (_, i) => `<outline xmlUrl="https://a${i}.example/f"/>`).join("")}</body></opml>`;
    assert.throws(() => parseOpml(body), OpmlParseError);
  });
});
