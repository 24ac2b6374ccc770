import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFeed } from "../../lib/parser.js";

const parse = (body: string) => parseFeed(body, { url: "https://blog.example.com/feed.xml" });
const head = '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://blog.example.com/</link>';
const whole = (guid: string) =>
  `<item><guid>${guid}</guid><title>Post ${guid}</title><link>https://blog.example.com/${guid}</link></item>`;

describe("structurally broken XML", () => {
  it("keeps what is whole before a truncation, drops the item cut in half and says so", async () => {
    const result = await parse(
      `${head}${whole("a")}${whole("b")}<item><title>Half an item<link>http://example.invalid/x</item></title>`,
    );
    assert.deepEqual(result.items.map((item) => item.uid).sort(), ["a", "b"]);
    assert.ok(result.items.every((item) => item.url && !item.title?.includes("Half")));
    assert.match(result.problem ?? "", /ends before its closing tags.*1 broken item was left out/);
  });

  it("drops an item whose fields do not close, keeps the whole items after it", async () => {
    const result = await parse(
      `${head}${whole("a")}<item><title>Run on<link>https://blog.example.com/x</link></item>${whole("c")}</channel></rss>`,
    );
    assert.deepEqual(result.items.map((item) => item.uid).sort(), ["a", "c"]);
    assert.equal(result.problem, "Malformed XML: 1 broken item was left out");
  });

  it("reports a truncation after the last whole item though nothing is dropped", async () => {
    const result = await parse(`${head}${whole("a")}`);
    assert.deepEqual(
      result.items.map((item) => item.uid),
      ["a"],
    );
    assert.match(result.problem ?? "", /ends before its closing tags/);
  });

  it("drops a broken Atom entry", async () => {
    const result = await parse(
      '<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><id>urn:a</id><title>A</title></entry><entry><id>urn:b</id><title>B</entry></feed>',
    );
    assert.deepEqual(
      result.items.map((item) => item.uid),
      ["urn:a"],
    );
    assert.equal(result.problem, "Malformed XML: 1 broken item was left out");
  });

  it("does not mind unclosed HTML inside a field, self-closed elements or a well-formed feed", async () => {
    const result = await parse(
      `${head}<item><guid>a</guid><description>Hello <b>world</description><enclosure url="https://cdn.example/a.mp3" type="audio/mpeg"/></item></channel></rss>`,
    );
    assert.equal(result.items.length, 1);
    assert.equal(result.problem, undefined);
    assert.equal((await parse(`${head}${whole("a")}</channel></rss>`)).problem, undefined);
  });
});
