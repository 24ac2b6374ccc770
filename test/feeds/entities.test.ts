import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { decodeReferences } from "../../lib/feeds/xml/entities.js";

describe("decodeReferences", () => {
  it("decodes XML entities, numeric references and HTML named entities", () => {
    assert.equal(decodeReferences("&lt;p&gt;a &amp; b&lt;/p&gt; &quot;q&quot; &apos;s&apos;"), `<p>a & b</p> "q" 's'`);
    assert.equal(decodeReferences("&#233;&#xE9;&#XE9; &nbsp;&eacute;&hellip;&rsquo;"), "ééé \u00a0é…’");
  });

  it("leaves bare ampersands, unterminated and unknown references as written", () => {
    for (const text of [
      "a & b",
      "?a=1&b=2",
      "&copy=2",
      "&amp",
      "&lol9;",
      "&xxe;",
      "& lt;",
      "&#;",
      "&#x;",
      "&1abc;",
      "&nbspx;",
    ]) {
      assert.equal(decodeReferences(text), text);
    }
    assert.equal(decodeReferences("x & y &lt; z &unknown; &gt;"), "x & y < z &unknown; >");
  });

  it("never resolves names that are properties of plain objects", () => {
    for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty"]) {
      assert.equal(decodeReferences(`a&${name};b`), `a&${name};b`);
    }
  });

  it("turns references to nothing or to surrogates into U+FFFD", () => {
    assert.equal(decodeReferences("&#0;&#xD800;&#x110000;&#99999999;"), "\uFFFD\uFFFD\uFFFD\uFFFD");
  });
});
