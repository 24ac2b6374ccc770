import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseOpml } from "../../lib/opml/parse.js";
import { addBlog } from "../support/seed.js";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const backend of httpBackends()) {
  describe(`/.well-known/recommendations.* at the standalone server's root on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    const created: Record<string, string> = {};

    before(async () => {
      server = await startTestServer(backend, { publicUrl: "https://owner.example/" });
      const s = server.storage;
      created.alpha = (
        await addBlog(s, {
          title: "Alpha",
          category: "Friends",
          siteUrl: "https://alpha.example/",
          feedUrl: "https://alpha.example/feed.xml",
        })
      ).createdAt.toISOString();
      // A second feed of the same site: Ghost names sites, so it is listed once.
      await addBlog(s, {
        title: "Alpha comments",
        category: "Friends",
        siteUrl: "https://alpha.example/",
        feedUrl: "https://alpha.example/comments.xml",
      });
      created.beta = (
        await addBlog(s, { title: "Beta", feedUrl: "https://beta.example/feed.xml" })
      ).createdAt.toISOString();
      await addBlog(s, { title: "Hidden", siteUrl: "https://hidden.example/", hidden: true });
      await addBlog(s, { title: "Deleted", siteUrl: "https://deleted.example/", deleted: true });
    });
    after(() => server.close());

    it("recommendations.opml is the public blogroll: the same response as /api/opml", async () => {
      const wellKnown = await server.get("/.well-known/recommendations.opml", {
        headers: { Origin: "https://elsewhere.example" },
      });
      const api = await server.get(`${server.api}/opml`);
      assert.equal(wellKnown.status, 200);
      assert.equal(wellKnown.headers.get("content-type"), "text/x-opml");
      assert.equal(wellKnown.headers.get("access-control-allow-origin"), "*");
      assert.equal(wellKnown.headers.get("etag"), api.headers.get("etag"));
      const body = await wellKnown.text();
      assert.equal(body, await api.text());
      assert.deepEqual(
        parseOpml(body).feeds.map((feed) => feed.title),
        ["Alpha", "Alpha comments", "Beta"],
      );
      assert.match(body, /<ownerId>https:\/\/owner\.example\/<\/ownerId>/);
      // River links in its head point at the mount path under publicUrl, not at /.well-known or the request's host.
      assert.ok(body.includes(`href="https://owner.example${server.plugin.mountPath}/river.atom"`));
      const conditional = await server.get("/.well-known/recommendations.opml", {
        headers: { "If-None-Match": wellKnown.headers.get("etag") as string },
      });
      assert.equal(conditional.status, 304);
    });

    it("recommendations.json is Ghost's shape: a bare array of { url, updated_at, created_at }, one per site, visible blogs only", async () => {
      const response = await server.get("/.well-known/recommendations.json");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      const body = (await response.json()) as Array<Record<string, string>>;
      assert.ok(Array.isArray(body));
      for (const entry of body) {
        assert.deepEqual(Object.keys(entry), ["url", "updated_at", "created_at"]);
        assert.match(entry.created_at, ISO);
        assert.match(entry.updated_at, ISO);
      }
      assert.deepEqual(body, [
        { url: "https://alpha.example/", updated_at: created.alpha, created_at: created.alpha },
        { url: "https://beta.example/feed.xml", updated_at: created.beta, created_at: created.beta },
      ]);
      const conditional = await server.get("/.well-known/recommendations.json", {
        headers: { "If-None-Match": response.headers.get("etag") as string },
      });
      assert.equal(conditional.status, 304);
    });

    it("other well-known paths are 404, never the login page", async () => {
      for (const path of ["/.well-known/other", "/.well-known/recommendations.xml", "/.well-known/"]) {
        const response = await server.get(path, { redirect: "manual" });
        assert.equal(response.status, 404, path);
        assert.deepEqual(await response.json(), { error: "Not found" });
      }
    });
  });
}

describe("the wellKnown option", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite", { wellKnown: false });
    await addBlog(server.storage, { title: "Alpha" });
  });
  after(() => server.close());

  it("wellKnown: false serves neither file (404), and the API's OPML stays", async () => {
    assert.equal(server.plugin.routesWellKnown, undefined, "nothing for the host to mount");
    for (const path of ["/.well-known/recommendations.opml", "/.well-known/recommendations.json"]) {
      const response = await server.get(path, { redirect: "manual" });
      assert.equal(response.status, 404, path);
    }
    assert.equal((await server.get(`${server.api}/opml`)).status, 200);
  });

  it("is checked: anything but true or false is refused at construction", async () => {
    const { default: BlogrollEndpoint } = await import("../../index.js");
    assert.throws(
      () => new BlogrollEndpoint({ wellKnown: "no" as unknown as boolean }),
      /option "wellKnown" must be true or false/,
    );
    assert.throws(
      () => new BlogrollEndpoint({ publicUrl: "owner.example" }),
      /option "publicUrl" must be an absolute http\(s\) URL/,
    );
    assert.throws(() => new BlogrollEndpoint({ ownerName: "  " }), /option "ownerName" must be a non-empty string/);
  });
});
