import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { discoverFeeds } from "../../lib/discovery/discover.js";
import { blogrollsOfHead, blogrollsOfLinkHeader, parseLinkHeader } from "../../lib/network/announce.js";
import { findBlogroll } from "../../lib/network/find-blogroll.js";
import { resolveOptions } from "../../lib/options.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { startWeb, type Site } from "./web.js";

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });
after(() => closeParsePool());

describe("Link header and head links that announce a blogroll", () => {
  it("reads RFC 8288 headers: quoted commas and semicolons, several rels, relative targets, no type", () => {
    const header = `<https://a.example/hub>; rel="hub", </list.opml>; rel="blogroll alternate"; title="Mine, all; mine", <feed.xml>; rel=alternate; type="application/rss+xml"`;
    const links = parseLinkHeader(header);
    assert.deepEqual(
      links.map((link) => link.target),
      ["https://a.example/hub", "/list.opml", "feed.xml"],
    );
    assert.equal(links[1].params.get("title"), "Mine, all; mine");
    assert.deepEqual(blogrollsOfLinkHeader(header, "https://site.example/about/"), [
      { url: "https://site.example/list.opml", title: "Mine, all; mine" },
    ]);
  });

  it("takes OPML types and none, never text/html, and skips broken headers", () => {
    const base = "https://s.example/";
    for (const type of [
      "text/xml",
      "application/xml",
      "text/x-opml",
      "application/opml+xml",
      "TEXT/XML; charset=utf-8",
    ]) {
      assert.equal(blogrollsOfLinkHeader(`</b.opml>; rel="blogroll"; type="${type}"`, base).length, 1, type);
    }
    assert.equal(blogrollsOfLinkHeader(`</b.opml>; rel="blogroll"`, base).length, 1);
    assert.deepEqual(blogrollsOfLinkHeader(`</blogroll>; rel="blogroll"; type="text/html"`, base), []);
    assert.deepEqual(blogrollsOfLinkHeader(`<javascript:alert(1)>; rel="blogroll"`, base), []);
    assert.deepEqual(blogrollsOfLinkHeader(`garbage <unclosed; rel="blogroll"`, base), []);
    const head = blogrollsOfHead([
      { href: "https://s.example/page", rel: ["blogroll"], type: "text/html", title: "page" },
      { href: "https://s.example/b.opml", rel: ["blogroll"], type: "text/x-opml", title: "list" },
      { href: "https://s.example/feed", rel: ["alternate"], type: "application/rss+xml", title: null },
    ]);
    assert.deepEqual(head, [{ url: "https://s.example/b.opml", title: "list" }]);
  });

  it("a Link header with thousands of links is read only in part, quickly", () => {
    const header = Array.from({ length: 5000 }, (_, index) => `</l${index}.opml>; rel="blogroll"`).join(", ");
    assert.equal(parseLinkHeader(header).length, 64);
  });
});

describe("findBlogroll and /api/discover on a web of sites on loopback (each way, and decoys)", () => {
  let web: Awaited<ReturnType<typeof startWeb>>;
  const site = (name: string) => web.sites.get(name) as Site;
  before(async () => {
    web = await startWeb([
      { name: "header", announce: "link-header", recommends: ["head"] },
      { name: "head", announce: "head", recommends: ["header"] },
      { name: "feed", announce: "feed", recommends: ["head"] },
      { name: "blogchannel", announce: "blogchannel", recommends: ["head"] },
      { name: "wellknown", announce: "well-known", recommends: ["head"] },
      { name: "decoy", announce: "html-decoy", recommends: ["head"] },
      { name: "none", announce: "none" },
    ]);
  });
  after(() => web.close());

  it("finds each convention's blogroll, cheapest first, and says how", async () => {
    for (const [name, via] of [
      ["header", "link-header"],
      ["head", "head"],
      ["feed", "feed"],
      ["blogchannel", "feed"],
      ["wellknown", "well-known"],
    ] as const) {
      const found = await findBlogroll(site(name).home, options);
      assert.ok(found.ok, `${name}: ${found.ok ? "" : found.error}`);
      assert.equal(found.blogroll.url, site(name).blogroll, name);
      assert.equal(found.blogroll.via, via, name);
    }
  });

  it("a text/html blogroll link and a 404 well-known path are no blogroll; the host address alone works too", async () => {
    for (const name of ["decoy", "none"]) {
      const found = await findBlogroll(site(name).home, options);
      assert.deepEqual(found, { ok: false, error: "This site announces no blogroll" }, name);
      assert.equal(
        site(name).server.hits("/.well-known/recommendations.opml"),
        1,
        `${name} asked the well-known path once`,
      );
    }
    const bare = await findBlogroll(site("head").home.replace(/^http:\/\//, "http://"), options);
    assert.ok(bare.ok);
  });

  it("the page is never fetched beyond four requests, whatever the site answers", async () => {
    const none = site("none");
    none.server.reset();
    await findBlogroll(none.home, options);
    const total = ["/", "/feed.xml", "/.well-known/recommendations.opml"].reduce(
      (sum, path) => sum + none.server.hits(path),
      0,
    );
    assert.equal(total, 3);
  });

  it("/api/discover's result names the blogrolls a page announces beside its feeds", async () => {
    const header = await discoverFeeds(site("header").home, options);
    assert.ok(header.success);
    assert.deepEqual(header.blogrolls, [{ url: site("header").blogroll, title: "header's blogroll" }]);
    assert.equal(header.feeds[0].url, site("header").feed);
    const head = await discoverFeeds(site("head").home, options);
    assert.ok(head.success);
    assert.deepEqual(head.blogrolls, [{ url: site("head").blogroll, title: "head's blogroll" }]);
    const feed = await discoverFeeds(site("feed").feed, options);
    assert.ok(feed.success);
    assert.deepEqual(feed.blogrolls, [{ url: site("feed").blogroll, title: null }]);
    const decoy = await discoverFeeds(site("decoy").home, options);
    assert.ok(decoy.success);
    assert.deepEqual(decoy.blogrolls, []);
  });
});

describe("findBlogroll at an address typed without a scheme", () => {
  it("asks https:// and names that address when it fails (the address as typed is not repeated)", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise((resolve) => server.close(resolve));
    assert.deepEqual(await findBlogroll(host, options), {
      ok: false,
      error: `Could not connect to the site (tried https://${host}/)`,
    });
    assert.deepEqual(await findBlogroll(`http://${host}/`, options), {
      ok: false,
      error: "Could not connect to the site",
    });
  });
});
