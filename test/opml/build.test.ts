import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SaxesParser } from "saxes";
import { buildOpml, type BuildOpmlInput, type OpmlExportFeed } from "../../lib/opml/build.js";
import { parseOpml, type OpmlFeed } from "../../lib/opml/parse.js";

interface Element {
  name: string;
  depth: number;
  attributes: Record<string, string>;
  text: string;
}

/** Every element of a document with its depth, read by a strict XML parser (throws if not well-formed). */
function elements(xml: string): Element[] {
  const parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  const found: Element[] = [];
  const open: Element[] = [];
  parser.on("error", (error) => {
    throw error;
  });
  parser.on("opentag", (tag) => {
    const element = { name: tag.name, depth: open.length, attributes: { ...tag.attributes }, text: "" };
    found.push(element);
    open.push(element);
  });
  parser.on("text", (text) => {
    const top = open.at(-1);
    if (top) top.text += text;
  });
  parser.on("closetag", () => open.pop());
  parser.write(xml).close();
  return found;
}

/** Only characters XML 1.0 can carry. */
function xmlChars(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}

/** What XML 1.0 can carry and the parser's whitespace folding: the documented loss of a round trip. */
function expectedText(value: string): string {
  return xmlChars(value).replace(/\s+/g, " ").trim();
}

const HOSTILE = `<script>alert("x")</script> & &amp; &nbsp; &#0; &#x41; &#65; 'q' "dq" ]]> \u0000\u0001\u0008\u000B\u001F\uFFFE\uFFFF\uD800 tab\there\r\nnew line é 😀`;

describe("buildOpml", () => {
  it("writes OPML 2.0 with head, folders per category and top-level uncategorised feeds", () => {
    const created = new Date("2025-11-03T10:00:00Z");
    const xml = buildOpml({
      title: "Blogroll",
      dateCreated: created,
      dateModified: new Date("2025-11-04T11:30:00Z"),
      ownerName: "Ada",
      ownerId: "https://ada.example/",
      groups: [
        {
          category: "Tech",
          feeds: [
            {
              title: "One",
              xmlUrl: "https://one.example/feed",
              htmlUrl: "https://one.example/",
              description: "First",
              type: "atom",
            },
          ],
        },
        { category: null, feeds: [{ title: "Two", xmlUrl: "https://two.example/feed" }] },
      ],
    });
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<opml version="2.0">\n {2}<head>/);
    const all = elements(xml);
    assert.deepEqual(
      all.map((e) => [e.name, e.depth]),
      [
        ["opml", 0],
        ["head", 1],
        ["title", 2],
        ["dateCreated", 2],
        ["dateModified", 2],
        ["ownerName", 2],
        ["ownerId", 2],
        ["docs", 2],
        ["body", 1],
        ["outline", 2],
        ["outline", 3],
        ["outline", 2],
      ],
    );
    assert.equal(all[0].attributes.version, "2.0");
    assert.equal(all[2].text, "Blogroll");
    assert.equal(all[3].text, "Mon, 03 Nov 2025 10:00:00 GMT");
    assert.equal(all[4].text, "Tue, 04 Nov 2025 11:30:00 GMT");
    assert.equal(all[5].text, "Ada");
    assert.equal(all[6].text, "https://ada.example/");
    assert.equal(all[7].text, "http://opml.org/spec2.opml");
    assert.deepEqual(all[9].attributes, { text: "Tech", title: "Tech" });
    assert.deepEqual(all[10].attributes, {
      type: "atom",
      text: "One",
      title: "One",
      xmlUrl: "https://one.example/feed",
      htmlUrl: "https://one.example/",
      description: "First",
    });
    assert.deepEqual(all[11].attributes, {
      type: "rss",
      text: "Two",
      title: "Two",
      xmlUrl: "https://two.example/feed",
    });
  });

  it("leaves out the dates and the owner when not given", () => {
    const names = elements(buildOpml({ title: "T", groups: [] })).map((e) => e.name);
    assert.deepEqual(names, ["opml", "head", "title", "docs", "body"]);
  });

  it("escapes markup and strips characters XML 1.0 forbids, staying well-formed", () => {
    const xml = buildOpml({
      title: HOSTILE,
      ownerName: HOSTILE,
      groups: [
        {
          category: HOSTILE,
          feeds: [
            {
              title: HOSTILE,
              xmlUrl: "https://e.example/f?a=1&b=2",
              description: HOSTILE,
              htmlUrl: "https://e.example/",
            },
          ],
        },
      ],
    });
    assert.doesNotMatch(xml, /<script>/);
    assert.doesNotMatch(xml, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
    const all = elements(xml);
    const feedOutline = all.find((e) => e.attributes.xmlUrl !== undefined);
    assert.equal(feedOutline?.attributes.xmlUrl, "https://e.example/f?a=1&b=2");
    // Attribute values carry tabs and line breaks as spaces.
    assert.equal(
      feedOutline?.attributes.title,
      xmlChars(HOSTILE)
        .replace(/[\t\r\n]/g, " ")
        .trim(),
    );
    // Element text keeps tabs and line breaks (an XML parser reads CR LF as LF).
    assert.equal(all.find((e) => e.name === "title")?.text, xmlChars(HOSTILE).replace(/\r\n?/g, "\n"));
  });

  it("falls back to the feed URL for a blank title and to top level for a blank category", () => {
    const all = elements(
      buildOpml({
        title: "T",
        groups: [{ category: "  ", feeds: [{ title: " \u0001 ", xmlUrl: "https://blank.example/" }] }],
      }),
    );
    const outlines = all.filter((e) => e.name === "outline");
    assert.equal(outlines.length, 1);
    assert.equal(outlines[0].depth, 2);
    assert.equal(outlines[0].attributes.text, "https://blank.example/");
  });
});

describe("OPML round trip: buildOpml → parseOpml", () => {
  it("returns the same feeds and categories, hostile characters included", () => {
    const input: BuildOpmlInput = {
      title: `Blogroll ${HOSTILE}`,
      dateCreated: new Date("2024-02-29T23:59:59Z"),
      groups: [
        {
          category: `Tech & <Stuff>, "a/b"`,
          feeds: [
            {
              title: HOSTILE,
              xmlUrl: "https://hostile.example/feed?a=1&b=%3Cx%3E",
              htmlUrl: "https://hostile.example/?q=%22",
              description: HOSTILE,
              type: "atom",
            },
            { title: "Plain", xmlUrl: "https://plain.example/rss.xml", htmlUrl: null, description: null },
          ],
        },
        {
          category: null,
          feeds: [
            { title: "Top", xmlUrl: "http://top.example/index.json", type: "json", description: "Top-level feed" },
          ],
        },
      ],
    };
    const parsed = parseOpml(buildOpml(input));
    assert.equal(parsed.title, expectedText(input.title));
    assert.equal(parsed.dateCreated, "Thu, 29 Feb 2024 23:59:59 GMT");
    assert.deepEqual(parsed.skipped, []);
    assert.deepEqual(parsed.feeds, [
      {
        xmlUrl: "https://hostile.example/feed?a=1&b=%3Cx%3E",
        title: expectedText(HOSTILE),
        htmlUrl: "https://hostile.example/?q=%22",
        description: expectedText(HOSTILE),
        type: "atom",
        category: `Tech & <Stuff>, "a/b"`,
      },
      {
        xmlUrl: "https://plain.example/rss.xml",
        title: "Plain",
        htmlUrl: null,
        description: null,
        type: "rss",
        category: `Tech & <Stuff>, "a/b"`,
      },
      {
        xmlUrl: "http://top.example/index.json",
        title: "Top",
        htmlUrl: null,
        description: "Top-level feed",
        type: "json",
        category: null,
      },
    ]);
  });

  it("holds for arbitrary strings as titles, descriptions and categories", () => {
    const hostileUnit = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
      fc.constantFrom(
        "<",
        ">",
        "&",
        '"',
        "'",
        "\n",
        "\r",
        "\t",
        " ",
        "\u0000",
        "\u001B",
        "\uD800",
        "\uDFFF",
        "\uFFFE",
        "]]>",
        "&amp;",
        "\u00A0",
      ),
    );
    const text = fc.string({ unit: hostileUnit, maxLength: 30 });
    const feedArb = fc.record({
      title: text,
      description: fc.option(text),
      type: fc.constantFrom(null, "rss", "atom", "json"),
    });
    const groupsArb = fc.array(fc.record({ category: fc.option(text), feeds: fc.array(feedArb, { maxLength: 4 }) }), {
      maxLength: 5,
    });

    fc.assert(
      fc.property(text, groupsArb, (title, rawGroups) => {
        let n = 0;
        const groups = rawGroups.map((group) => ({
          category: group.category,
          feeds: group.feeds.map((f): OpmlExportFeed => ({ ...f, xmlUrl: `https://site${n++}.example/feed` })),
        }));
        const parsed = parseOpml(buildOpml({ title, groups }));
        const expected: OpmlFeed[] = groups.flatMap((group) =>
          group.feeds.map((f) => ({
            xmlUrl: f.xmlUrl,
            title: expectedText(f.title) || f.xmlUrl,
            htmlUrl: null,
            description: expectedText(f.description ?? "") || null,
            type: f.type ?? "rss",
            category: expectedText(group.category ?? "") || null,
          })),
        );
        assert.equal(parsed.title, expectedText(title) || null);
        assert.deepEqual(parsed.feeds, expected);
      }),
      { numRuns: 300 },
    );
  });
});
