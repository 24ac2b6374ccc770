import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Source, Storage } from "../../lib/storage/types.js";
import { importFeeds, previewImport } from "../../lib/sources/import.js";
import { SourceError, type ListedFeed } from "../../lib/sources/types.js";
import { refreshSource } from "../../lib/sources/refresh.js";
import { resolveOptions } from "../../lib/options.js";
import { fixture } from "../opml/fixture.js";

/** A feed outline as the OPML parser gives it. */
function feed(host: string, extra: Partial<ListedFeed> = {}): ListedFeed {
  return {
    xmlUrl: `https://${host}/feed.xml`,
    title: `Title of ${host}`,
    htmlUrl: `https://${host}/`,
    description: null,
    type: "rss",
    category: "Tech",
    ...extra,
  };
}

describe("import rules (SQLite adapter, in memory)", () => {
  let storage: Storage;
  let source: Source;

  beforeEach(async () => {
    storage = createSqliteStorage(":memory:");
    await storage.init();
    source = await storage.sources.create({
      type: "opml_url",
      name: "List",
      settings: { url: "https://lists.example/blogroll.opml" },
    });
  });
  afterEach(() => storage.close());

  const visibleTitles = async () =>
    (await storage.blogs.list({ visibility: "public", limit: 100, offset: 0 })).items.map((blog) => blog.title).sort();

  it("adds every listed feed with its category, source 'opml' and the source id", async () => {
    const report = await importFeeds(storage, source, {
      feeds: [feed("a.example"), feed("b.example", { category: "Life", title: "" })],
    });
    const { skippedFeeds, ...counts } = report;
    assert.deepEqual(counts, { added: 2, updated: 0, unchanged: 0, skipped: 0, missing: 0 });
    assert.deepEqual(skippedFeeds, []);
    const b = await storage.blogs.getByFeedUrl("https://b.example/feed.xml");
    assert.ok(b);
    assert.equal(b.title, "b.example", "a feed without a title is named after its host");
    assert.equal(b.category, "Life");
    assert.equal(b.source, "opml");
    assert.equal(b.siteUrl, "https://b.example/");
    assert.deepEqual(
      b.origins.map((origin) => [origin.id, origin.kind, origin.values]),
      [[source.id, "opml", { siteUrl: "https://b.example/", category: "Life" }]],
    );
    const again = await importFeeds(storage, source, {
      feeds: [feed("a.example"), feed("b.example", { category: "Life", title: "" })],
    });
    assert.equal(again.unchanged, 2);
    assert.equal(again.added, 0);
  });

  it("refuses an empty list before writing anything, so a broken remote never wipes the blogroll", async () => {
    await importFeeds(storage, source, { feeds: [feed("a.example"), feed("b.example")] });
    await assert.rejects(
      importFeeds(storage, source, { feeds: [] }),
      (error: unknown) => error instanceof SourceError && error.message === "OPML lists no feeds",
    );
    await assert.rejects(
      importFeeds(storage, source, { feeds: [feed("x", { xmlUrl: "javascript:alert(1)" })] }),
      SourceError,
    );
    assert.deepEqual(await visibleTitles(), ["Title of a.example", "Title of b.example"]);
  });

  it("unlists blogs no longer listed (hidden from the public), and brings them back when listed again", async () => {
    await importFeeds(storage, source, { feeds: [feed("a.example"), feed("b.example"), feed("c.example")] });
    const shorter = await importFeeds(storage, source, { feeds: [feed("a.example")] });
    assert.equal(shorter.missing, 2);
    assert.deepEqual((await storage.blogs.getByFeedUrl("https://c.example/feed.xml"))?.origins, []);
    assert.deepEqual(await visibleTitles(), ["Title of a.example"]);
    const back = await importFeeds(storage, source, { feeds: [feed("a.example"), feed("c.example")] });
    assert.equal(back.updated, 1, "the reappearing blog counts as updated");
    assert.equal(back.missing, 0);
    assert.deepEqual(await visibleTitles(), ["Title of a.example", "Title of c.example"]);
  });

  it("never resurrects a blog the owner deleted, and says why it was skipped", async () => {
    await importFeeds(storage, source, { feeds: [feed("a.example"), feed("b.example")] });
    const b = await storage.blogs.getByFeedUrl("https://b.example/feed.xml");
    assert.ok(b && (await storage.blogs.softDelete(b.id)));
    const report = await importFeeds(storage, source, { feeds: [feed("a.example"), feed("b.example")] });
    assert.equal(report.skipped, 1);
    assert.deepEqual(report.skippedFeeds, [{ xmlUrl: "https://b.example/feed.xml", reason: "deleted by the owner" }]);
    assert.equal((await storage.blogs.get(b.id))?.status, "deleted");
  });

  it("keeps the owner's edits over what the list says", async () => {
    await importFeeds(storage, source, { feeds: [feed("a.example")] });
    const a = await storage.blogs.getByFeedUrl("https://a.example/feed.xml");
    assert.ok(a);
    await storage.blogs.edit(a.id, { title: "My name for it", category: "Friends" });
    await importFeeds(storage, source, {
      feeds: [feed("a.example", { title: "Renamed upstream", category: "Other" })],
    });
    const read = await storage.blogs.get(a.id);
    assert.equal(read?.title, "My name for it");
    assert.equal(read?.category, "Friends");
  });

  it("keeps a blog listed by two sources once, remembering both; one dropping it leaves it visible", async () => {
    const other = await storage.sources.create({
      type: "feedland",
      name: "FeedLand",
      settings: { screenName: "someone" },
    });
    await importFeeds(storage, source, { feeds: [feed("shared.example"), feed("a.example")] });
    // The other list spells the same feed with http and a trailing slash.
    await importFeeds(storage, other, {
      feeds: [feed("shared.example", { xmlUrl: "http://SHARED.example/feed.xml/" })],
    });
    const all = await storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 });
    assert.equal(all.items.filter((blog) => blog.feedUrl.toLowerCase().includes("shared")).length, 1);
    const shared = await storage.blogs.getByFeedUrl("https://shared.example/feed.xml");
    assert.deepEqual(
      shared?.origins.map((origin) => origin.id),
      [source.id, other.id],
    );
    await importFeeds(storage, source, { feeds: [feed("a.example")] });
    const after = await storage.blogs.getByFeedUrl("https://shared.example/feed.xml");
    assert.deepEqual(
      after?.origins.map((origin) => origin.id),
      [other.id],
    );
    assert.equal((await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).total, 2);
  });

  it("skips repeats and unusable addresses with reasons, alongside the parser's own rejects", async () => {
    const report = await importFeeds(storage, source, {
      feeds: [
        feed("a.example"),
        feed("a.example", { xmlUrl: "http://a.example/feed.xml", category: "Second" }),
        feed("bad", { xmlUrl: "ftp://bad.example/x" }),
      ],
      skipped: [{ xmlUrl: "not a url", reason: "not an absolute URL" }],
    });
    assert.equal(report.added, 1);
    assert.equal(report.skipped, 3);
    assert.deepEqual(report.skippedFeeds.map((entry) => entry.reason).sort(), [
      "listed more than once",
      "not an absolute URL",
      "not an http(s) address",
    ]);
    assert.equal(
      (await storage.blogs.getByFeedUrl("https://a.example/feed.xml"))?.category,
      "Tech",
      "the first listing wins",
    );
  });

  it("previews an import without writing anything", async () => {
    await importFeeds(storage, source, { feeds: [feed("known.example"), feed("gone.example")] });
    const gone = await storage.blogs.getByFeedUrl("https://gone.example/feed.xml");
    assert.ok(gone);
    await storage.blogs.softDelete(gone.id);
    const before = await storage.blogs.count();
    const preview = await previewImport(storage, [
      feed("known.example"),
      feed("new.example"),
      feed("gone.example"),
      feed("new.example"),
    ]);
    assert.deepEqual(
      { added: preview.added, updated: preview.updated, skipped: preview.skipped },
      { added: 1, updated: 1, skipped: 2 },
    );
    assert.deepEqual(
      preview.entries.map((entry) => [entry.xmlUrl, entry.outcome, entry.reason ?? null]),
      [
        ["https://known.example/feed.xml", "update", null],
        ["https://new.example/feed.xml", "add", null],
        ["https://gone.example/feed.xml", "skip", "deleted by the owner"],
        ["https://new.example/feed.xml", "skip", "listed more than once"],
      ],
    );
    assert.equal(await storage.blogs.count(), before);
    assert.equal(await storage.blogs.getByFeedUrl("https://new.example/feed.xml"), null);
  });

  it("turns OPML fixtures into exactly the expected blogs (uploaded file source)", async () => {
    const context = { storage, options: resolveOptions({}), microsub: null };
    const blogsNow = async () =>
      (await storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 })).items
        .map((blog) => [blog.feedUrl, blog.title, blog.category, blog.siteUrl, blog.source, blog.status])
        .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    const upload = async (name: string, xml: string) => {
      const created = await storage.sources.create({ type: "opml_file", name, settings: { xml } });
      const outcome = await refreshSource(created, context);
      assert.equal(outcome.status, "ok", name);
      return outcome.status === "ok" ? outcome.report : null;
    };

    const nested = await upload("Nested", fixture("nested.opml"));
    assert.deepEqual(
      { ...nested, skippedFeeds: undefined },
      { added: 9, updated: 0, unchanged: 0, skipped: 0, missing: 0, skippedFeeds: undefined },
    );
    const feedland = await upload("FeedLand export", fixture("feedland.opml"));
    assert.equal(feedland?.added, 6);
    const duplicates = await upload(
      "Duplicates and bad URLs",
      fixture("duplicates.opml").replace(
        "</body>",
        `${fixture("bad-urls.opml").split("<body>")[1].split("</body>")[0]}</body>`,
      ),
    );
    assert.equal(duplicates?.added, 5);
    assert.equal(duplicates?.skipped, 8, "two duplicates and six unusable addresses");
    assert.deepEqual(await blogsNow(), [
      ["http://feedscheme.example/rss", "Feed scheme", null, null, "opml", "pending"],
      ["http://scripting.com/rss.xml", "Scripting News", "news", "http://scripting.com/", "opml", "pending"],
      ["https://back-l2.example/feed", "Back at L2", "Level 2 (title only)", null, "opml", "pending"],
      ["https://blanks.example/rss", "Leading blanks", "tech", null, "opml", "pending"],
      ["https://commas.example/rss", "Only commas", null, null, "opml", "pending"],
      ["https://dup.example/feed/", "First", "Tech", null, "opml", "pending"],
      ["https://dup.example/feed?page=2", "Different query is different", "Personal", null, "opml", "pending"],
      ["https://good.example/feed", "Good", null, null, "opml", "pending"],
      ["https://inner.example/feed", "Inside a feed", "Level 5", null, "opml", "pending"],
      ["https://l1.example/feed", "L1 feed", "Level 1", null, "opml", "pending"],
      ["https://l2.example/feed", "L2 feed", "Level 2 (title only)", null, "opml", "pending"],
      ["https://l3.example/feed", "L3 unnamed-folder feed", "Level 3", null, "opml", "pending"],
      ["https://l4.example/feed", "L4 feed", "Level 4", null, "opml", "pending"],
      ["https://l5.example/feed", "L5 feed", "Level 5", null, "opml", "pending"],
      ["https://nesting.example/rss", "Nesting used", "Folder", null, "opml", "pending"],
      ["https://paths.example/rss", "Paths", "Weather", null, "opml", "pending"],
      ["https://top.example/feed", "Top level feed", null, null, "opml", "pending"],
      ["https://under.example/feed", "Under empty-url folder", "Empty xmlUrl is a folder", null, "opml", "pending"],
      ["https://wins.example/rss", "Attribute wins", "music", null, "opml", "pending"],
      ["https://wrapped.example/atom", "Feed scheme wrapping https", null, null, "opml", "pending"],
    ]);
  });

  it("records a malformed, empty or oversized OPML document on the source and leaves its blogs exactly as they were", async () => {
    const good = `<opml><body><outline text="A" xmlUrl="https://a.example/feed"/><outline text="B" xmlUrl="https://b.example/feed"/></body></opml>`;
    const created = await storage.sources.create({ type: "opml_file", name: "File", settings: { xml: good } });
    const context = { storage, options: resolveOptions({ maxBodySize: 1024 }), microsub: null };
    assert.equal((await refreshSource(created, context)).status, "ok");
    const before = await storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 });
    for (const [label, xml, message] of [
      ["truncated", fixture("truncated.opml"), /^The OPML document is broken at line 8 \(unclosed tag: /],
      ["billion laughs", fixture("billion-laughs.opml"), /DTD\/entities are not allowed/],
      ["no feeds", "<opml><body><outline text='Empty folder'/></body></opml>", /^OPML lists no feeds$/],
      ["blank", "  ", /^The source holds no OPML document$/],
      ["oversized", good.replace("<body>", `<body><!--${"x".repeat(2000)}-->`), /larger than 1024 bytes/],
    ] as const) {
      await storage.sources.update(created.id, { settings: { xml } });
      const outcome = await refreshSource((await storage.sources.get(created.id))!, context);
      assert.equal(outcome.status, "error", label);
      const read = await storage.sources.get(created.id);
      assert.equal(read?.status, "error", label);
      assert.match(read?.lastError ?? "", message, label);
      assert.deepEqual(await storage.blogs.list({ visibility: "admin", limit: 100, offset: 0 }), before, label);
    }
  });
});
