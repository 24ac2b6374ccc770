/**
 * Property-based tests of every parser of untrusted input, seeded with the
 * real-world corpora and mutations of them: each either answers or throws its
 * own typed error (never anything else), and what it answers is safe.
 * Longer runs of the same properties: bench/hardening-fuzz.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseFeed } from "../../lib/feeds/parse.js";
import { FeedParseError } from "../../lib/feeds/errors.js";
import { parseFeedDate } from "../../lib/feeds/dates.js";
import { sanitizeHtml } from "../../lib/feeds/sanitize.js";
import { SUMMARY_MAX_LENGTH } from "../../lib/feeds/text.js";
import type { ParsedFeed } from "../../lib/feeds/types.js";
import { OpmlParseError, parseOpml } from "../../lib/opml/parse.js";
import { parseHttpUrl } from "../../lib/url/http-url.js";
import { feedUrlKey } from "../../lib/url/normalise.js";
import { integerParam, optionalText, QueryError } from "../../lib/api/validate.js";
import {
  feedSeeds,
  hostileText,
  mutated,
  opmlSeeds,
  sanitizerPayloads,
  scriptVectors,
  ATTACK_SNIPPETS,
} from "./hostile-inputs.js";

/** Runs per property; bench/hardening-fuzz.ts runs many more. */
const RUNS = Number(process.env.HARDENING_RUNS ?? 150);
const BASE = "https://blog.example.com/feeds/main.xml";
const CONTENT_TYPES = [
  null,
  "application/rss+xml",
  "application/atom+xml; charset=iso-8859-1",
  "application/feed+json",
  "text/html; charset=utf-8",
  "text/plain",
];

const isHttpUrl = (value: string | null) => value === null || /^https?:\/\//.test(value);

/** What every successfully parsed feed must satisfy, whatever went in. */
export function assertSafeFeed(parsed: ParsedFeed): void {
  assert.ok(["rss", "atom", "json", "hfeed"].includes(parsed.feed.type));
  assert.ok(isHttpUrl(parsed.feed.siteUrl), `siteUrl ${parsed.feed.siteUrl}`);
  assert.ok(isHttpUrl(parsed.feed.photo), `photo ${parsed.feed.photo}`);
  assert.ok(parsed.items.length <= 50);
  for (const entry of parsed.items) {
    assert.equal(typeof entry.uid, "string");
    assert.ok(entry.uid.length > 0);
    assert.ok(isHttpUrl(entry.url), `url ${entry.url}`);
    assert.ok(isHttpUrl(entry.photo), `photo ${entry.photo}`);
    assert.ok(
      entry.summary === null || [...entry.summary].length <= SUMMARY_MAX_LENGTH + 1,
      "summary at most 300 characters",
    );
    if (entry.content !== null) assert.deepEqual(scriptVectors(entry.content), [], entry.content);
    assert.ok(
      entry.published === null || (entry.published instanceof Date && !Number.isNaN(entry.published.getTime())),
    );
    assert.ok(Array.isArray(entry.categories));
  }
}

describe("feed parsers (RSS, RDF, Atom, JSON Feed, h-feed) on hostile input", () => {
  const documents = feedSeeds();

  it("has seeds of every format", () => {
    assert.ok(documents.some((text) => /<rss/i.test(text)));
    assert.ok(documents.some((text) => /<feed/i.test(text)));
    assert.ok(documents.some((text) => /rdf:RDF/i.test(text)));
    assert.ok(documents.some((text) => /jsonfeed\.org/.test(text)));
    assert.ok(documents.some((text) => /h-feed|h-entry/.test(text)));
  });

  it(
    "either parses into a safe feed or throws FeedParseError",
    { timeout: 120_000 * Math.max(1, RUNS / 150) },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileText(documents),
          fc.constantFrom(...CONTENT_TYPES),
          fc.boolean(),
          async (text, contentType, asBytes) => {
            let parsed: ParsedFeed;
            try {
              parsed = await parseFeed(asBytes ? new TextEncoder().encode(text) : text, { url: BASE, contentType });
            } catch (error) {
              assert.ok(
                error instanceof FeedParseError,
                `threw ${(error as Error)?.name}: ${(error as Error)?.message}`,
              );
              return;
            }
            assertSafeFeed(parsed);
          },
        ),
        { numRuns: RUNS },
      );
    },
  );

  it("every DOMPurify payload inside a feed item comes out without script vectors", async () => {
    for (const { payload } of sanitizerPayloads()) {
      const escaped = payload.replace(/]]>/g, "]]]]><![CDATA[>");
      const feed =
        `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://blog.example.com/</link>` +
        `<item><title>x</title><guid>g</guid><description><![CDATA[${escaped}]]></description></item></channel></rss>`;
      const parsed = await parseFeed(feed, { url: BASE });
      assertSafeFeed(parsed);
      const json = JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "t",
        items: [{ id: "1", content_html: payload }],
      });
      assertSafeFeed(await parseFeed(json, { url: BASE }));
    }
  });
});

describe("sanitizeHtml on mutated payloads", () => {
  const payloads = sanitizerPayloads().map((entry) => entry.payload);

  it("never leaves script, event handlers, javascript:/data: URLs or styles, even sanitised twice", () => {
    fc.assert(
      fc.property(
        hostileText(payloads),
        fc.constantFrom(undefined, "https://blog.example.com/post/", "javascript:alert(1)//"),
        (html, base) => {
          const baseUrl = base && URL.canParse(base) ? base : undefined;
          const once = sanitizeHtml(html, baseUrl);
          assert.deepEqual(scriptVectors(once), [], once);
          // Re-reading the output (as a widget or a browser does) uncovers nothing either.
          assert.deepEqual(scriptVectors(sanitizeHtml(once, baseUrl)), []);
        },
      ),
      { numRuns: RUNS * 4 },
    );
  });
});

describe("parseOpml on hostile input", () => {
  it("either returns feeds with http(s) URLs or throws OpmlParseError", () => {
    fc.assert(
      fc.property(hostileText(opmlSeeds()), (text) => {
        let result;
        try {
          result = parseOpml(text);
        } catch (error) {
          assert.ok(error instanceof OpmlParseError, `threw ${(error as Error)?.name}: ${(error as Error)?.message}`);
          return;
        }
        assert.ok(result.feeds.length > 0, "an OPML without feeds is an error");
        for (const feed of result.feeds) {
          assert.match(feed.xmlUrl, /^https?:\/\//);
          assert.equal(typeof feed.title, "string");
          assert.ok(feed.htmlUrl === null || /^https?:\/\//.test(feed.htmlUrl));
        }
        // No entity was expanded: nothing grows beyond what was written.
        const written = result.feeds.reduce(
          (sum, feed) => sum + feed.xmlUrl.length + feed.title.length + (feed.description?.length ?? 0),
          0,
        );
        assert.ok(written <= text.length * 2 + 100);
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

describe("URL normaliser on arbitrary text", () => {
  const urlish = fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ unit: "binary", maxLength: 200 }),
    mutated([
      "https://Example.ORG:443/feed/?a=1#top",
      "http://[::1]:80/",
      "HTTP://xn--nxasmq6b.example/%zz",
      "javascript:alert(1)",
      "file:///etc/passwd",
    ]),
  );

  it("feedUrlKey never throws and always answers a string; parseHttpUrl answers only http(s) or null", () => {
    fc.assert(
      fc.property(urlish, (value) => {
        assert.equal(typeof feedUrlKey(value), "string");
        const url = parseHttpUrl(value);
        assert.ok(url === null || url.protocol === "http:" || url.protocol === "https:");
      }),
      { numRuns: RUNS * 4 },
    );
  });

  it("feedUrlKey folds scheme, host case, default port, fragment and a trailing slash", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true }), (value) => {
        const url = new URL(value);
        const twin = new URL(url.href);
        twin.protocol = url.protocol === "http:" ? "https:" : "http:";
        twin.hostname = url.hostname.toUpperCase();
        twin.hash = "#fragment";
        assert.equal(feedUrlKey(twin.href), feedUrlKey(url.href));
        if (!url.pathname.endsWith("/"))
          assert.equal(feedUrlKey(`${url.origin}${url.pathname}/${url.search}`), feedUrlKey(url.href));
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

describe("query validators on arbitrary values", () => {
  const value = fc.oneof(
    fc.anything({ withObjectString: true, withNullPrototype: true }),
    fc.string({ unit: "binary", maxLength: 2000 }),
    fc.stringMatching(/^\d{1,20}$/),
    fc.constantFrom(
      { $gt: "" },
      { $ne: null },
      ["a", "b"],
      { __proto__: { polluted: true } },
      "__proto__",
      "-1",
      "1e3",
      "0x10",
      " 5",
      "5 ",
    ),
  );

  it("optionalText answers undefined or a string of at most the limit, else QueryError", () => {
    fc.assert(
      fc.property(fc.constantFrom("category", "source", "__proto__", "constructor"), value, (name, given) => {
        const query = Object.create(null) as Record<string, unknown>;
        query[name] = given;
        try {
          const result = optionalText(query, name);
          assert.ok(result === undefined || (typeof result === "string" && result.length <= 1000 && result.length > 0));
        } catch (error) {
          assert.ok(error instanceof QueryError);
          assert.deepEqual(error.body, { error: `Invalid ${name}` });
        }
      }),
      { numRuns: RUNS * 4 },
    );
  });

  it("integerParam answers a non-negative safe integer within the maximum, else QueryError", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("limit", "offset") as fc.Arbitrary<"limit" | "offset">,
        value,
        fc.option(fc.nat(5000)),
        (name, given, max) => {
          try {
            const result = integerParam({ [name]: given }, name, 7, max ?? undefined);
            assert.ok(Number.isSafeInteger(result) && result >= 0);
            if (max !== null) assert.ok(result <= Math.max(max, 7));
            if (given !== undefined) assert.equal(typeof given, "string");
          } catch (error) {
            assert.ok(error instanceof QueryError);
          }
        },
      ),
      { numRuns: RUNS * 4 },
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("feed dates on arbitrary values", () => {
  it("parseFeedDate answers null or a valid date between 1970 and 9999, never throws", () => {
    const dateText = fc.oneof(
      fc
        .date({ noInvalidDate: false })
        .map((date) => (Number.isNaN(date.getTime()) ? "Invalid Date" : date.toUTCString())),
      fc.date({ noInvalidDate: true, min: new Date(0), max: new Date("9999-12-31") }).map((date) => date.toISOString()),
      mutated([
        "Tue, 31 Jun 2026 10:00:00 GMT",
        "2026-11-23T25:14:00Z",
        "9999-12-31T23:59:59Z",
        "Mon, 23 Nov 26 08:00:00 EST",
        "23 Nov 2026 08:00 Europe/Paris",
      ]),
      fc.anything(),
    );
    fc.assert(
      fc.property(dateText, (value) => {
        const date = parseFeedDate(value);
        assert.ok(
          date === null || (date instanceof Date && date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999),
        );
      }),
      { numRuns: RUNS * 4 },
    );
  });
});

describe("attack snippets", () => {
  it("are all exercised (the generators above draw from them)", () => {
    assert.ok(ATTACK_SNIPPETS.length > 20);
  });
});
