import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseOpml } from "../../lib/opml/parse.js";
import { describeOpmlProblem, isBinaryText, opmlProblemOf, type OpmlProblem } from "../../lib/opml/problem.js";

/** What parseOpml says about `text`, classified. */
function problemOf(text: string): OpmlProblem {
  try {
    parseOpml(text);
  } catch (error) {
    return opmlProblemOf(text, (error as Error).message);
  }
  throw new Error("parsed");
}

const GOOD =
  '<?xml version="1.0"?>\n<opml version="2.0"><head/><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>';

describe("OPML problems in terms of what was given", () => {
  it("a document followed by more text: where the extra text starts (the parser said 'text data outside of root node')", () => {
    const problem = problemOf(`${GOOD}\nthanks!`);
    assert.deepEqual(problem, { kind: "after-end", line: 3 });
    assert.equal(describeOpmlProblem(problem), "Text follows the end of the OPML document, at line 3");
  });

  it("addresses pasted instead of a document, JSON, prose, a web page", () => {
    assert.deepEqual(problemOf("https://a.example/feed\nhttps://b.example/feed\n"), { kind: "address" });
    assert.deepEqual(problemOf("  https://example.org/blogroll.opml"), { kind: "address" });
    assert.deepEqual(problemOf('{"feeds": []}'), { kind: "not-xml" });
    assert.deepEqual(problemOf("My favourite blogs: a.example, b.example"), { kind: "not-xml" });
    assert.deepEqual(problemOf("<!DOCTYPE html>\n<html><body><p>hi</p></body></html>"), { kind: "web-page" });
    assert.deepEqual(problemOf("<html><body>no</body></html>"), { kind: "web-page" });
  });

  it("broken XML: the line and the parser's word for it", () => {
    const problem = problemOf(
      '<?xml version="1.0"?>\n<opml version="2.0">\n<body>\n<outline xmlUrl="https://a.example/f">\n</body></opml>',
    );
    assert.deepEqual(problem, { kind: "malformed", line: 5, detail: "unexpected close tag" });
    assert.equal(describeOpmlProblem(problem), "The OPML document is broken at line 5 (unexpected close tag)");
  });

  it("a file that is not text at all, whatever its first bytes", () => {
    for (const text of [
      "%PDF-1.7\n%âãÏÓ\n1 0 obj\n\u0000\u0001",
      "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR",
      "PK\u0003\u0004\u0014\u0000",
    ]) {
      assert.equal(isBinaryText(text), true, JSON.stringify(text));
      assert.deepEqual(problemOf(text), { kind: "binary" });
    }
    assert.equal(isBinaryText(`${GOOD}\r\n\t`), false, "tab, CR and LF are text");
    assert.equal(isBinaryText("Zażółć gęślą jaźń, 你好, emoji 🙂"), false);
  });

  it("the parser's own plain messages pass through, said once", () => {
    assert.equal(describeOpmlProblem(problemOf("<p>hello</p>")), "Not an OPML document: the root element is <p>");
    assert.equal(describeOpmlProblem(problemOf("   ")), "Not a valid OPML document: OPML document is empty");
    assert.equal(describeOpmlProblem(problemOf("<opml><head/></opml>")), "Not an OPML document: <opml> has no <body>");
  });
});
