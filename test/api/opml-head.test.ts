import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { recordBlogrollDates } from "../../lib/sync/blogroll-dates.js";
import { openStorage } from "../../lib/storage/open.js";
import type { Storage } from "../../lib/storage/types.js";
import { addBlog } from "../support/seed.js";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { child, parseXml, type XmlNode } from "../support/xml.js";
import { startFeedServer } from "../sync/feed-server.js";

const RFC822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;

/** The head's text elements by name. */
async function opmlHead(response: Response): Promise<Record<string, string>> {
  const head = child(parseXml(await response.text()), "head") as XmlNode;
  return Object.fromEntries(head.children.filter((node) => node.uri === "").map((node) => [node.local, node.text]));
}

for (const backend of httpBackends()) {
  describe(`OPML export head and validators on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let opml: string;

    before(async () => {
      server = await startTestServer(backend, { publicUrl: "https://owner.example/" });
      opml = `${server.api}/opml`;
      await addBlog(server.storage, { title: "Alpha", category: "Friends" });
      await addBlog(server.storage, { title: "Beta", category: "Tech" });
    });
    after(() => server.close());

    it("keeps the spec's headers: text/x-opml and the attachment filename", async () => {
      const whole = await server.get(opml);
      assert.equal(whole.headers.get("content-type"), "text/x-opml");
      assert.equal(whole.headers.get("content-disposition"), 'attachment; filename="blogroll.opml"');
      const category = await server.get(`${opml}/${encodeURIComponent("Friends & Co")}`);
      assert.equal(
        category.headers.get("content-disposition"),
        'attachment; filename="blogroll-Friends%20%26%20Co.opml"',
      );
      assert.equal((await opmlHead(whole)).title, "Blogroll");
    });

    it("names its owner (standalone: publicUrl) and its dates in RFC 822", async () => {
      const head = await opmlHead(await server.get(opml));
      assert.equal(head.ownerId, "https://owner.example/");
      assert.equal(head.ownerName, "owner.example");
      assert.match(head.dateCreated, RFC822);
      assert.match(head.dateModified, RFC822);
      assert.equal(head.docs, "http://opml.org/spec2.opml");
      assert.ok(Date.parse(head.dateCreated) <= Date.parse(head.dateModified));
    });

    it("two requests get the same body and ETag, and If-None-Match gets 304 (also by date)", async () => {
      const first = await server.get(opml);
      const body = await first.text();
      const etag = first.headers.get("etag") as string;
      // Into the next second: a document dated by the request (as before) would differ now.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await server.get(opml);
      assert.equal(await second.text(), body);
      assert.equal(second.headers.get("etag"), etag);
      const conditional = await server.get(opml, { headers: { "If-None-Match": etag } });
      assert.equal(conditional.status, 304);
      const lastModified = first.headers.get("last-modified") as string;
      assert.equal(
        Date.parse(lastModified),
        Date.parse((await opmlHead(await server.get(opml))).dateModified),
        "Last-Modified is dateModified",
      );
      assert.equal((await server.get(opml, { headers: { "If-Modified-Since": lastModified } })).status, 304);
      for (const path of ["/opml/Friends", "/opml/Nope"]) {
        const one = await server.get(`${server.api}${path}`);
        await one.text();
        assert.equal(
          (
            await server.get(`${server.api}${path}`, {
              headers: { "If-None-Match": one.headers.get("etag") as string },
            })
          ).status,
          304,
          path,
        );
      }
    });

    it("after a change to the blogroll (a blog added, renamed, given a note or a relationship, hidden) a new ETag and a later dateModified", async () => {
      const first = await server.get(opml);
      const etag = first.headers.get("etag") as string;
      const before = Date.parse((await opmlHead(first)).dateModified);
      const changes: Array<() => Promise<unknown>> = [
        () => addBlog(server.storage, { title: "Gamma", category: "Tech" }),
        async () =>
          server.storage.blogs.edit(
            (await server.storage.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items[0].id,
            { title: "Alpha (renamed)" },
          ),
        async () =>
          server.storage.blogs.edit(
            (await server.storage.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items[0].id,
            { note: "Why I read it" },
          ),
        async () =>
          server.storage.blogs.edit(
            (await server.storage.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items[0].id,
            { relationship: ["friend"] },
          ),
        async () =>
          server.storage.blogs.edit(
            (await server.storage.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items[0].id,
            { hidden: true },
          ),
      ];
      let previousEtag = etag;
      let previousDate = before;
      for (const change of changes) {
        await change();
        const response = await server.get(opml, { headers: { "If-None-Match": previousEtag } });
        assert.equal(response.status, 200, "the old ETag no longer matches");
        const nextEtag = response.headers.get("etag") as string;
        const nextDate = Date.parse((await opmlHead(response)).dateModified);
        assert.notEqual(nextEtag, previousEtag);
        assert.ok(
          nextDate > previousDate,
          `dateModified moves forward: ${new Date(previousDate).toISOString()} → ${new Date(nextDate).toISOString()}`,
        );
        const unchanged = await server.get(opml, { headers: { "If-None-Match": nextEtag } });
        assert.equal(unchanged.status, 304, "and then holds until the next change");
        previousEtag = nextEtag;
        previousDate = nextDate;
      }
    });

    it("a write that does not change the export (a fetch recorded) keeps the ETag", async () => {
      const first = await server.get(opml);
      await first.text();
      const blog = (await server.storage.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items[0];
      await server.storage.blogs.recordFetch(blog.id, {
        at: new Date(),
        status: "active",
        nextFetchAt: null,
        failureCount: 0,
      });
      const again = await server.get(opml, { headers: { "If-None-Match": first.headers.get("etag") as string } });
      assert.equal(again.status, 304);
    });
  });
}

describe("sync runs and the blogroll's dates (SQLite)", () => {
  it("a run that changes nothing the export shows does not digest the blogroll; one that renames a blog records a new date", async () => {
    const feeds = await startFeedServer();
    let title = "First title";
    feeds.route("/feed.xml", (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      response.end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>${feeds.origins[0]}/</link><image><url>${feeds.origins[0]}/logo.png</url></image></channel></rss>`,
      );
    });
    const server = await startTestServer("sqlite");
    try {
      await server.storage.blogs.upsertFromSource({
        feedUrl: `${feeds.origins[0]}/feed.xml`,
        title: "127.0.0.1",
        source: "manual",
      });
      // Every read of the whole public list in pages (the digest) is counted.
      let digests = 0;
      const list = server.storage.blogs.list.bind(server.storage.blogs);
      server.storage.blogs.list = (query) => {
        if (query.visibility === "public" && query.offset === 0 && query.limit >= 1000) digests++;
        return list(query);
      };
      const dates = () => server.storage.meta.get<{ modified: string }>("opml:blogroll");
      await server.plugin.context.scheduler.syncNow();
      assert.equal(digests, 1, "the first fetch names the blog: digested");
      const first = await dates();
      await server.plugin.context.scheduler.syncNow();
      assert.equal(digests, 1, "the same feed again: nothing to digest");
      title = "Second title";
      await server.plugin.context.scheduler.syncNow();
      assert.equal(digests, 2, "renamed by its feed: digested");
      assert.ok(Date.parse((await dates())!.modified) > Date.parse(first!.modified));
    } finally {
      await server.close();
      await feeds.close();
    }
  });
});

describe("OPML export owner", () => {
  it("ownerName is the option when set; without a publicUrl the head names no owner", async () => {
    const named = await startTestServer("sqlite", {
      publicUrl: "https://owner.example/blog/",
      ownerName: "Ada Lovelace",
    });
    const anonymous = await startTestServer("sqlite");
    try {
      const head = await opmlHead(await named.get(`${named.api}/opml`));
      assert.equal(head.ownerName, "Ada Lovelace");
      assert.equal(head.ownerId, "https://owner.example/blog/");
      const none = await opmlHead(await anonymous.get(`${anonymous.api}/opml`));
      assert.equal(none.ownerName, undefined);
      assert.equal(none.ownerId, undefined);
    } finally {
      await named.close();
      await anonymous.close();
    }
  });
});

describe("the blogroll's dates, kept in the database (SQLite file)", () => {
  let folder: string;
  let storage: Storage;
  const open = () =>
    openStorage({ hostCollections: null, mongodbUrl: null, databasePath: path.join(folder, "blogroll.db") });

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-dates-"));
    storage = await open();
  });
  after(async () => {
    await storage.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("start at the oldest blog's creation, move only when the content changes, forward by a second at least, and survive a restart", async () => {
    const first = await addBlog(storage, { title: "One" });
    const t0 = new Date("2030-01-01T00:00:00.400Z");
    const initial = await recordBlogrollDates(storage, t0);
    assert.equal(initial.created.getTime(), Math.floor(first.createdAt.getTime() / 1000) * 1000);
    assert.equal(initial.modified.toISOString(), "2030-01-01T00:00:00.000Z");

    const same = await recordBlogrollDates(storage, new Date("2030-01-02T00:00:00Z"));
    assert.deepEqual(same, initial, "nothing changed: the dates hold");

    await addBlog(storage, { title: "Two" });
    const changed = await recordBlogrollDates(storage, new Date("2030-01-01T00:00:00.900Z"));
    assert.equal(
      changed.modified.toISOString(),
      "2030-01-01T00:00:01.000Z",
      "a change within the same second still moves a second forward",
    );
    assert.equal(changed.created.getTime(), initial.created.getTime(), "created is kept");

    await storage.close();
    storage = await open();
    assert.deepEqual(
      await recordBlogrollDates(storage, new Date("2031-01-01T00:00:00Z")),
      changed,
      "kept across a restart",
    );
  });
});

describe("a sync that changes the blogroll dates it at once (SQLite)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(() => server.close());

  it("dateModified is when the sync found the change, not when the export was next asked for", async () => {
    await (await server.get(`${server.api}/opml`)).text();
    const before = await server.storage.meta.get<{ modified: string }>("opml:blogroll");
    assert.ok(before, "the first export recorded the blogroll's dates");
    // A list naming one feed on a closed loopback port: the sync imports the blog, its fetch fails fast.
    const xml = `<opml version="2.0"><head/><body><outline type="rss" text="Listed" xmlUrl="http://127.0.0.1:9/feed.xml"/></body></opml>`;
    await server.storage.sources.create({ type: "opml_file", name: "List", settings: { xml } });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal(await server.plugin.context.scheduler.syncNow(), true);
    const after = await server.storage.meta.get<{ modified: string }>("opml:blogroll");
    assert.ok(after && Date.parse(after.modified) > Date.parse(before.modified), "recorded by the sync");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const head = await opmlHead(await server.get(`${server.api}/opml`));
    assert.equal(
      Date.parse(head.dateModified),
      Date.parse(after.modified),
      "the export says the sync's time, a second and more before this request",
    );
  });
});
