import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import { BLOGROLL_RECHECK } from "../../lib/network/blogroll-lookups.js";
import { blogrollOfBlog, chosenOutline, listSuggestions } from "../../lib/network/suggestions.js";
import { resolveOptions } from "../../lib/options.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { OWNER_ORIGIN, type Blog } from "../../lib/storage/types.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { feedOutline, startWeb, type Site } from "./web.js";

after(() => closeParsePool());

/**
 * A real-looking web on loopback. Followed: alice (head link), bob (Link
 * header), carol (<source:blogroll>), dave (only the well-known path), erin
 * (<blogChannel:blogRoll>, its list includes itself and a list that includes
 * it back), frank (no blogroll), gina (decoy: a text/html blogroll link, no
 * well-known file). Not followed: x, y, z, w, v (v's site is frank's) and me
 * (the owner's own site).
 */
const SPECS = [
  { name: "alice", announce: "head", recommends: ["x", "y", "bob", "me", "v"] },
  { name: "bob", announce: "link-header", recommends: ["x", "y", "w"] },
  { name: "carol", announce: "feed", recommends: ["x", "me", "z"] },
  { name: "dave", announce: "well-known", recommends: ["x", "y", "v"] },
  { name: "erin", announce: "blogchannel", recommends: [] },
  { name: "frank", announce: "none" },
  { name: "gina", announce: "html-decoy", recommends: ["x", "y", "z", "w"] },
  { name: "x", announce: "none" },
  { name: "y", announce: "none" },
  { name: "z", announce: "none" },
  { name: "w", announce: "none" },
  { name: "v", announce: "none" },
  { name: "me", announce: "none" },
] as const;
const FOLLOWED = ["alice", "bob", "carol", "dave", "erin", "frank", "gina"];

describe("suggestions: the blogs your blogs recommend (SQLite, a web of sites on loopback, real syncs)", () => {
  let web: Awaited<ReturnType<typeof startWeb>>;
  let server: TestServer;
  let clock = new Date("2026-03-02T10:00:00Z");
  const blogs = new Map<string, Blog>();
  const site = (name: string) => web.sites.get(name) as Site;
  const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000, concurrency: 4 });
  const sync = () =>
    createSyncRunner({ options, now: () => clock })(server.storage, {
      signal: new AbortController().signal,
      progress: () => undefined,
    });
  const admin = (path: string, init: RequestInit = {}) =>
    server.get(`${server.plugin.mountPath}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers ?? {}) },
    });

  before(async () => {
    web = await startWeb(
      SPECS.map((spec) => ({ ...spec, recommends: "recommends" in spec ? [...spec.recommends] : undefined })),
    );
    // v's site is frank's (another feed of a site already followed); erin's list includes itself and a list that includes it back.
    const v = site("v");
    v.server.route(
      "/feed.xml",
      (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end("<rss/>"),
    );
    const erin = site("erin");
    const erinList = (_request: IncomingMessage, response: ServerResponse) => {
      response
        .writeHead(200, { "content-type": "text/x-opml" })
        .end(
          `<opml version="2.0"><head/><body>${feedOutline("z", site("z").feed, site("z").home)}<outline type="include" url="${erin.url}/blogroll.opml"/><outline type="include" url="${erin.url}/more.opml"/></body></opml>`,
        );
    };
    erin.server.route("/more.opml", (_request, response) => {
      response
        .writeHead(200, { "content-type": "text/x-opml" })
        .end(
          `<opml version="2.0"><head/><body>${feedOutline("y", site("y").feed, site("y").home)}<outline type="include" url="${erin.url}/blogroll.opml"/></body></opml>`,
        );
    });
    // Standalone, the owner's site is the publicUrl option.
    server = await startTestServer("sqlite", { publicUrl: site("me").home });
    erin.server.route(
      "/blogroll.opml",
      ((handler) => (request, response) => {
        if (request.headers["if-none-match"] === '"erin-list"') return void response.writeHead(304).end();
        response.setHeader("etag", '"erin-list"');
        return handler(request, response);
      })(erinList),
    );
    for (const name of FOLLOWED) {
      // As the add form adds them: what discovery knew of the feed stands until its first fetch.
      const { blog } = await server.storage.blogs.upsertFromSource({
        feedUrl: site(name).feed,
        feed: { title: `Blog of ${name}` },
        source: "manual",
      });
      blogs.set(name, blog);
    }
    // Frank's site, as the owner set it, is v's: v is followed by site address.
    await server.storage.blogs.edit(blogs.get("frank")!.id, { siteUrl: site("v").home });
  });
  after(async () => {
    await server.close();
    await web.close();
  });

  it("a sync reads each blog's own blogroll the cheapest way, after its feed, and records where it was found", async () => {
    const stats = await sync();
    assert.equal(stats.blogs.success, FOLLOWED.length);
    const via = async (name: string) =>
      (await server.storage.recommendations.getBlogroll(blogs.get(name)!.id))?.via ?? null;
    assert.equal(await via("alice"), "head");
    assert.equal(await via("bob"), "head", "the Link header, as the icon lookup's page read saw it");
    assert.equal(await via("carol"), "feed");
    assert.equal(await via("dave"), "well-known");
    assert.equal(await via("erin"), "feed");
    assert.equal(await via("frank"), null);
    assert.equal(await via("gina"), null, "a text/html blogroll link is not a blogroll");
    assert.equal(
      (await server.storage.recommendations.getBlogroll(blogs.get("erin")!.id))?.count,
      2,
      "the include loop is cut; its lists are read once",
    );
    assert.equal(site("erin").server.hits("/more.opml"), 1);
    assert.equal(site("gina").server.hits("/blogroll.opml"), 0, "the decoy's page is never fetched as a blogroll");
    assert.equal(
      site("carol").server.hits("/.well-known/recommendations.opml"),
      0,
      "a blog whose feed names its list is not probed",
    );
    assert.ok(stats.blogrolls && stats.blogrolls.requests > 0);
  });

  it("GET {mount}/suggestions answers JSON: at least minRecommenders, not followed (feed or site), most recommended first", async () => {
    const response = await admin("/suggestions", { headers: { accept: "application/json" } });
    assert.equal(response.status, 200);
    const body = await response.json();
    const title = (name: string) => name;
    assert.deepEqual(
      body.items.map((item: { title: string; count: number }) => [item.title, item.count]),
      [
        ["x", 4],
        ["y", 4],
        ["z", 2],
      ],
      "ties by title; the owner's own site (publicUrl) is left out",
    );
    const x = body.items[0];
    assert.deepEqual(Object.keys(x), ["feedUrl", "siteUrl", "title", "count", "recommendedBy"]);
    assert.equal(x.feedUrl, site("x").feed);
    assert.equal(x.siteUrl, site("x").home);
    assert.deepEqual(
      x.recommendedBy.map((by: { title: string }) => by.title),
      ["alice", "bob", "carol", "dave"].map(title),
    );
    assert.deepEqual(Object.keys(x.recommendedBy[0]), ["id", "title"]);
    assert.ok(!body.items.some((item: { title: string }) => item.title === "v"), "v's site is followed (frank)");
    assert.ok(!body.items.some((item: { title: string }) => item.title === "w"), "one recommender is not enough");
    const anonymous = await server.get(`${server.plugin.mountPath}/suggestions`, {
      headers: { accept: "application/json" },
    });
    assert.ok([401, 302, 303].includes(anonymous.status), `anonymous: ${anonymous.status}`);
  });

  it("the owner's own site is never suggested, and a blog that lists it 'recommends you too'", async () => {
    const own = site("me").home;
    const list = await listSuggestions(server.storage, { minRecommenders: 2, ownSite: own });
    assert.deepEqual(
      list.map((item) => item.title),
      ["x", "y", "z"],
    );
    assert.equal((await blogrollOfBlog(server.storage, blogs.get("alice")!.id, own))?.recommendsOwner, true);
    assert.equal((await blogrollOfBlog(server.storage, blogs.get("bob")!.id, own))?.recommendsOwner, false);
    assert.deepEqual(
      (await listSuggestions(server.storage, { minRecommenders: 4, ownSite: own })).map((item) => item.title),
      ["x", "y"],
    );
  });

  it("the Suggestions page adds (with a category) and dismisses, and both are remembered", async () => {
    const page = await admin("/suggestions", { headers: { accept: "text/html" } });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Recommended by 4 of your blogs/);
    assert.ok(html.indexOf(">x<") < html.indexOf(">y<"));
    const add = await admin("/suggestions/add", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ feedUrl: site("x").feed, category: "Found" }),
      redirect: "manual",
    });
    assert.equal(add.status, 303);
    assert.match(add.headers.get("location") ?? "", /notice=suggestionAdded/);
    const added = await server.storage.blogs.getByFeedUrl(site("x").feed);
    assert.equal(added?.category, "Found");
    assert.equal(added?.siteUrl, site("x").home);
    const dismiss = await admin("/suggestions/dismiss", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ feedUrl: site("y").feed }),
      redirect: "manual",
    });
    assert.equal(dismiss.status, 303);
    const unknown = await admin("/suggestions/add", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ feedUrl: "https://not-suggested.example/feed" }),
      redirect: "manual",
    });
    assert.match(unknown.headers.get("location") ?? "", /notice=suggestionGone/);
    assert.equal(await server.storage.blogs.getByFeedUrl("https://not-suggested.example/feed"), null);
    const after = await (await admin("/suggestions", { headers: { accept: "application/json" } })).json();
    assert.deepEqual(
      after.items.map((item: { title: string }) => item.title),
      ["z"],
    );
    assert.ok(
      !(await (await server.get(`${server.api}/blogs`)).text()).includes(site("y").feed),
      "nothing suggested reaches the public API",
    );
  });

  it("the blog's admin page shows its blogroll: where, how many blogs", async () => {
    const response = await admin(`/blogs/${blogs.get("dave")!.id}`, { headers: { accept: "text/html" } });
    const html = await response.text();
    assert.match(html, /Its blogroll/);
    // Where it was found, as a link (its text free to wrap after each "/").
    assert.ok(
      html
        .replaceAll("<wbr>", "")
        .includes(`<a class="blogroll-url" href="${site("dave").blogroll}">${site("dave").blogroll}</a>`),
      "where it was found, as a link",
    );
    assert.match(html, /at \/\.well-known\/recommendations\.opml/, "how it was found, in words");
    assert.match(html, /Blogs it lists/);
    const alice = await (await admin(`/blogs/${blogs.get("alice")!.id}`, { headers: { accept: "text/html" } })).text();
    assert.match(alice, /Recommends you too/);
    assert.doesNotMatch(html, /Recommends you too/);
    const frank = await (await admin(`/blogs/${blogs.get("frank")!.id}`, { headers: { accept: "text/html" } })).text();
    assert.match(frank, /announces no blogroll/);
  });

  it("a week later the lists are asked again conditionally (304), at most one request per blog", async () => {
    for (const spec of SPECS) site(spec.name).server.reset();
    clock = new Date(clock.getTime() + 60 * 60_000);
    const soon = await sync();
    assert.equal(soon.blogrolls?.requests, 1, "within the week only the blog added from the suggestions is looked at");
    assert.equal(site("x").server.hits("/.well-known/recommendations.opml"), 1);
    clock = new Date(clock.getTime() + BLOGROLL_RECHECK);
    const later = await sync();
    assert.ok(
      (later.blogrolls?.requests ?? 0) <= FOLLOWED.length + 1,
      `${later.blogrolls?.requests} requests for ${FOLLOWED.length + 1} blogs`,
    );
    assert.equal(site("alice").server.hits("/blogroll.opml"), 1);
    assert.equal(site("alice").server.lastHeaders("/blogroll.opml")?.["if-none-match"], '"alice-opml"');
    assert.equal(
      site("v").server.hits("/.well-known/recommendations.opml"),
      1,
      "frank's site (as the owner set it) is asked once",
    );
    assert.equal(site("gina").server.hits("/.well-known/recommendations.opml"), 1);
  });

  it("a suggestion shows one recommender's outline, never a mix; Add makes the owner its origin, and the first fetch brings the feed's own title and link", async () => {
    const alice = blogs.get("alice")!;
    const record = (await server.storage.recommendations.getBlogroll(alice.id))!;
    const entries = await server.storage.recommendations.entries(alice.id);
    // Alice (followed first) names w her own way; bob's outline of w is w's own.
    const alicesW = {
      feedUrl: site("w").feed,
      siteUrl: "https://elsewhere.example/",
      title: "Dubya",
      description: "Alice's words",
    };
    await server.storage.recommendations.saveBlogroll(record, [...entries, alicesW]);
    const w = (await listSuggestions(server.storage, { minRecommenders: 2, ownSite: site("me").home })).find(
      (item) => item.feedUrl === site("w").feed,
    );
    assert.ok(w);
    assert.deepEqual(
      [w.title, w.siteUrl, w.description, w.count],
      ["Dubya", "https://elsewhere.example/", "Alice's words", 2],
      "no two agree on a title: the first recommender's outline, whole",
    );

    const add = await admin("/suggestions/add", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ feedUrl: site("w").feed }),
      redirect: "manual",
    });
    assert.match(add.headers.get("location") ?? "", /notice=suggestionAdded/);
    const added = (await server.storage.blogs.getByFeedUrl(site("w").feed))!;
    assert.deepEqual(
      added.origins.map((origin) => [origin.id, origin.kind, origin.values]),
      [[OWNER_ORIGIN, "manual", {}]],
      "the owner lists it",
    );
    assert.deepEqual(
      [added.title, added.siteUrl, added.ownerEdited],
      ["Dubya", "https://elsewhere.example/", []],
      "the outline stands for the feed until it is fetched",
    );
    await sync();
    const fetched = (await server.storage.blogs.get(added.id))!;
    assert.deepEqual(
      [fetched.title, fetched.siteUrl, fetched.description],
      ["w", site("w").home, "w writes"],
      "the feed's own title, link and description",
    );
  });
});

describe("suggestions: the one outline a suggestion shows", () => {
  const outline = (blogId: string, title: string | null) => ({
    blogId,
    feedUrl: "https://f.example/feed",
    siteUrl: `https://${blogId}.example/`,
    title,
    description: `${blogId}'s words`,
  });
  it("is the one with the title most recommenders give, else the first recommender's", () => {
    assert.equal(
      chosenOutline([outline("a", "One"), outline("b", "Two"), outline("c", "Two")]).blogId,
      "b",
      "the most common title, first given by b",
    );
    assert.equal(
      chosenOutline([outline("a", "One"), outline("b", "Two"), outline("c", "Three")]).blogId,
      "a",
      "no two agree: the first recommender's",
    );
    assert.equal(
      chosenOutline([outline("a", null), outline("b", "Two"), outline("c", " Two ")]).blogId,
      "b",
      "titles compared trimmed; none is no title",
    );
    assert.equal(
      chosenOutline([outline("a", "One"), outline("b", "Two"), outline("c", "Two"), outline("d", "One")]).blogId,
      "a",
      "a tie goes to the title given first",
    );
    assert.equal(chosenOutline([outline("a", null), outline("b", null)]).blogId, "a");
  });
});
