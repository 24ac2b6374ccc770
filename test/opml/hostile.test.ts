import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { OpmlParseError, parseOpml } from "../../lib/opml/parse.js";
import { fixture } from "./fixture.js";

/** Assert `parseOpml(text)` throws an OpmlParseError whose message matches `pattern`. */
function assertRejected(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseOpml(text),
    (error: unknown) => {
      assert.ok(error instanceof OpmlParseError, `expected OpmlParseError, got ${String(error)}`);
      assert.equal(error.name, "OpmlParseError");
      assert.match(error.message, pattern);
      return true;
    },
  );
}

describe("parseOpml: hostile documents", () => {
  it("refuses billion laughs (nested entity declarations)", () => {
    assertRejected(fixture("billion-laughs.opml"), /DTD\/entities are not allowed/);
  });

  it("refuses quadratic blowup (one big entity referenced many times)", () => {
    const big = "a".repeat(50_000);
    const refs = "&big;".repeat(50_000);
    const text = `<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY big "${big}">]><opml><head><title>${refs}</title></head><body/></opml>`;
    assertRejected(text, /DTD\/entities are not allowed/);
  });

  it("refuses an external entity (XXE) and an external parameter entity", () => {
    assertRejected(fixture("external-entity.opml"), /DTD\/entities are not allowed/);
    assertRejected(fixture("parameter-entity.opml"), /DTD\/entities are not allowed/);
  });

  it("never resolves an entity that has no declaration", () => {
    assertRejected(
      `<opml><body><outline text="&nbsp;" xmlUrl="https://a.example/"/></body></opml>`,
      /undefined entity/,
    );
  });

  it("turns 10 000 levels of nesting into an error, not a crash", () => {
    const depth = 10_000;
    const text = `<opml><body>${"<outline text='x'>".repeat(depth)}${"</outline>".repeat(depth)}</body></opml>`;
    assertRejected(text, /deeper than 1000 levels/);
  });

  it("reports truncated XML with its line", () => {
    assertRejected(fixture("truncated.opml"), /^Malformed XML at line 8: unclosed tag/);
  });

  it("reports the line of a mismatched closing tag", () => {
    assertRejected(`<opml>\n<body>\n<outline text="a">\n</body>\n</opml>`, /^Malformed XML at line 4: /);
  });

  it("refuses an empty or blank document", () => {
    assertRejected("", /empty/);
    assertRejected(" \n\t ", /empty/);
  });

  it("refuses XML that is not OPML, and OPML without a body", () => {
    assertRejected(fixture("not-opml.xml"), /root element is <rss>/);
    assertRejected(fixture("no-body.opml"), /no <body>/);
    assertRejected(`<?xml version="1.0"?><!-- only a comment -->`, /Malformed XML|no root element/);
  });

  it("refuses text that is not XML at all", () => {
    assertRejected(`{"feeds": ["https://a.example/"]}`, /Malformed XML at line 1/);
  });
});
