import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveOptions } from "../../lib/options.js";
import { foundRecordKey, type FoundRecord } from "../../lib/sources/blogroll.js";
import { refreshSource } from "../../lib/sources/refresh.js";
import { readConfigFile } from "../../lib/standalone/config-file.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { Source } from "../../lib/storage/types.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { feedOutline, opmlOf, startWeb, type Site } from "./web.js";

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });
after(() => closeParsePool());

describe("source type blogroll: following someone's blogroll by their site's address (SQLite, loopback web)", () => {
  let web: Awaited<ReturnType<typeof startWeb>>;
  let server: TestServer;
  const site = (name: string) => web.sites.get(name) as Site;
  before(async () => {
    web = await startWeb([
      { name: "friend", announce: "head", recommends: ["a", "b", "c"] },
      { name: "a", announce: "none" },
      { name: "b", announce: "none" },
      { name: "c", announce: "none" },
      { name: "decoy", announce: "html-decoy", recommends: ["a"] },
    ]);
    server = await startTestServer("sqlite");
  });
  after(async () => {
    await server.close();
    await web.close();
  });
  const context = () => ({ storage: server.storage, options, microsub: null });
  const reload = async (id: string) => (await server.storage.sources.get(id)) as Source;

  it("finds the list, mirrors it (304 next time), keeps owner edits, and a shrunk list loses nothing", async () => {
    const friend = site("friend");
    const source = await server.storage.sources.create({
      type: "blogroll",
      name: "Friend",
      settings: { url: friend.url.replace(/^http:\/\//, "http://") },
    });
    const first = await refreshSource(source, context());
    assert.equal(first.status, "ok", JSON.stringify(first));
    assert.equal(first.status === "ok" && first.report?.added, 3);
    const a = await server.storage.blogs.getByFeedUrl(site("a").feed);
    assert.equal(a?.source, "blogroll");
    assert.equal(a?.siteUrl, site("a").home);
    const record = await server.storage.meta.get<FoundRecord>(foundRecordKey(source.id));
    assert.equal(record?.url, friend.blogroll);
    assert.equal(record?.via, "head");

    // Next sync: the page is not asked again (the address is remembered), the list answers 304.
    friend.server.reset();
    const second = await refreshSource(await reload(source.id), context());
    assert.deepEqual(second, { status: "ok", report: null, title: null });
    assert.equal(friend.server.hits("/"), 0);
    assert.equal(friend.server.hits("/blogroll.opml"), 1);
    assert.equal(friend.server.lastHeaders("/blogroll.opml")?.["if-none-match"], '"friend-opml"');

    // The owner renames a blog; the friend's list then drops two blogs.
    await server.storage.blogs.edit(a!.id, { title: "My name for A" });
    friend.server.route("/blogroll.opml", (_request, response) => {
      response
        .writeHead(200, { "content-type": "text/x-opml", etag: '"v2"' })
        .end(opmlOf("friend", feedOutline("A renamed by friend", site("a").feed)));
    });
    const third = await refreshSource(await reload(source.id), context());
    assert.equal(third.status === "ok" && third.report?.missing, 2);
    assert.equal((await server.storage.blogs.getByFeedUrl(site("a").feed))?.title, "My name for A");
    const b = await server.storage.blogs.getByFeedUrl(site("b").feed);
    assert.deepEqual(b?.origins, [], "kept, only unlisted");
    assert.equal(
      (await server.storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).items.some(
        (blog) => blog.id === b?.id,
      ),
      false,
    );
  });

  it("a site whose list moved is asked again; one that announces none is a clear error that changes nothing", async () => {
    const friend = site("friend");
    const source = (await server.storage.sources.list()).find((entry) => entry.type === "blogroll")!;
    friend.server.route("/blogroll.opml", (_request, response) => void response.writeHead(404).end());
    friend.server.route("/moved.opml", (_request, response) => {
      response
        .writeHead(200, { "content-type": "text/x-opml" })
        .end(opmlOf("friend", feedOutline("A", site("a").feed) + feedOutline("C", site("c").feed)));
    });
    friend.server.route("/", (_request, response) => {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<html><head><link rel="blogroll" href="/moved.opml"></head></html>`);
    });
    const moved = await refreshSource(await reload(source.id), context());
    assert.equal(moved.status, "ok", JSON.stringify(moved));
    assert.equal(
      (await server.storage.meta.get<FoundRecord>(foundRecordKey(source.id)))?.url,
      `${friend.url}/moved.opml`,
    );

    const decoy = await server.storage.sources.create({
      type: "blogroll",
      name: "Decoy",
      settings: { url: site("decoy").home },
    });
    const before = await server.storage.blogs.count();
    const outcome = await refreshSource(decoy, context());
    assert.deepEqual(outcome, { status: "error", error: "This site announces no blogroll" });
    assert.equal((await reload(decoy.id)).lastError, "This site announces no blogroll");
    assert.equal(await server.storage.blogs.count(), before);
  });

  it("BLOGROLL_CONFIG takes { type: blogroll, url } without a name", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "blogroll-config-"));
    const file = path.join(folder, "config.json");
    writeFileSync(file, JSON.stringify({ sources: [{ type: "blogroll", url: "https://friend.example/" }] }));
    assert.deepEqual(readConfigFile(file).sources, [
      { type: "blogroll", url: "https://friend.example/", name: "friend.example" },
    ]);
    writeFileSync(file, JSON.stringify({ sources: [{ type: "blogroll" }] }));
    assert.throws(() => readConfigFile(file), /sources\[0\]\.url must be the site's address/);
  });
});
