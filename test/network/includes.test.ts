import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveOptions } from "../../lib/options.js";
import { refreshSource } from "../../lib/sources/refresh.js";
import { readOpmlText } from "../../lib/sources/remote-opml.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { Source } from "../../lib/storage/types.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { feedOutline, opmlOf } from "./web.js";

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });
after(() => closeParsePool());

const opmlType = { headers: { "content-type": "text/x-opml" } };
const include = (url: string, text = "") => `<outline type="include" text="${text}" url="${url}"/>`;

describe("OPML includes: every OPML source follows type=include (loopback)", () => {
  let lists: FixtureServer;
  let server: TestServer;
  before(async () => {
    lists = await startFixtureServer();
    server = await startTestServer("sqlite");
    const u = (path: string) => `${lists.url}${path}`;
    // A chain four levels deep: root → one → two → three → four (the last is past the depth limit).
    lists.route(
      "/root.opml",
      respond.text(
        opmlOf("root", feedOutline("Root blog", "https://root.example/feed") + include("/one.opml", "Friends")),
        opmlType,
      ),
    );
    lists.route(
      "/one.opml",
      respond.text(opmlOf("one", feedOutline("One", "https://one.example/feed") + include(u("/two.opml"))), opmlType),
    );
    lists.route(
      "/two.opml",
      respond.text(
        opmlOf(
          "two",
          `<outline text="Folder">${feedOutline("Two", "https://two.example/feed")}</outline>` +
            include(u("/three.opml")),
        ),
        opmlType,
      ),
    );
    lists.route(
      "/three.opml",
      respond.text(
        opmlOf("three", feedOutline("Three", "https://three.example/feed") + include(u("/four.opml"))),
        opmlType,
      ),
    );
    lists.route("/four.opml", respond.text(opmlOf("four", feedOutline("Four", "https://four.example/feed")), opmlType));
    // A loop: a → b → a, and a includes itself.
    lists.route(
      "/loop-a.opml",
      respond.text(
        opmlOf(
          "a",
          feedOutline("A", "https://a.example/feed") + include(u("/loop-b.opml")) + include(u("/loop-a.opml")),
        ),
        opmlType,
      ),
    );
    lists.route(
      "/loop-b.opml",
      respond.text(opmlOf("b", feedOutline("B", "https://b.example/feed") + include(u("/loop-a.opml"))), opmlType),
    );
    // Not OPML, and a 404.
    lists.route(
      "/html.opml",
      respond.text("<!doctype html><html><body>hello</body></html>", { headers: { "content-type": "text/html" } }),
    );
    // Many outlines in includes: together past the tree's limit.
    const many = (prefix: string) =>
      Array.from({ length: 12_000 }, (_, index) =>
        feedOutline(`${prefix}${index}`, `https://${prefix}${index}.example/feed`),
      ).join("");
    lists.route("/many-1.opml", respond.text(opmlOf("m1", many("m")), opmlType));
    lists.route("/many-2.opml", respond.text(opmlOf("m2", many("n")), opmlType));
  });
  after(async () => {
    await server.close();
    await lists.close();
  });

  const context = () => ({ storage: server.storage, options, microsub: null });

  it("reads includes breadth first to three levels; their feeds take the include's label as category", async () => {
    const list = await readOpmlText(opmlOf("top", include(`${lists.url}/root.opml`, "Top")), context());
    assert.deepEqual(
      list.feeds.map((feed) => [feed.title, feed.category]),
      [
        ["Root blog", "Top"],
        ["One", "Friends"],
        ["Two", "Folder"],
      ],
    );
    assert.ok(list.partial, "the fourth level is left out");
    assert.match(list.skipped!.map((skip) => skip.reason).join("|"), /deeper than 3 levels/);
    const relative = await readOpmlText(opmlOf("top", include("/root.opml")), context(), `${lists.url}/`);
    assert.deepEqual(
      relative.feeds.map((feed) => feed.title),
      ["Root blog", "One", "Two"],
      "relative include addresses resolve against the list's own",
    );
  });

  it("cuts an include loop where it closes: each document is read once", async () => {
    lists.reset();
    const list = await readOpmlText(opmlOf("top", include(`${lists.url}/loop-a.opml`)), context());
    assert.deepEqual(
      list.feeds.map((feed) => feed.title),
      ["A", "B"],
    );
    assert.equal(lists.hits("/loop-a.opml"), 1);
    assert.equal(lists.hits("/loop-b.opml"), 1);
    assert.ok(!list.partial, "a loop loses nothing");
  });

  it("an include that is not OPML, missing or past the tree's outline limit is skipped and the list is partial", async () => {
    const list = await readOpmlText(
      opmlOf(
        "top",
        feedOutline("Kept", "https://kept.example/feed") +
          include(`${lists.url}/html.opml`) +
          include(`${lists.url}/missing.opml`) +
          include(`${lists.url}/many-1.opml`) +
          include(`${lists.url}/many-2.opml`),
      ),
      context(),
    );
    assert.ok(list.partial);
    const reasons = list.skipped!.map((skip) => `${skip.xmlUrl} ${skip.reason}`).join("\n");
    assert.match(reasons, /html\.opml include not read: Malformed XML/);
    assert.match(reasons, /missing\.opml include not read: Not found \(HTTP 404\)/);
    assert.match(reasons, /many-2\.opml include not read: .*more than \d+ outlines/);
    assert.equal(list.feeds.length, 1 + 12_000, "the first big include fits, the second does not");
  });

  it("an OPML URL source whose include fails keeps the blogs the include listed before (nothing unlisted)", async () => {
    let withInclude = true;
    lists.route(
      "/source.opml",
      respond.conditional(
        () =>
          opmlOf(
            "src",
            feedOutline("Direct", "https://direct.example/feed") +
              include(withInclude ? `${lists.url}/four.opml` : `${lists.url}/gone.opml`),
          ),
        { headers: { "content-type": "text/x-opml" } },
      ),
    );
    const created = await server.storage.sources.create({
      type: "opml_url",
      name: "With include",
      settings: { url: `${lists.url}/source.opml` },
    });
    const first = await refreshSource(created, context());
    assert.equal(first.status, "ok");
    assert.equal(first.status === "ok" && first.report?.added, 2);
    withInclude = false;
    const second = await refreshSource((await server.storage.sources.get(created.id)) as Source, context());
    assert.equal(second.status === "ok" && second.report?.missing, 0);
    const four = await server.storage.blogs.getByFeedUrl("https://four.example/feed");
    assert.deepEqual(
      four?.origins.map((origin) => origin.id),
      [created.id],
      "still listed by the source",
    );
  });
});
