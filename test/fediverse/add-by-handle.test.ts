import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { discoverFeeds } from "../../lib/discovery/discover.js";
import { resolveOptions } from "../../lib/options.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { logIn, summaryErrors, type AdminSession } from "../admin/admin-session.js";
import { startFediverseWeb, trustLoopbackCertificate, type FediverseWeb } from "../support/fediverse-web.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";

// The local web serves https with a self-signed loopback certificate.
trustLoopbackCertificate();

after(() => closeParsePool());

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });

describe("feed discovery from a fediverse handle (local https web)", () => {
  let web: FediverseWeb;
  before(async () => (web = await startFediverseWeb()));
  after(() => web.close());

  it("a Mastodon account: WebFinger, then its profile page, whose feed is the account's posts", async () => {
    const found = await discoverFeeds(web.ana, options);
    assert.equal(found.success, true);
    assert.deepEqual(
      found.feeds.map((feed) => feed.url),
      [web.anaFeed],
    );
    assert.deepEqual(found.success && [found.siteUrl, found.fediverse, found.fediverseUrl], [
      web.anaProfile,
      web.ana,
      web.anaProfile,
    ]);
  });

  it("a WordPress-like author: the actor's page, whose head lists the blog's own feed first and its comments last", async () => {
    const found = await discoverFeeds(`bo@${new URL(web.blog.url).host}`, options);
    assert.ok(found.success);
    assert.equal(found.feeds[0].url, web.boBlogFeed);
    assert.equal(found.feeds.at(-1)?.url, `${web.blog.url}/comments/feed/`);
    assert.deepEqual([found.fediverse, found.fediverseUrl], [web.bo, web.boAuthorPage]);
  });

  it("a handle whose account cannot be found fails with the reason, fetching no page", async () => {
    const host = new URL(web.mastodon.url).host;
    assert.deepEqual(await discoverFeeds(`@nobody@${host}`, options), {
      success: false,
      error: `No account @nobody@${host} on ${host}`,
      feeds: [],
    });
    const guarded = resolveOptions({ allowPrivateNetworks: false, fetchTimeout: 5000 });
    const refused = await discoverFeeds(web.ana, guarded);
    assert.equal(refused.success, false);
    assert.match((refused as { error: string }).error, /private network/);
  });
});

describe("adding a blog by its fediverse handle (standalone host, SQLite)", () => {
  let web: FediverseWeb;
  let server: TestServer;
  let admin: AdminSession;
  let blogs: string;
  before(async () => {
    web = await startFediverseWeb();
    server = await startTestServer("sqlite");
    admin = await logIn(server);
    blogs = `${server.plugin.mountPath}/blogs`;
  });
  after(async () => {
    await server.close();
    await web.close();
  });

  it("GET /api/discover?url=@user@host answers the feeds with the handle and its profile page", async () => {
    const response = await server.get(`${server.api}/discover?url=${encodeURIComponent(web.ana)}`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.success, true);
    assert.deepEqual(
      body.feeds.map((feed: { url: string }) => feed.url),
      [web.anaFeed],
    );
    assert.deepEqual([body.fediverse, body.fediverseUrl], [web.ana, web.anaProfile]);
  });

  it("the add form adds the best feed of a handle straight away, keeping the handle as the owner's", async () => {
    const added = await admin.post(blogs, { url: web.ana, action: "add" });
    assert.equal(added.status, 303);
    const blog = await server.storage.blogs.getByFeedUrl(web.anaFeed);
    assert.ok(blog);
    assert.equal(added.location, `${blogs}/${blog.id}?notice=blogAdded`);
    assert.deepEqual(
      [blog.fediverse, blog.fediverseUrl, blog.siteUrl, blog.source],
      [web.ana, web.anaProfile, web.anaProfile, "manual"],
    );
    assert.ok(blog.ownerEdited.includes("fediverse"));
    const api = await (await server.get(`${server.api}/blogs/${blog.id}`)).json();
    assert.deepEqual([api.fediverse, api.fediverseUrl], [web.ana, web.anaProfile]);
  });

  it("the add form lists a handle's feeds, and the picked one is added with the handle", async () => {
    const found = await admin.post(blogs, { url: web.bo, action: "discover" });
    assert.equal(found.status, 200);
    assert.match(found.html, new RegExp(`value="${web.boBlogFeed}" checked`));
    assert.match(found.html, new RegExp(`value="${web.blog.url}/author/bo/feed/"`));
    const webfingerBefore = web.blog.hits("/.well-known/webfinger");
    const added = await admin.post(blogs, { url: web.bo, feedUrl: `${web.blog.url}/author/bo/feed/`, action: "add" });
    assert.equal(added.status, 303);
    const blog = await server.storage.blogs.getByFeedUrl(`${web.blog.url}/author/bo/feed/`);
    assert.deepEqual([blog?.fediverse, blog?.fediverseUrl], [web.bo, web.boAuthorPage]);
    assert.equal(
      web.blog.hits("/.well-known/webfinger"),
      webfingerBefore + 1,
      "the handle was looked up again for the picked feed",
    );
  });

  it("a handle that cannot be found is an error on the address, and nothing is added", async () => {
    const host = new URL(web.mastodon.url).host;
    const count = await server.storage.blogs.count();
    for (const action of ["discover", "add"]) {
      const refused = await admin.post(blogs, { url: `@nobody@${host}`, action });
      assert.equal(refused.status, 422, action);
      assert.deepEqual(summaryErrors(refused.html), ["url"]);
      assert.match(refused.html, new RegExp(`No account @nobody@${host.replaceAll(".", "\\.")}`));
      assert.match(
        refused.html,
        new RegExp(`value="@nobody@${host.replaceAll(".", "\\.")}"`),
        "what was typed is kept",
      );
    }
    const picked = await admin.post(blogs, { url: `@nobody@${host}`, feedUrl: web.anaFeed, action: "add" });
    assert.equal(picked.status, 422, "a picked feed with a handle that is not found now is not added either");
    assert.equal(await server.storage.blogs.count(), count);
  });
});
