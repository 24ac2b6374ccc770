import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SaxesParser } from "saxes";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { addBlog } from "../support/seed.js";
import { refreshSources } from "../../lib/sources/refresh.js";

interface Outline {
  attributes: Record<string, string>;
  children: Outline[];
}

/** The document read by a strict, non-validating XML parser, as a feed reader would (throws if not well-formed). */
function readOpml(xml: string): { version: string; head: Record<string, string>; body: Outline[] } {
  const parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  const head: Record<string, string> = {};
  const body: Outline[] = [];
  const stack: Array<{ name: string; outline?: Outline }> = [];
  let version = "";
  let text = "";
  parser.on("error", (error) => {
    throw error;
  });
  parser.on("opentag", (tag) => {
    text = "";
    if (tag.name === "opml") version = String(tag.attributes.version);
    if (tag.name === "outline") {
      const outline: Outline = { attributes: { ...(tag.attributes as Record<string, string>) }, children: [] };
      const parent = [...stack].reverse().find((entry) => entry.outline)?.outline;
      (parent ? parent.children : body).push(outline);
      stack.push({ name: tag.name, outline });
    } else stack.push({ name: tag.name });
  });
  parser.on("text", (value) => (text += value));
  parser.on("closetag", (tag) => {
    stack.pop();
    if (stack.at(-1)?.name === "head") head[tag.name] = text;
  });
  parser.write(xml).close();
  return { version, head, body };
}

const SEEDS = [
  {
    title: "Tech One",
    category: "Tech & Code",
    siteUrl: "https://one.example/",
    description: 'About <code> & "quotes"',
    feedUrl: "https://one.example/feed",
  },
  {
    title: "Tech Two",
    category: "Tech & Code",
    siteUrl: "https://two.example/",
    feedUrl: "https://two.example/atom",
    feedType: "atom" as const,
  },
  {
    title: "Life — été",
    category: "Life",
    feedUrl: "https://life.example/feed.json",
    feedType: "json" as const,
    description: "Ça va",
  },
  { title: "Loose", category: null, siteUrl: "https://loose.example/", feedUrl: "https://loose.example/rss" },
];

/**
 * What an export must carry over. Every feed outline says `type="rss"`, as
 * OPML 2.0 subscription lists do whatever the format, so the format is not
 * carried: a re-imported blog learns it at its first fetch.
 */
const comparable = (blog: Record<string, unknown>) => ({
  title: blog.title,
  feedUrl: blog.feedUrl,
  siteUrl: blog.siteUrl,
  category: blog.category,
  description: blog.description,
});

for (const backend of httpBackends()) {
  describe(`OPML export round trip on ${describeBackend(backend)}`, () => {
    let origin: TestServer;
    let copy: TestServer;
    before(async () => {
      origin = await startTestServer(backend);
      copy = await startTestServer(backend);
      for (const seed of SEEDS) await addBlog(origin.storage, { source: "opml", ...seed });
      await addBlog(origin.storage, {
        title: "Secret",
        category: "Life",
        hidden: true,
        feedUrl: "https://secret.example/rss",
      });
    });
    after(async () => {
      await origin.close();
      await copy.close();
    });

    it("is OPML 2.0 a feed reader can read: one folder per category, feed outlines with type, text, title, xmlUrl", async () => {
      const xml = await (await origin.get(`${origin.api}/opml`)).text();
      const { version, head, body } = readOpml(xml);
      assert.equal(version, "2.0");
      assert.equal(head.title, "Blogroll");
      assert.match(
        head.dateCreated,
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
        "an RFC 822 date",
      );
      const folders = body.filter((outline) => !outline.attributes.xmlUrl);
      assert.deepEqual(
        folders.map((folder) => folder.attributes),
        [
          { text: "Life", title: "Life" },
          { text: "Tech & Code", title: "Tech & Code" },
        ],
      );
      assert.deepEqual(
        folders[1].children.map((feed) => feed.attributes),
        [
          {
            type: "rss",
            text: "Tech One",
            title: "Tech One",
            xmlUrl: "https://one.example/feed",
            htmlUrl: "https://one.example/",
            description: 'About <code> & "quotes"',
          },
          {
            type: "rss",
            text: "Tech Two",
            title: "Tech Two",
            xmlUrl: "https://two.example/atom",
            htmlUrl: "https://two.example/",
          },
        ],
      );
      assert.deepEqual(
        folders[0].children.map((feed) => feed.attributes.title),
        ["Life — été"],
        "hidden blogs are not exported",
      );
      const top = body.filter((outline) => outline.attributes.xmlUrl);
      assert.deepEqual(
        top.map((feed) => feed.attributes.text),
        ["Loose"],
        "uncategorised blogs sit at the top level",
      );
    });

    it("carries the owner's public note as the outline's description, in place of the feed's own", async () => {
      const noted = await addBlog(origin.storage, {
        title: "Noted",
        category: "Noted",
        description: "The feed's description",
        feedUrl: "https://noted.example/feed",
      });
      await origin.storage.blogs.edit(noted.id, { note: 'Why I read it: <gardens> & "weeds"' });
      try {
        const folder = readOpml(await (await origin.get(`${origin.api}/opml/Noted`)).text()).body[0];
        assert.deepEqual(
          folder.children.map((feed) => feed.attributes.description),
          ['Why I read it: <gardens> & "weeds"'],
        );
      } finally {
        await origin.storage.blogs.purge(noted.id);
      }
    });

    it("re-imports into this project as an OPML source with nothing lost", async () => {
      const xml = await (await origin.get(`${origin.api}/opml`)).text();
      await copy.storage.sources.create({ type: "opml_file", name: "Export", settings: { xml } });
      const summary = await refreshSources(copy.storage, copy.plugin.context.options, null);
      assert.deepEqual(summary, { total: 1, success: 1, failed: 0 });
      const before = (await (await origin.get(`${origin.api}/blogs?limit=1000`)).json()).items.map(comparable);
      const after = (await (await copy.get(`${copy.api}/blogs?limit=1000`)).json()).items.map(comparable);
      assert.equal(after.length, SEEDS.length);
      assert.deepEqual(after, before);
      assert.deepEqual(
        await (await copy.get(`${copy.api}/categories`)).json(),
        await (await origin.get(`${origin.api}/categories`)).json(),
      );
    });

    it("a category export re-imports into that category", async () => {
      const response = await origin.get(`${origin.api}/opml/${encodeURIComponent("Tech & Code")}`);
      assert.equal(
        response.headers.get("content-disposition"),
        'attachment; filename="blogroll-Tech%20%26%20Code.opml"',
      );
      const xml = await response.text();
      assert.equal(readOpml(xml).head.title, "Blogroll - Tech & Code");
      const third = await startTestServer(backend);
      try {
        await third.storage.sources.create({ type: "opml_file", name: "Tech", settings: { xml } });
        await refreshSources(third.storage, third.plugin.context.options, null);
        const blogs = (await (await third.get(`${third.api}/blogs`)).json()).items.map(comparable);
        const expected = (
          await (await origin.get(`${origin.api}/blogs?category=${encodeURIComponent("Tech & Code")}`)).json()
        ).items.map(comparable);
        assert.deepEqual(blogs, expected);
      } finally {
        await third.close();
      }
    });
  });
}
