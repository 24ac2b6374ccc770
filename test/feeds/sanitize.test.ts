import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MAX_HTML_DEPTH } from "../../lib/feeds/nesting.js";
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
      sanitizeHtml(
        '<a href="mailto:a@example.com">m</a><a href="ftp://x/">f</a><img src="mailto:a@example.com"><img src="data:image/png;base64,AAAA">',
      ),
      '<a href="mailto:a@example.com" rel="noopener noreferrer">m</a><a rel="noopener noreferrer">f</a><img /><img />',
    );
  });

  it("without a base URL, keeps plain relative links but refuses those browsers resolve to another host", () => {
    assert.equal(
      sanitizeHtml('<a href="/post/1">x</a><a href="post?a=b">y</a>'),
      '<a href="/post/1" rel="noopener noreferrer">x</a><a href="post?a=b" rel="noopener noreferrer">y</a>',
    );
    for (const href of [
      "//evil.example/",
      "/\\evil.example/",
      "\\/evil.example/",
      "\\\\evil.example/",
      "/\t/evil.example/",
      " /\\evil.example",
    ]) {
      assert.equal(
        sanitizeHtml(`<a href="${href}">x</a><img src="${href}">`),
        '<a rel="noopener noreferrer">x</a><img />',
        JSON.stringify(href),
      );
    }
  });

  it("drops obfuscated javascript: URLs", () => {
    for (const href of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "java\tscript:alert(1)",
      "&#106;avascript:alert(1)",
      " javascript:alert(1)",
      "vbscript:msgbox(1)",
    ]) {
      assert.equal(
        sanitizeHtml(`<a href="${href}">x</a>`, "https://blog.example.com/"),
        '<a rel="noopener noreferrer">x</a>',
        href,
      );
    }
  });

  it("keeps the text of elements not on the list, drops svg/math with their content, closes what was left open", () => {
    assert.equal(sanitizeHtml("<font color=red>a <center>b</center></font>"), "a b");
    assert.equal(
      sanitizeHtml("<p>x<svg><a href='https://e.example/'>in svg</a><p>still svg</p></svg>y</p>"),
      "<p>xy</p>",
    );
    assert.equal(sanitizeHtml("<ul><li>one<li>two"), "<ul><li>one</li><li>two</li></ul>");
    assert.equal(
      sanitizeHtml('<h:p xmlns:h="http://www.w3.org/1999/xhtml">x<br>y<hr/><col span="2"></h:p>'),
      '<p>x<br />y<hr /><col span="2" /></p>',
    );
    assert.equal(
      sanitizeHtml("<p title='a \"b\" <c>'>1 &lt; 2 &amp;&amp; 3 &gt; 2</p>"),
      "<p>1 &lt; 2 &amp;&amp; 3 &gt; 2</p>",
    );
    assert.equal(
      sanitizeHtml('<abbr title="a &quot;b&quot; <c>">x</abbr>'),
      '<abbr title="a &quot;b&quot; &lt;c&gt;">x</abbr>',
    );
  });

  it("returns an empty string when nothing is left", () => {
    assert.equal(sanitizeHtml("<script>alert(1)</script>"), "");
    assert.equal(sanitizeHtml(""), "");
  });
});

describe("sanitizeHtml: the whole allow-list", () => {
  // Written out here, so that a tag or attribute dropped from (or added to) the list fails a test.
  const containers = [
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "div",
    "span",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "strike",
    "del",
    "ins",
    "sub",
    "sup",
    "small",
    "mark",
    "abbr",
    "cite",
    "q",
    "dfn",
    "time",
    "kbd",
    "samp",
    "var",
    "code",
    "pre",
    "blockquote",
    "a",
    "figure",
    "figcaption",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
  ];
  const attributes: Record<string, string> = {
    a: ' href="https://e.example/" title="t"',
    img: ' src="https://e.example/i.png" alt="a" title="t" width="1" height="2"',
    abbr: ' title="t"',
    dfn: ' title="t"',
    blockquote: ' cite="https://e.example/"',
    q: ' cite="https://e.example/"',
    del: ' cite="https://e.example/" datetime="2026-01-01"',
    ins: ' cite="https://e.example/" datetime="2026-01-01"',
    time: ' datetime="2026-01-01"',
    ol: ' start="3" reversed=""',
    th: ' colspan="2" rowspan="2" scope="col"',
    td: ' colspan="2" rowspan="2"',
    col: ' span="2"',
    colgroup: ' span="2"',
  };

  it("keeps each allowed element, with each of its allowed attributes", () => {
    for (const tag of containers) {
      const extra = tag === "a" ? ' rel="noopener noreferrer"' : "";
      assert.equal(
        sanitizeHtml(`<${tag}${attributes[tag] ?? ""}>x</${tag}>`),
        `<${tag}${attributes[tag] ?? ""}${extra}>x</${tag}>`,
        tag,
      );
    }
    for (const tag of ["br", "hr", "img"])
      assert.equal(sanitizeHtml(`<${tag}${attributes[tag] ?? ""}>`), `<${tag}${attributes[tag] ?? ""} />`, tag);
    const table =
      `<table><caption>c</caption><colgroup${attributes.colgroup}><col${attributes.col} /></colgroup><thead><tr><th${attributes.th}>h</th></tr></thead>` +
      `<tbody><tr><td${attributes.td}>d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>`;
    assert.equal(sanitizeHtml(table), table);
  });

  it("drops every other attribute, and an allowed one on an element it does not belong to", () => {
    assert.equal(sanitizeHtml('<p title="t" id="i" lang="en" dir="rtl" data-x="1" hidden>x</p>'), "<p>x</p>");
    assert.equal(sanitizeHtml('<span title="t" datetime="d" cite="https://e.example/">x</span>'), "<span>x</span>");
    assert.equal(
      sanitizeHtml(
        '<img src="https://e.example/i.png" srcset="https://e.example/2.png 2x" loading="lazy" href="https://e.example/">',
      ),
      '<img src="https://e.example/i.png" />',
    );
    assert.equal(
      sanitizeHtml('<a href="https://e.example/" target="_blank" download ping="https://e.example/p">x</a>'),
      '<a href="https://e.example/" rel="noopener noreferrer">x</a>',
    );
    assert.equal(sanitizeHtml('<td width="9" colspan="1" scope="row">x</td>'), '<td colspan="1">x</td>');
  });

  it("writes the link's own rel, never the feed's", () => {
    assert.equal(
      sanitizeHtml('<a href="https://e.example/" rel="opener me">x</a>'),
      '<a href="https://e.example/" rel="noopener noreferrer">x</a>',
    );
    assert.equal(sanitizeHtml('<a rel="me">x</a>'), '<a rel="noopener noreferrer">x</a>');
  });

  it("drops script, style, template, svg and math with what is inside them; other unknown elements keep their text", () => {
    for (const tag of ["script", "style", "template", "svg", "math"]) {
      assert.equal(sanitizeHtml(`<div>a<${tag}><b>in</b>side</${tag}>b</div>`), "<div>ab</div>", tag);
    }
    for (const tag of ["iframe", "object", "noscript", "video", "custom-element", "form", "button"]) {
      assert.equal(sanitizeHtml(`<div>a<${tag}><b>in</b>side</${tag}>b</div>`), "<div>a<b>in</b>sideb</div>", tag);
    }
  });

  it("resolves and checks cite like href, and images keep http(s) only", () => {
    assert.equal(
      sanitizeHtml(
        '<q cite="/src">x</q><blockquote cite="javascript:alert(1)">y</blockquote>',
        "https://blog.example.com/a/",
      ),
      '<q cite="https://blog.example.com/src">x</q><blockquote>y</blockquote>',
    );
    assert.equal(
      sanitizeHtml(
        '<a href="mailto:a@example.com">m</a><img src="https://e.example/i.png"><img src="HTTP://E.EXAMPLE/j.png">',
      ),
      '<a href="mailto:a@example.com" rel="noopener noreferrer">m</a><img src="https://e.example/i.png" /><img src="http://e.example/j.png" />',
    );
    assert.equal(
      sanitizeHtml('<a href="  ">x</a><img src="">'),
      '<a rel="noopener noreferrer">x</a><img />',
      "an empty URL is no URL",
    );
    assert.equal(
      sanitizeHtml('<a href=" https://e.example/a b ">x</a>'),
      '<a href="https://e.example/a%20b" rel="noopener noreferrer">x</a>',
    );
  });

  it("without a base, keeps relative references that name no scheme, whatever control characters they hide", () => {
    assert.equal(
      sanitizeHtml('<a href="a:b">x</a><a href="java&#0;script:alert(1)">y</a><a href="page#a:b">z</a>'),
      '<a rel="noopener noreferrer">x</a><a rel="noopener noreferrer">y</a><a rel="noopener noreferrer">z</a>',
    );
    assert.equal(
      sanitizeHtml('<a href="?q=1">x</a><a href="#top">y</a><a href=" page ">z</a>'),
      '<a href="?q=1" rel="noopener noreferrer">x</a><a href="#top" rel="noopener noreferrer">y</a><a href="page" rel="noopener noreferrer">z</a>',
    );
  });

  it("escapes text and attribute values so that the output reads back as the same text", () => {
    assert.equal(sanitizeHtml("<p>&lt;b&gt; &amp; &quot;q&quot; 'a'</p>"), "<p>&lt;b&gt; &amp; \"q\" 'a'</p>");
    assert.equal(
      sanitizeHtml("<abbr title=\"x &amp; y &lt;z&gt; 'w'\">a</abbr>"),
      "<abbr title=\"x &amp; y &lt;z&gt; 'w'\">a</abbr>",
    );
    assert.equal(sanitizeHtml('<abbr title="plain">a</abbr>'), '<abbr title="plain">a</abbr>');
    assert.equal(sanitizeHtml("<p>plain text</p>"), "<p>plain text</p>");
  });

  it("reads prefixed XHTML elements by their local name", () => {
    assert.equal(
      sanitizeHtml('<x:p xmlns:x="http://www.w3.org/1999/xhtml"><x:script>s</x:script><x:b>b</x:b></x:p>'),
      "<p><b>b</b></p>",
    );
  });

  it("trims the result and keeps inner white space", () => {
    assert.equal(sanitizeHtml("  <p> a  b </p>\n "), "<p> a  b </p>");
  });

  it(`nests at most ${MAX_HTML_DEPTH} elements and keeps all the text`, () => {
    const at = (depth: number) => `${"<b>".repeat(depth)}x${"</b>".repeat(depth)}`;
    assert.equal(sanitizeHtml(at(MAX_HTML_DEPTH)), at(MAX_HTML_DEPTH), "as deep as allowed: untouched");
    const deeper = sanitizeHtml(`${at(MAX_HTML_DEPTH + 10)}y`);
    assert.ok(deeper.endsWith("y") && deeper.includes("x"));
    assert.ok(deeper.split("<b>").length - 1 <= MAX_HTML_DEPTH, "no deeper than allowed");
  });
});
