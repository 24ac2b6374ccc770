import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mf2 } from "microformats-parser";
import {
  describeBackend,
  httpBackends,
  installMicrosubCollections,
  startTestServer,
  type TestServer,
} from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";
import type { Blog } from "../../lib/storage/types.js";
import { HOUR } from "../../lib/time/durations.js";
import { eventually } from "../support/eventually.js";

type Mf = { type: string[]; properties: Record<string, unknown[]>; children?: Mf[] };

/** Records a fetch whose feed showed a post at `at` (what keeps lastPostAt once the items expire). */
async function lastPostSeen(server: TestServer, blog: Blog, at: Date) {
  await server.storage.blogs.recordFetch(blog.id, {
    at: new Date(),
    status: "active",
    nextFetchAt: null,
    failureCount: 0,
    schedule: { recentPosts: [at], fetchInterval: null, fetchReason: "schedule", waitUntil: null },
  });
}

/** The h-cards a microformats2 parser finds, and the text of their names. */
function cards(html: string, baseUrl: string): Mf[] {
  return (mf2(html, { baseUrl }).items as Mf[]).filter((found) => found.type.includes("h-card"));
}
const names = (found: Mf[]) => found.map((card) => card.properties.name[0]);

for (const backend of httpBackends()) {
  describe(`blogroll page, fragment and JSON on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let mount: string;
    const now = Date.now();
    const ids: Record<string, string> = {};

    before(async () => {
      server = await startTestServer(backend, { ownerName: "Ada Lovelace" });
      mount = `${server.baseUrl}${server.plugin.mountPath}`;
      const s = server.storage;
      const blog2 = await addBlog(s, {
        title: "Blog 2",
        category: "Friends",
        siteUrl: "https://two.example/",
        photo: "https://two.example/icon.png",
      });
      const blog10 = await addBlog(s, {
        title: "Blog 10",
        category: "Friends",
        siteUrl: "https://ten.example/",
        feedType: "atom",
      });
      const pinned = await addBlog(s, {
        title: "Zulu",
        category: "Friends",
        pinned: true,
        feedUrl: "https://zulu.example/feed.json",
        feedType: "json",
      });
      const dormant = await addBlog(s, { title: "Dormant", category: "Tech", siteUrl: "https://dormant.example/" });
      const other = await addBlog(s, { title: "alpha", siteUrl: "https://alpha.example/" });
      await addBlog(s, { title: "Hidden", category: "Friends", hidden: true });
      await addBlog(s, { title: "Deleted", category: "Friends", deleted: true });
      Object.assign(ids, {
        blog2: blog2.id,
        blog10: blog10.id,
        pinned: pinned.id,
        dormant: dormant.id,
        other: other.id,
      });
      await addItems(
        s,
        blog2.id,
        [1, 2, 3, 4, 5, 6].map((n) =>
          item(`two${n}`, new Date(now - n * 2 * HOUR), { url: `https://two.example/${n}` }),
        ),
      );
      await addItems(s, blog10.id, [item("ten1", new Date(now - HOUR), { url: `https://ten.example/1` })]);
      await addItems(s, other.id, [item("alpha1", daysAgo(40, now), { url: `https://alpha.example/1` })]);
      await lastPostSeen(server, dormant, daysAgo(150, now));
      // What the owner says about two of them.
      await s.blogs.edit(blog2.id, {
        relationship: ["friend", "met"],
        note: "Writes about <b>tea</b> & trains",
        fediverse: "@two@social.example",
        fediverseUrl: "https://social.example/@two",
      });
      await s.blogs.edit(blog10.id, { fediverse: "@ten@quiet.example" });
    });
    after(() => server.close());

    const get = (path: string, init?: RequestInit) => server.get(`${mount}${path}`, init);

    it("GET /blogroll is a complete page: title from ownerName, the OPML as its blogroll, the rivers as alternates and links", async () => {
      const response = await get("/blogroll");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      const html = await response.text();
      assert.match(html, /^<!DOCTYPE html>\n<html lang="en">/);
      assert.match(html, /<title>Ada Lovelace’s blogroll<\/title>/);
      assert.match(html, /<h1>Ada Lovelace’s blogroll<\/h1>/);
      assert.ok(
        html.includes(`<link rel="blogroll" type="text/xml" title="Ada Lovelace’s blogroll" href="${mount}/api/opml">`),
      );
      for (const [type, path] of [
        ["application/atom+xml", "river.atom"],
        ["application/feed+json", "river.json"],
        ["application/rss+xml", "river.rss"],
      ]) {
        assert.ok(
          html.includes(`<link rel="alternate" type="${type}"`) && html.includes(`href="${mount}/${path}"`),
          path,
        );
        assert.ok(html.includes(`<a href="${mount}/${path}" type="${type}">`), `a link to ${path}`);
      }
      assert.equal(html.match(/<script/g), null, "no script");
      assert.match(
        response.headers.get("content-security-policy") ?? "",
        /^default-src 'none'; .*; style-src 'sha256-[^']+'$/,
      );
      assert.equal(response.headers.get("link"), `<${mount}/api/opml>; rel="blogroll"; type="text/xml"`);
    });

    it("GET /blogroll/embed is the same list as a fragment: no document, no script, no style", async () => {
      const page = await (await get("/blogroll")).text();
      const response = await get("/blogroll/embed");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      const fragment = await response.text();
      assert.doesNotMatch(fragment, /<html|<head|<body|<script|<style|<link|style=/i);
      assert.ok(page.includes(fragment), "the page holds the fragment as it is");
      assert.equal(
        response.headers.get("content-security-policy"),
        "default-src 'none'; img-src http: https: data:; base-uri 'none'; form-action 'none'",
        "opened on its own, nothing runs either",
      );
    });

    it("lists every visible blog once as an h-card, pinned first in its group, then in natural title order; hidden and deleted blogs never", async () => {
      const found = cards(await (await get("/blogroll/embed")).text(), mount);
      assert.deepEqual(names(found), ["Zulu", "Blog 2", "Blog 10", "Dormant", "alpha"]);
      const html = await (await get("/blogroll/embed")).text();
      assert.deepEqual(
        [...html.matchAll(/<h2 class="blogroll__heading">([^<]*)<\/h2>/g)].map((m) => m[1]),
        ["Friends", "Tech", "Other blogs"],
      );
      assert.equal(html.match(/<ul class="blogroll__list blogroll__blogs">/g)?.length, 3, "each group one list");
      assert.doesNotMatch(html, /Hidden|Deleted/);
    });

    it("each h-card has its name and site (the feed without one), its icon, its feed as rel=alternate with the feed's type, and its latest post as an h-entry", async () => {
      const html = await (await get("/blogroll/embed")).text();
      const byName = new Map(cards(html, mount).map((card) => [card.properties.name[0], card]));
      const blog2 = byName.get("Blog 2") as Mf;
      assert.deepEqual(
        blog2.properties.url,
        ["https://two.example/", "https://social.example/@two"],
        "its site, then its fediverse profile",
      );
      assert.deepEqual(blog2.properties.photo, ["https://two.example/icon.png"]);
      assert.equal(blog2.children?.length, 1, "latest=1: one h-entry");
      const entry = blog2.children?.[0] as Mf;
      assert.deepEqual(entry.type, ["h-entry"]);
      assert.deepEqual(entry.properties.url, ["https://two.example/1"]);
      assert.deepEqual(entry.properties.name, ["Post two1"]);
      assert.deepEqual(entry.properties.published, [new Date(now - 2 * HOUR).toISOString()]);
      assert.deepEqual(
        (byName.get("Zulu") as Mf).properties.url,
        ["https://zulu.example/feed.json"],
        "no site: the feed",
      );
      assert.equal((byName.get("Zulu") as Mf).properties.photo, undefined, "no icon, no u-photo");
      assert.ok(
        html.includes(
          `<a class="blogroll__feed" href="https://zulu.example/feed.json" rel="alternate" type="application/feed+json">`,
        ),
      );
      assert.ok(html.includes(`rel="alternate" type="application/atom+xml"`), "Blog 10's Atom feed");
      // Human dates: relative in the last 30 days, the day before that; the ISO date in datetime either way.
      assert.ok(html.includes(`datetime="${new Date(now - 2 * HOUR).toISOString()}"`));
      assert.match(html, />2 hours ago<\/time>/);
      assert.match(
        html,
        new RegExp(
          `>${new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }).format(daysAgo(40, now))}</time>`,
        ),
      );
    });

    it("what the owner says about a blog: XFN values on the link to it, the note as p-note, the fediverse profile as a second u-url", async () => {
      const html = await (await get("/blogroll/embed")).text();
      const parsed = mf2(html, { baseUrl: mount });
      const byName = new Map(cards(html, mount).map((card) => [card.properties.name[0], card]));
      const blog2 = byName.get("Blog 2") as Mf;
      assert.deepEqual(blog2.properties.url, ["https://two.example/", "https://social.example/@two"]);
      assert.deepEqual(blog2.properties.note, ["Writes about <b>tea</b> & trains"], "the note as text");
      assert.deepEqual(parsed.rels.friend, ["https://two.example/"]);
      assert.deepEqual(parsed.rels.met, ["https://two.example/"]);
      assert.ok(
        html.includes(`<a class="blogroll__name p-name u-url" href="https://two.example/" rel="friend met">Blog 2</a>`),
      );
      const blog10 = byName.get("Blog 10") as Mf;
      assert.deepEqual(
        blog10.properties.url,
        ["https://ten.example/"],
        "a handle without a profile page is no address",
      );
      assert.ok(html.includes(`<span class="blogroll__fediverse">@ten@quiet.example</span>`));
      assert.equal(blog10.properties.note, undefined);
      const json = await (await get("/blogroll.json")).json();
      const blog = json.groups[0].blogs.find((entry: { title: string }) => entry.title === "Blog 2");
      assert.deepEqual(
        [blog.relationship, blog.note, blog.fediverse, blog.fediverseUrl],
        [["friend", "met"], "Writes about <b>tea</b> & trains", "@two@social.example", "https://social.example/@two"],
      );
    });

    it("a blog whose posts have expired shows the age of the last post its feed showed", async () => {
      const html = await (await get("/blogroll/embed")).text();
      const dormant = html.split("\n").find((line) => line.includes(">Dormant<")) as string;
      assert.match(
        dormant,
        /<span class="blogroll__latest">Last post <time class="blogroll__date" datetime="[^"]+" title="[^"]+">5 months ago<\/time><\/span>/,
      );
      assert.doesNotMatch(dormant, /h-entry/);
    });

    it("latest=3 nests three h-entries per blog (as far as it has posts); latest=0 none", async () => {
      const three = cards(await (await get("/blogroll/embed?latest=3")).text(), mount);
      assert.deepEqual(
        three.map((card) => card.children?.length ?? 0),
        [0, 3, 1, 0, 1],
      );
      assert.deepEqual(
        (three[1].children ?? []).map((entry) => entry.properties.name[0]),
        ["Post two1", "Post two2", "Post two3"],
      );
      const none = cards(await (await get("/blogroll/embed?latest=0")).text(), mount);
      assert.equal(none.length, 5);
      assert.ok(
        none.every((card) => !card.children),
        "no h-entry",
      );
      const clamped = cards(await (await get("/blogroll/embed?latest=9")).text(), mount);
      assert.equal(clamped[1].children?.length, 5, "latest above 5 is 5");
    });

    it("sort=recent puts the blog with the newest post first (pinned still lead); group=none makes one list", async () => {
      const html = await (await get("/blogroll/embed?sort=recent&group=none")).text();
      assert.doesNotMatch(html, /class="blogroll__heading"/);
      assert.equal(html.match(/<ul class="blogroll__list blogroll__blogs">/g)?.length, 1);
      assert.deepEqual(names(cards(html, mount)), ["Zulu", "Blog 10", "Blog 2", "alpha", "Dormant"]);
    });

    it("activeWithin leaves out blogs without a post for that many days", async () => {
      assert.deepEqual(names(cards(await (await get("/blogroll/embed?activeWithin=30")).text(), mount)), [
        "Blog 2",
        "Blog 10",
      ]);
      assert.deepEqual(names(cards(await (await get("/blogroll/embed?activeWithin=60")).text(), mount)), [
        "Blog 2",
        "Blog 10",
        "alpha",
      ]);
    });

    it("category shows one category without headings; the page's links name its OPML and rivers", async () => {
      const html = await (await get("/blogroll?category=Tech")).text();
      assert.deepEqual(names(cards(html, mount)), ["Dormant"]);
      assert.doesNotMatch(html, /class="blogroll__heading"/);
      assert.ok(html.includes(`href="${mount}/api/opml/Tech"`));
      assert.ok(html.includes(`href="${mount}/river.atom?category=Tech"`));
      assert.match(html, /<title>Ada Lovelace’s blogroll – Tech<\/title>/);
    });

    it("headingLevel sets the fragment's heading level", async () => {
      assert.match(
        await (await get("/blogroll/embed?headingLevel=3")).text(),
        /<h3 class="blogroll__heading">Friends<\/h3>/,
      );
    });

    it("GET /blogroll.json has the same blogs in the page's order and groups, with their latest posts", async () => {
      const response = await get("/blogroll.json?latest=2");
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
      const body = await response.json();
      assert.equal(body.title, "Ada Lovelace’s blogroll");
      assert.deepEqual(body.owner, { name: "Ada Lovelace", url: null });
      assert.equal(body.links.opml, `${mount}/api/opml`);
      assert.equal(body.links.rss, `${mount}/river.rss`);
      assert.equal(body.links.page, `${mount}/blogroll?latest=2`);
      assert.equal(body.links.embed, `${mount}/blogroll/embed?latest=2`);
      assert.deepEqual(
        body.groups.map((group: { category: string | null }) => group.category),
        ["Friends", "Tech", null],
      );
      const blogs = body.groups.flatMap((group: { blogs: unknown[] }) => group.blogs);
      assert.deepEqual(
        blogs.map((blog: { title: string }) => blog.title),
        ["Zulu", "Blog 2", "Blog 10", "Dormant", "alpha"],
      );
      const blog2 = blogs[1];
      assert.equal(blog2.id, ids.blog2);
      assert.equal(blog2.siteUrl, "https://two.example/");
      assert.deepEqual(
        blog2.posts.map((post: { title: string }) => post.title),
        ["Post two1", "Post two2"],
      );
      assert.equal(blog2.posts[0].published, new Date(now - 2 * HOUR).toISOString());
      assert.equal(blog2.lastPostAt, new Date(now - 2 * HOUR).toISOString());
      assert.equal(blogs[3].lastPostAt, daysAgo(150, now).toISOString(), "a dormant blog's last post");
      assert.deepEqual(blogs[3].posts, []);
      const flat = await (await get("/blogroll.json?group=none")).json();
      assert.equal(flat.groups.length, 1);
      assert.equal(flat.groups[0].category, null);
    });

    it("answers with the API's CORS, Cache-Control and a strong ETag; If-None-Match and If-Modified-Since get 304", async () => {
      for (const path of ["/blogroll", "/blogroll/embed", "/blogroll.json"]) {
        const first = await get(path);
        await first.arrayBuffer();
        assert.equal(first.headers.get("access-control-allow-origin"), "*", path);
        assert.equal(first.headers.get("cache-control"), "public, max-age=300", path);
        assert.equal(first.headers.get("x-content-type-options"), "nosniff", path);
        const etag = first.headers.get("etag") as string;
        assert.match(etag, /^"[^"]+"$/, path);
        const lastModified = first.headers.get("last-modified") as string;
        assert.ok(Number.isFinite(Date.parse(lastModified)), path);
        const byTag = await get(path, { headers: { "If-None-Match": etag } });
        assert.equal(byTag.status, 304, path);
        assert.equal(await byTag.text(), "");
        const byDate = await get(path, { headers: { "If-Modified-Since": lastModified } });
        assert.equal(byDate.status, 304, path);
        const preflight = await get(path, { method: "OPTIONS" });
        assert.equal(preflight.status, 204, path);
      }
    });

    it("bad parameters are answered as the API answers them", async () => {
      const cases: Array<[string, number, string]> = [
        ["?sort=newest", 400, "Invalid sort"],
        ["?group=source", 400, "Invalid group"],
        ["?latest=two", 400, "Invalid latest"],
        ["?latest=-1", 400, "Invalid latest"],
        ["?activeWithin=0", 400, "Invalid activeWithin"],
        ["?activeWithin=1.5", 400, "Invalid activeWithin"],
        ["?headingLevel=7", 400, "Invalid headingLevel"],
        ["?category=a&category=b", 400, "Invalid category"],
        ["?category=Nowhere", 404, "Category not found"],
      ];
      for (const path of ["/blogroll", "/blogroll/embed", "/blogroll.json"]) {
        for (const [query, status, error] of cases) {
          const response = await get(`${path}${query}`);
          assert.equal(response.status, status, `${path}${query}`);
          assert.deepEqual(await response.json(), { error }, `${path}${query}`);
          assert.equal(response.headers.get("access-control-allow-origin"), "*");
        }
      }
    });

    it("after a stored post, each answer is the kept body with its ETag or the new one with a new ETag and a later Last-Modified; then the new one", async () => {
      const before = await get("/blogroll/embed");
      const oldEtag = before.headers.get("etag") as string;
      assert.doesNotMatch(await before.text(), /Fresh post/);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // Last-Modified has whole seconds
      await addItems(server.storage, ids.dormant, [item("fresh", new Date(), { title: "Fresh post" })]);
      const after = await eventually("the page rebuilt with the new post", async () => {
        const plain = await get("/blogroll/embed");
        const fresh = /Fresh post/.test(await plain.text());
        assert.equal(plain.headers.get("etag") !== oldEtag, fresh, "the ETag describes the body it came with");
        const revalidated = await get("/blogroll/embed", { headers: { "If-None-Match": oldEtag } });
        const body = await revalidated.text();
        if (revalidated.status === 304) {
          // Only while the kept body is still served: a new body, once served, is never replaced by the old.
          assert.equal(fresh, false, "no 304 for the old ETag after the new body was served");
          assert.equal(revalidated.headers.get("etag"), oldEtag);
          return undefined;
        }
        assert.equal(revalidated.status, 200);
        assert.match(body, /Fresh post/, "a 200 to the old ETag is the new body");
        return fresh ? plain : undefined;
      });
      assert.notEqual(after.headers.get("etag"), oldEtag);
      assert.ok(
        Date.parse(after.headers.get("last-modified") as string) >
          Date.parse(before.headers.get("last-modified") as string),
      );
      const again = await get("/blogroll/embed", { headers: { "If-None-Match": oldEtag } });
      assert.equal(again.status, 200, "once rebuilt, the old ETag is never current again");
      assert.match(await again.text(), /Fresh post/);
      const byDate = await get("/blogroll/embed", {
        headers: { "If-Modified-Since": before.headers.get("last-modified") as string },
      });
      assert.equal(byDate.status, 200, "the older date is not current");
      await byDate.arrayBuffer();
    });

    it("escapes every title, name and note as text; a javascript: address is no link; the page allows no script", async () => {
      const evil = await addBlog(server.storage, {
        title: `<img src=x onerror="alert(1)">Evil & Co`,
        category: "Hostile",
        siteUrl: "javascript:alert(1)",
      });
      await server.storage.blogs.edit(evil.id, { note: `</p><script>alert(2)</script>` });
      await addItems(server.storage, evil.id, [
        item("evil", new Date(), { title: `<script>alert(3)</script>`, url: "javascript:alert(4)" }),
      ]);
      const html = await (await get("/blogroll?category=Hostile")).text();
      assert.doesNotMatch(html, /<script|<img src=x|href="javascript:/i);
      assert.ok(html.includes("&#60;img src=x onerror=&#34;alert(1)&#34;&#62;Evil &#38; Co"));
      assert.ok(html.includes(`<span class="blogroll__post p-name">&#60;script&#62;alert(3)&#60;/script&#62;</span>`));
      const [card] = cards(html, mount);
      assert.deepEqual(card.properties.name, [`<img src=x onerror="alert(1)">Evil & Co`]);
      assert.deepEqual(card.properties.note, [`</p><script>alert(2)</script>`]);
      assert.deepEqual(card.properties.url, [evil.feedUrl], "the feed, not the javascript: site");
    });

    it("standalone, the home page is this page", async () => {
      const home = await server.get(`${server.baseUrl}/`);
      assert.equal(home.status, 200);
      const html = await home.text();
      assert.match(html, /<title>Ada Lovelace’s blogroll<\/title>/);
      assert.deepEqual(html, await (await get("/blogroll")).text(), "the same page");
    });

    if (backend !== "sqlite") {
      it("a Microsub blog's latest posts come from the Microsub plugin", async () => {
        const microsub = installMicrosubCollections(server);
        const { ObjectId } = await import("mongodb");
        const feedId = new ObjectId();
        await microsub.items.insertOne({
          _id: new ObjectId(),
          feedId,
          channelId: new ObjectId(),
          uid: "m1",
          url: "https://micro.example/1",
          name: "From Microsub",
          published: new Date(now - 3 * HOUR),
          category: [],
          photo: [],
        });
        await addBlog(server.storage, {
          title: "Micro",
          category: "Friends",
          source: "microsub",
          microsubFeedId: feedId.toHexString(),
          microsubChannelName: "Friends",
        });
        const micro = await eventually("the Microsub blog on the page", async () =>
          cards(await (await get("/blogroll/embed")).text(), mount).find((card) => card.properties.name[0] === "Micro"),
        );
        assert.deepEqual(
          micro.children?.map((entry) => entry.properties.name[0]),
          ["From Microsub"],
        );
      });
    }
  });
}
