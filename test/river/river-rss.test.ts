import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseFeed } from "../../lib/feeds/parse.js";
import { parseOpml } from "../../lib/opml/parse.js";
import { ATOM_NS } from "../../lib/river/atom.js";
import { DC_NS, SOURCE_NS } from "../../lib/river/rss.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { all, child, children, parseXml, readWithFeedparser, XMLNS_NS, type XmlNode } from "../support/xml.js";

const UUID_URN = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

after(() => closeParsePool());

/** RFC 822 dates as RSS 2.0 writes them (the RFC 1123 form). */
const RFC822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;
const MARKUP_TITLE = `<b>Bold</b> & "quoted"`;
/** Where each element of the river may live: RSS's own (no namespace), Atom's self link, Dublin Core's creator, the Source namespace's blogroll. */
const NAMESPACES: Record<string, string> = { link: "", "atom link": ATOM_NS, creator: DC_NS, blogroll: SOURCE_NS };

describe("the RSS 2.0 river (SQLite)", () => {
  let server: TestServer;
  let mount: string;
  let response: Response;
  let xml: string;

  before(async () => {
    server = await startTestServer("sqlite");
    mount = `${server.baseUrl}${server.plugin.mountPath}`;
    const s = server.storage;
    const alpha = await addBlog(s, {
      title: "Alpha Notes",
      category: "Friends",
      siteUrl: "https://alpha.example/",
      feedUrl: "https://alpha.example/feed.xml",
    });
    const beta = await addBlog(s, { title: "Beta & Co", category: "Tech", feedUrl: "https://beta.example/feed.xml" });
    const hidden = await addBlog(s, { title: "Hidden", category: "Friends", hidden: true });
    await addItems(s, alpha.id, [
      item("https://alpha.example/2026/hello", daysAgo(0.5), {
        title: "Hello from Alpha",
        categories: ["indieweb", "a&b"],
      }),
      item("42", daysAgo(2), { title: "Old Alpha post", author: "Guest Writer" }),
      item("undated", null, { title: "Undated Alpha post" }),
    ]);
    await addItems(s, beta.id, [
      item("https://beta.example/p/1", daysAgo(1), { title: MARKUP_TITLE, content: null, summary: "1 < 2 & plain" }),
      item("note", daysAgo(3), { title: null, content: null, summary: null }),
    ]);
    await addItems(s, hidden.id, [item("hidden-post", daysAgo(0.1), { title: "Hidden post" })]);
    response = await server.get(`${mount}/river.rss`);
    xml = await response.text();
  });
  after(() => server.close());

  it("is served as RSS with the API's CORS and caching headers, and a Link to the blogroll", () => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/rss+xml; charset=utf-8");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal(response.headers.get("cache-control"), "public, max-age=300");
    assert.match(response.headers.get("etag") ?? "", /^"[^"]+"$/);
    assert.ok(Date.parse(response.headers.get("last-modified") ?? "") > 0);
    assert.equal(response.headers.get("link"), `<${mount}/api/opml>; rel="blogroll"; type="text/xml"`);
  });

  it("is namespace-correct XML: RSS elements in no namespace, extensions in theirs", () => {
    const rss = parseXml(xml);
    assert.equal(rss.local, "rss");
    assert.equal(rss.uri, "");
    assert.equal(rss.attributes.version?.value, "2.0");
    for (const node of all(rss)) {
      const key = node.uri === ATOM_NS ? "atom link" : node.local;
      assert.equal(node.uri, NAMESPACES[key] ?? "", `<${node.local}> in ${node.uri || "no namespace"}`);
      for (const [name, attribute] of Object.entries(node.attributes)) {
        if (attribute.uri !== XMLNS_NS) assert.equal(attribute.uri, "", `${node.local}@${name} unqualified`);
      }
    }
    assert.equal(children(rss, "channel").length, 1);
  });

  it("names the blogroll with <source:blogroll> (Source namespace), and that address serves the OPML of the same blogs", async () => {
    const channel = child(parseXml(xml), "channel") as XmlNode;
    const blogrolls = children(channel, "blogroll");
    assert.equal(blogrolls.length, 1);
    assert.equal(blogrolls[0].uri, "http://source.scripting.com/");
    assert.equal(blogrolls[0].text, `${mount}/api/opml`);
    const opml = await server.get(blogrolls[0].text);
    assert.equal(opml.status, 200);
    assert.equal(opml.headers.get("content-type"), "text/x-opml");
    assert.deepEqual(
      parseOpml(await opml.text())
        .feeds.map((feed) => feed.title)
        .sort(),
      ["Alpha Notes", "Beta & Co"],
    );
  });

  it("has the channel elements: title, link, description, self link, lastBuildDate, generator, docs", async () => {
    const channel = child(parseXml(xml), "channel") as XmlNode;
    assert.equal(child(channel, "title")?.text, "Blogroll");
    assert.equal(channel.children.find((node) => node.local === "link" && node.uri === "")?.text, `${server.baseUrl}/`);
    assert.equal(child(channel, "description")?.text, "The newest posts of the blogs in this blogroll");
    const self = channel.children.find((node) => node.uri === ATOM_NS) as XmlNode;
    assert.deepEqual(
      [self.attributes.rel?.value, self.attributes.type?.value, self.attributes.href?.value],
      ["self", "application/rss+xml", `${mount}/river.rss`],
    );
    assert.match(child(channel, "lastBuildDate")?.text ?? "", RFC822);
    // The newest change of the river, as the Atom river's `updated` (an undated post counts by when it was fetched).
    const atomUpdated = child(parseXml(await (await server.get(`${mount}/river.atom`)).text()), "updated")?.text ?? "";
    assert.equal(
      Date.parse(child(channel, "lastBuildDate")?.text ?? ""),
      Math.floor(Date.parse(atomUpdated) / 1000) * 1000,
    );
    assert.match(child(channel, "generator")?.text ?? "", /^indiekit-endpoint-blogroll \d+\.\d+\.\d+/);
    assert.equal(child(channel, "docs")?.text, "https://www.rssboard.org/rss-specification");
  });

  it("lists the visible blogs' posts newest first (undated last) with title, link, guid, dates, creator, categories and their blog as <source>", () => {
    const items = children(child(parseXml(xml), "channel") as XmlNode, "item");
    assert.deepEqual(
      items.map((entry) => child(entry, "title")?.text ?? null),
      ["Hello from Alpha", MARKUP_TITLE, "Old Alpha post", null, "Undated Alpha post"],
    );
    const [hello, beta, old, note, undated] = items;
    assert.equal(child(hello, "link")?.text, "https://example.org/posts/https%3A%2F%2Falpha.example%2F2026%2Fhello");
    assert.match(
      child(hello, "guid")?.text ?? "",
      UUID_URN,
      "the id the Atom and JSON rivers give (issue 22: stable across feed moves)",
    );
    assert.equal(
      child(hello, "guid")?.attributes.isPermaLink?.value,
      "false",
      "a guid is an id here, never a permalink claim",
    );
    assert.match(child(old, "guid")?.text ?? "", UUID_URN);
    assert.notEqual(child(old, "guid")?.text, child(hello, "guid")?.text);
    assert.match(child(hello, "pubDate")?.text ?? "", RFC822);
    assert.equal(child(undated, "pubDate"), undefined, "no invented date");
    assert.equal(child(hello, "creator")?.text, "Alpha Notes", "no post author: the blog");
    assert.equal(child(old, "creator")?.text, "Guest Writer");
    assert.deepEqual(
      children(hello, "category").map((category) => category.text),
      ["indieweb", "a&b"],
    );
    assert.equal(
      child(hello, "description")?.text,
      "<p>Content of https://alpha.example/2026/hello</p>",
      "the sanitised HTML",
    );
    assert.equal(child(beta, "description")?.text, "1 &lt; 2 &amp; plain", "a plain-text summary, escaped as HTML");
    assert.equal(
      child(note, "description")?.text,
      "",
      "neither title nor text: an empty description keeps the item valid",
    );
    const source = child(hello, "source") as XmlNode;
    assert.equal(source.text, "Alpha Notes");
    assert.equal(source.attributes.url?.value, "https://alpha.example/feed.xml");
    assert.ok(!xml.includes("Hidden post"), "a hidden blog's post never appears");
  });

  it("reads in a feed reader (feedparser), blogroll included, and in this project's own parser", async () => {
    const { meta, items } = await readWithFeedparser(xml);
    assert.equal(meta.title, "Blogroll");
    assert.equal(meta["#type"], "rss");
    assert.equal(meta.link, `${server.baseUrl}/`);
    const blogroll = (meta as unknown as Record<string, { "#"?: string }>)["source:blogroll"];
    assert.equal(blogroll?.["#"], `${mount}/api/opml`, "feedparser keeps the namespaced element");
    assert.equal(items.length, 5);
    for (const entry of items) assert.match(entry.guid, UUID_URN);
    assert.equal(new Set(items.map((entry) => entry.guid)).size, 5);
    assert.equal(items[0].title, "Hello from Alpha");
    assert.equal(items[0].author, "Alpha Notes");
    assert.equal(items[2].author, "Guest Writer");
    assert.deepEqual(items[0].categories, ["indieweb", "a&b"]);
    assert.equal(
      items[0].pubdate?.getTime(),
      Date.parse(child(children(child(parseXml(xml), "channel") as XmlNode, "item")[0], "pubDate")?.text ?? ""),
    );
    assert.equal(items[4].pubdate, null);
    assert.deepEqual(items[0].source, { url: "https://alpha.example/feed.xml", title: "Alpha Notes" });

    const ours = await parseFeed(xml, { url: `${mount}/river.rss`, contentType: "application/rss+xml" });
    assert.equal(ours.feed.type, "rss");
    assert.equal(ours.items.length, 5);
    // RSS never says whether a title is text or HTML: readers (feedparser, ours) take one with tags as HTML.
    assert.equal(items[1].title, 'Bold & "quoted"');
    assert.equal(ours.items.find((entry) => entry.uid === items[1].guid)?.title, 'Bold & "quoted"');
  });

  it("?category= gives one category, its title and its own blogroll; an unknown one is 404; limits and errors as the other rivers", async () => {
    const friends = await server.get(`${mount}/river.rss?category=Friends`);
    assert.equal(friends.headers.get("link"), `<${mount}/api/opml/Friends>; rel="blogroll"; type="text/xml"`);
    const channel = child(parseXml(await friends.text()), "channel") as XmlNode;
    assert.equal(child(channel, "title")?.text, "Blogroll - Friends");
    assert.equal(child(channel, "blogroll")?.text, `${mount}/api/opml/Friends`);
    assert.deepEqual(
      children(channel, "item").map((entry) => child(entry, "title")?.text),
      ["Hello from Alpha", "Old Alpha post", "Undated Alpha post"],
    );

    const unknown = await server.get(`${mount}/river.rss?category=Nope`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: "Category not found" });
    const limited = child(
      parseXml(await (await server.get(`${mount}/river.rss?limit=2`)).text()),
      "channel",
    ) as XmlNode;
    assert.equal(children(limited, "item").length, 2);
    const bad = await server.get(`${mount}/river.rss?limit=x`);
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: "Invalid limit" });
  });

  it("answers If-None-Match with 304 and a changed river with a new ETag", async () => {
    const etag = response.headers.get("etag") as string;
    const again = await server.get(`${mount}/river.rss`, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("link"), `<${mount}/api/opml>; rel="blogroll"; type="text/xml"`);
    const blog = await addBlog(server.storage, { title: "Gamma", category: "Tech" });
    await addItems(server.storage, blog.id, [item("gamma-1", daysAgo(0.1))]);
    const changed = await server.get(`${mount}/river.rss`, { headers: { "If-None-Match": etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get("etag"), etag);
    assert.match(await changed.text(), /Post gamma-1/);
  });

  it("the Atom and JSON rivers name the same blogroll in a Link header", async () => {
    for (const [path, opml] of [
      ["/river.atom", "/api/opml"],
      ["/river.json", "/api/opml"],
      ["/river.json?category=Tech", "/api/opml/Tech"],
    ]) {
      const river = await server.get(`${mount}${path}`);
      assert.equal(river.status, 200, path);
      assert.equal(river.headers.get("link"), `<${mount}${opml}>; rel="blogroll"; type="text/xml"`, path);
    }
  });

  it("an empty river is valid RSS without a made-up lastBuildDate", async () => {
    const empty = await startTestServer("sqlite");
    try {
      const channel = child(
        parseXml(await (await empty.get(`${empty.baseUrl}${empty.plugin.mountPath}/river.rss`)).text()),
        "channel",
      ) as XmlNode;
      assert.equal(children(channel, "item").length, 0);
      assert.equal(child(channel, "lastBuildDate"), undefined);
      assert.equal(child(channel, "blogroll")?.text, `${empty.baseUrl}${empty.plugin.mountPath}/api/opml`);
    } finally {
      await empty.close();
    }
  });
});
