import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { htmlToText, truncateText } from "../../lib/feeds/text.js";

/** HTML long enough to be read in several chunks: paragraphs, inline markup, entities, scripts, whitespace runs. */
const longHtml = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 400 }).map((text) => `<p>${text.replace(/[<&]/g, " ")}</p>`),
      fc.constantFrom(
        "<em>a b</em>",
        "&amp; &nbsp;&eacute;",
        "<script>var x = '<p>no</p>';</script>",
        "\n\n   \t",
        "<br>",
        "<li>item</li>",
      ),
      fc.string({ minLength: 1000, maxLength: 5000, unit: fc.constantFrom("a", " ", "b", "\n", "é") }),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((parts) => parts.join(""));

describe("htmlToText with a length hint", () => {
  it("gives a summary identical to the one from the whole text", () => {
    fc.assert(
      fc.property(longHtml, (html) => {
        assert.equal(truncateText(htmlToText(html, 300)), truncateText(htmlToText(html)));
      }),
      { numRuns: 200 },
    );
  });

  it("stops early on a long post but still starts with its text", () => {
    const html = `<p>Start here.</p>${"<p>More words follow in this long post.</p>".repeat(2000)}`;
    const partial = htmlToText(html, 300);
    assert.ok(partial.length > 300 && partial.length < htmlToText(html).length);
    assert.ok(htmlToText(html).startsWith(partial));
  });
});

describe("truncateText", () => {
  it("cuts at the last whole word, keeping a word that ends right at the limit", () => {
    const words = (count: number) =>
      Array.from({ length: count }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" ");
    // 5 characters per word and space: the 60th word ends at index 298, a space follows at 299.
    const text = words(100);
    assert.equal(text.charAt(299), " ");
    assert.equal(truncateText(text), `${words(60)}…`);
    assert.equal(truncateText(text).length, 300);
    // One character further the 60th word would be cut in half, so it goes.
    assert.equal(truncateText(`x${text}`), `x${words(59)}…`);
    assert.equal(truncateText(words(10)), words(10), "short text is kept whole");
  });
});
