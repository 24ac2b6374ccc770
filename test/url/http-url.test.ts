import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { httpUrl, parseHttpUrl } from "../../lib/url/http-url.js";

describe("httpUrl", () => {
  it("answers absolute http(s) addresses as written out, white space around them ignored", () => {
    assert.equal(httpUrl("https://Example.org"), "https://example.org/");
    assert.equal(httpUrl(" \u00a0http://example.org/a b\n"), "http://example.org/a%20b");
  });

  it("resolves against a base, and refuses what the base cannot make absolute", () => {
    assert.equal(httpUrl("../feed.xml", "https://example.org/blog/post/"), "https://example.org/blog/feed.xml");
    assert.equal(httpUrl("//cdn.example.net/a.png", "http://example.org/"), "http://cdn.example.net/a.png");
    assert.equal(httpUrl("feed.xml", "not a url"), null);
    assert.equal(httpUrl("feed.xml"), null);
  });

  it("never makes a blank value into the base address", () => {
    assert.equal(httpUrl("", "https://example.org/"), null);
    assert.equal(httpUrl("  \t", "https://example.org/"), null);
  });

  it("refuses other schemes, even when the base is http(s)", () => {
    for (const value of [
      "javascript:alert(1)",
      "data:text/html,x",
      "mailto:a@example.org",
      "tag:example.org,2024:1",
      "feed://example.org/",
      "file:///etc/passwd",
    ]) {
      assert.equal(httpUrl(value, "https://example.org/"), null, value);
    }
  });

  it("refuses what is not text", () => {
    for (const value of [null, undefined, 42, {}, ["https://example.org/"], new URL("https://example.org/")])
      assert.equal(httpUrl(value), null);
  });

  it("parseHttpUrl gives the same address as a URL", () => {
    assert.equal(parseHttpUrl("https://example.org:8443/x?y#z")?.port, "8443");
    assert.equal(parseHttpUrl("ftp://example.org/"), null);
  });
});
