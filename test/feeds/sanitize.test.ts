import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { sanitizeHtml } from "../../lib/parser.js";
import { sanitizerPayloads, scriptVectors } from "../hardening/hostile-inputs.js";

const payloads = sanitizerPayloads();

describe("sanitizeHtml against the DOMPurify payloads", () => {
  it("has the payload corpus", () => {
    assert.ok(payloads.length > 200);
  });

  for (const [index, { title, payload }] of payloads.entries()) {
    it(`#${index} ${title ?? ""}`.trim(), () => {
      const withBase = sanitizeHtml(payload, "https://blog.example.com/post/");
      const withoutBase = sanitizeHtml(payload);
      assert.deepEqual(scriptVectors(withBase), []);
      assert.deepEqual(scriptVectors(withoutBase), []);
      // Stable: sanitising the output again changes nothing (no mutation tricks left).
      assert.equal(sanitizeHtml(withBase, "https://blog.example.com/post/"), withBase);
    });
  }
});

describe("sanitizeHtml allow-list", () => {
  it("keeps formatting, lists, quotes, code, tables and figures", () => {
    const html =
      '<h2>T</h2><p><strong>b</strong> <em>i</em> <code>c</code></p><ul><li>x</li></ul><blockquote cite="https://q.example/">q</blockquote>' +
      '<pre>p</pre><table><tr><td colspan="2">t</td></tr></table><figure><img src="https://i.example/a.png" alt="a" /><figcaption>c</figcaption></figure>';
    assert.equal(sanitizeHtml(html), html);
  });

  it("drops scripts, styles, frames, forms, event handlers, classes and style attributes", () => {
    assert.equal(
      sanitizeHtml(
        '<p class="x" style="color:red" onclick="alert(1)">Hi<script>alert(1)</script><style>p{}</style><iframe src="https://e.example/"></iframe></p><form><input value="v"></form><object data="x"></object><embed src="y">',
      ),
      "<p>Hi</p>",
    );
  });

  it("makes relative URLs absolute and adds rel=noopener noreferrer to links", () => {
    assert.equal(
      sanitizeHtml('<a href="../x?a=1&amp;b=2">l</a><img src="img/p.png">', "https://blog.example.com/2024/post/"),
      '<a href="https://blog.example.com/2024/x?a=1&amp;b=2" rel="noopener noreferrer">l</a><img src="https://blog.example.com/2024/post/img/p.png" />',
    );
  });

  it("keeps http, https and mailto links and only http(s) images", () => {
    assert.equal(
      sanitizeHtml('<a href="mailto:a@example.com">m</a><a href="ftp://x/">f</a><img src="mailto:a@example.com"><img src="data:image/png;base64,AAAA">'),
      '<a href="mailto:a@example.com" rel="noopener noreferrer">m</a><a rel="noopener noreferrer">f</a><img /><img />',
    );
  });

  it("without a base URL, keeps plain relative links but refuses those browsers resolve to another host", () => {
    assert.equal(sanitizeHtml('<a href="/post/1">x</a><a href="post?a=b">y</a>'), '<a href="/post/1" rel="noopener noreferrer">x</a><a href="post?a=b" rel="noopener noreferrer">y</a>');
    for (const href of ["//evil.example/", "/\\evil.example/", "\\/evil.example/", "\\\\evil.example/", "/\t/evil.example/", " /\\evil.example"]) {
      assert.equal(sanitizeHtml(`<a href="${href}">x</a><img src="${href}">`), '<a rel="noopener noreferrer">x</a><img />', JSON.stringify(href));
    }
  });

  it("drops obfuscated javascript: URLs", () => {
    for (const href of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)", "&#106;avascript:alert(1)", " javascript:alert(1)", "vbscript:msgbox(1)"]) {
      assert.equal(sanitizeHtml(`<a href="${href}">x</a>`, "https://blog.example.com/"), '<a rel="noopener noreferrer">x</a>', href);
    }
  });

  it("keeps the text of elements not on the list, drops svg/math with their content, closes what was left open", () => {
    assert.equal(sanitizeHtml("<font color=red>a <center>b</center></font>"), "a b");
    assert.equal(sanitizeHtml("<p>x<svg><a href='https://e.example/'>in svg</a><p>still svg</p></svg>y</p>"), "<p>xy</p>");
    assert.equal(sanitizeHtml("<ul><li>one<li>two"), "<ul><li>one</li><li>two</li></ul>");
    assert.equal(sanitizeHtml('<h:p xmlns:h="http://www.w3.org/1999/xhtml">x<br>y<hr/><col span="2"></h:p>'), "<p>x<br />y<hr /><col span=\"2\" /></p>");
    assert.equal(sanitizeHtml("<p title='a \"b\" <c>'>1 &lt; 2 &amp;&amp; 3 &gt; 2</p>"), "<p>1 &lt; 2 &amp;&amp; 3 &gt; 2</p>");
    assert.equal(sanitizeHtml('<abbr title="a &quot;b&quot; <c>">x</abbr>'), '<abbr title="a &quot;b&quot; &lt;c&gt;">x</abbr>');
  });

  it("returns an empty string when nothing is left", () => {
    assert.equal(sanitizeHtml("<script>alert(1)</script>"), "");
    assert.equal(sanitizeHtml(""), "");
  });
});
