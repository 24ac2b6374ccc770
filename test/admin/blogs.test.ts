import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ADMIN_TOKEN, type TestServer } from "../support/server.js";
import { feedLabel } from "../../lib/admin/blog-new.js";
import { LIMITS } from "../../lib/admin/blog-limits.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { OWNER_ORIGIN } from "../../lib/storage/types.js";
import { summaryErrors, useAdminFixture, type AdminSession } from "./admin-session.js";
import type { FixtureSite } from "./fixture-site.js";

after(() => closeParsePool());

/** The maxlength of the field with this id (input or textarea), or null when it has none. */
function maxLength(html: string, id: string): number | null {
  const field = new RegExp(`<(?:input|textarea)\\b[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0];
  assert.ok(field, `a field #${id}`);
  const value = /\bmaxlength="(\d+)"/.exec(field)?.[1];
  return value === undefined ? null : Number(value);
}

/** Titles of the blogs the list page shows, in order. */
function listedTitles(html: string): string[] {
  return [...html.matchAll(/<th scope="row">[\s\S]*?<a href="[^"]*\/blogs\/[0-9a-f]{24}">([^<]+)<\/a>/g)].map(
    (match) => match[1],
  );
}

describe("admin: blogs pages and forms (standalone host, SQLite)", () => {
  let server: TestServer;
  let site: FixtureSite;
  let admin: AdminSession;
  let blogs: string;

  useAdminFixture((fixture) => {
    ({ server, site, admin } = fixture);
    blogs = `${server.plugin.mountPath}/blogs`;
  });

  it("lists blogs with search and filters by category, source and status, paged", async () => {
    const source = await server.storage.sources.create({
      type: "opml_url",
      name: "Friends list",
      settings: { url: "https://lists.example/x.opml" },
    });
    await server.storage.blogs.upsertFromSource({
      feedUrl: "https://friend.example/feed",
      title: "Friendly Blog",
      category: "Friends",
      source: "opml",
      sourceId: source.id,
    });
    await addBlog(server.storage, { title: "Hidden Gem", category: "Tech", hidden: true });
    const broken = await addBlog(server.storage, { title: "Broken Feed", category: "Tech" });
    await server.storage.blogs.recordFetch(broken.id, {
      at: new Date(),
      status: "error",
      error: "HTTP 500",
      nextFetchAt: null,
      failureCount: 1,
    });
    for (let index = 0; index < 52; index++)
      await addBlog(server.storage, { title: `Filler ${String(index).padStart(2, "0")}`, category: "Filler" });

    const all = await admin.page(blogs);
    assert.equal(all.status, 200);
    assert.equal(listedTitles(all.html).length, 50, "50 a page");
    assert.match(all.html, /1–50 of 55 blogs/);
    assert.match(all.html, /aria-current="page">1</);
    const second = await admin.page(`${blogs}?page=2`);
    assert.equal(listedTitles(second.html).length, 5);

    assert.deepEqual(listedTitles((await admin.page(`${blogs}?q=gem`)).html), ["Hidden Gem"]);
    assert.deepEqual(
      listedTitles((await admin.page(`${blogs}?q=friend.example`)).html),
      ["Friendly Blog"],
      "search by URL",
    );
    assert.deepEqual(listedTitles((await admin.page(`${blogs}?category=Friends`)).html), ["Friendly Blog"]);
    assert.deepEqual(listedTitles((await admin.page(`${blogs}?source=${source.id}`)).html), ["Friendly Blog"]);
    assert.deepEqual(listedTitles((await admin.page(`${blogs}?status=hidden`)).html), ["Hidden Gem"]);
    const errors = await admin.page(`${blogs}?status=error`);
    assert.deepEqual(listedTitles(errors.html), ["Broken Feed"]);
    assert.match(errors.html, /<option value="error" selected>/, "the filter keeps its value");
    const none = await admin.page(`${blogs}?q=zzzz`);
    assert.match(none.html, /No blog matches these filters/);
    assert.equal((await admin.page(`${blogs}?status=bogus&page=-3`)).status, 200, "malformed filters are ignored");
  });

  it("shows each blog's picture or letter, description, who lists it, latest post (untitled ones by their text) and linked address; filters the owner's blogs", async () => {
    const first = await server.storage.sources.create({
      type: "opml_url",
      name: "List One",
      settings: { url: "https://one.example/x.opml" },
    });
    const second = await server.storage.sources.create({
      type: "opml_url",
      name: "List Two",
      settings: { url: "https://two.example/x.opml" },
    });
    const feedUrl = "https://shared.example/feed.xml";
    await server.storage.blogs.upsertFromSource({
      feedUrl,
      title: "Shared Blog",
      description: "Notes on <b>things</b>",
      siteUrl: "https://shared.example/",
      source: "opml",
      sourceId: first.id,
    });
    const { blog: shared } = await server.storage.blogs.upsertFromSource({
      feedUrl,
      title: "Shared Blog",
      source: "opml",
      sourceId: second.id,
    });
    await addItems(server.storage, shared.id, [
      item("note", new Date("2026-11-20T10:00:00Z"), {
        title: null,
        summary: "Just a short note about the weather today, which was rather grey and wet all afternoon long here.",
      }),
    ]);
    await addBlog(server.storage, { title: "pictured", photo: "https://pictured.example/me.png" });
    await addBlog(server.storage, { title: "Hand Added" });

    const page = await admin.page(blogs);
    const row = async (title: string) => (await admin.page(`${blogs}?q=${encodeURIComponent(title)}`)).html;
    const sharedRow = await row("Shared Blog");
    assert.match(sharedRow, /List One, List Two/, "every source of the blog");
    assert.match(sharedRow, /Notes on &lt;b&gt;things&lt;\/b&gt;/, "the description, as text");
    assert.match(
      sharedRow,
      /<a class="blogroll-url blogroll-meta" href="https:\/\/shared.example\/">/,
      "the site address is a link",
    );
    assert.match(
      sharedRow,
      /class="blogroll-untitled">Just a short note about the weather today, which was rather grey and wet[^<]*…<\/a>/,
      "an untitled post by the start of its text",
    );
    assert.match(
      sharedRow,
      /<span class="blogroll-icon blogroll-icon--letter" aria-hidden="true">S<\/span>/,
      "no picture: the letter tile",
    );
    assert.match(
      await row("pictured"),
      /<img class="blogroll-icon" src="https:\/\/pictured.example\/me.png"[^>]*data-letter="P"/,
    );
    assert.match(page.html, /<option value="manual">You<\/option>/, "the owner in the source filter");
    assert.match(await row("Hand Added"), /<td>You<\/td>/, "listed by the owner");
    const manual = listedTitles(
      (await admin.page(`${blogs}?source=manual&q=${encodeURIComponent("Hand Added")}`)).html,
    );
    assert.deepEqual(manual, ["Hand Added"]);
    assert.deepEqual(
      listedTitles((await admin.page(`${blogs}?source=manual&q=${encodeURIComponent("Shared Blog")}`)).html),
      [],
      "a blog only sources list is not the owner's",
    );
    assert.match(sharedRow, /Nov 20, 2026, \d{1,2}:\d{2}/, "the one date format (medium date, short time)");
    assert.doesNotMatch(sharedRow, /\d{1,2}\/\d{1,2}\/\d{2,4}/, "no short numeric dates");

    const blogPage = await admin.page(`${blogs}/${shared.id}`);
    assert.match(
      blogPage.html,
      /<a class="blogroll-url" href="https:\/\/shared.example\/feed.xml">/,
      "the feed address is a link",
    );
    assert.match(blogPage.html, /Latest post/);
    assert.match(
      blogPage.html,
      /class="blogroll-untitled">Just a short note/,
      "recent items show untitled posts by their text",
    );
    assert.match(blogPage.html, /<p class="blogroll-description">Notes on &lt;b&gt;things&lt;\/b&gt;<\/p>/);
  });

  it("an address with no feed says so once; a feed titled by its format is not offered as 'RSS (RSS)'", async () => {
    const noFeed = await admin.post(blogs, { url: `${site.base}/plain.html`, action: "add" });
    assert.equal(noFeed.status, 422);
    assert.match(noFeed.html, /No feed was found at this address/);
    assert.doesNotMatch(noFeed.html, /No feed could be found there/, "not the reason wrapped in a second sentence");
    assert.equal(feedLabel({ title: "RSS", url: "https://a.example/feed" }, "RSS"), "RSS");
    assert.equal(feedLabel({ title: "rss", url: "https://a.example/feed" }, "RSS"), "rss");
    assert.equal(feedLabel({ title: "Notes", url: "https://a.example/feed" }, "Atom"), "Notes (Atom)");
    assert.equal(
      feedLabel({ title: null, url: "https://a.example/feed" }, "JSON Feed"),
      "https://a.example/feed (JSON Feed)",
    );
  });

  it("adds a blog: discovery lists the feeds of a site to pick from, then adds the picked one", async () => {
    const empty = await admin.post(blogs, { url: "", action: "discover" });
    assert.equal(empty.status, 422);
    assert.deepEqual(summaryErrors(empty.html), ["url"]);

    const found = await admin.post(blogs, { url: `${site.base}/delta/`, title: "", category: "", action: "discover" });
    assert.equal(found.status, 200);
    assert.match(found.html, new RegExp(`value="${site.base}/delta.xml" checked`));
    assert.match(found.html, new RegExp(`value="${site.base}/delta-comments.xml"`));
    assert.match(
      found.html,
      /<label class="radios__label" for="feedUrl">[^<]*\S[^<]*\((RSS|Atom|JSON Feed|h-feed)[^<]*\)<\/label>/,
      "each feed found is labelled with its title and type",
    );
    assert.match(found.html, /value="Delta&#39;s site"|value="Delta's site"/, "the page title fills the title field");

    const added = await admin.post(blogs, {
      url: `${site.base}/delta/`,
      feedUrl: `${site.base}/delta-comments.xml`,
      title: "Delta",
      category: "Friends",
      action: "add",
    });
    assert.equal(added.status, 303);
    const blog = await server.storage.blogs.getByFeedUrl(`${site.base}/delta-comments.xml`);
    assert.ok(blog);
    assert.equal(added.location, `${blogs}/${blog.id}?notice=blogAdded`);
    assert.equal(blog.source, "manual");
    assert.equal(blog.category, "Friends");

    const again = await admin.post(blogs, { url: "", feedUrl: `${site.base}/delta-comments.xml`, action: "add" });
    assert.equal(again.location, `${blogs}/${blog.id}?notice=blogExists`);

    const nothing = await admin.post(blogs, { url: `${site.base}/nothing-here`, action: "discover" });
    assert.equal(nothing.status, 422);
    assert.deepEqual(summaryErrors(nothing.html), ["url"]);
    const badFeed = await admin.post(blogs, { url: "x", feedUrl: "javascript:alert(1)", action: "add" });
    assert.deepEqual(summaryErrors(badFeed.html), ["feedUrl"]);
  });

  it("re-adding a blog that is there with another title or category changes it only when the owner confirms", async () => {
    const source = await server.storage.sources.create({
      type: "opml_url",
      name: "Friends list",
      settings: { url: "https://lists.example/y.opml" },
    });
    await server.storage.blogs.upsertFromSource({
      feedUrl: `${site.base}/gamma.xml`,
      title: "Epsilon",
      category: "Friends",
      source: "opml",
      sourceId: source.id,
    });
    const blog = (await server.storage.blogs.getByFeedUrl(`${site.base}/gamma.xml`))!;
    const readd = await admin.post(blogs, {
      url: "",
      feedUrl: `${site.base}/gamma.xml`,
      title: "My Epsilon",
      category: "Work",
      action: "add",
    });
    assert.equal(readd.status, 200, "a confirmation, not a redirect");
    assert.match(readd.html, /“Epsilon” was already in your blogroll, and you now list it yourself too/);
    assert.match(readd.html, /Title: “Epsilon” becomes “My Epsilon”/);
    assert.match(readd.html, /Category: Friends becomes Work/);
    assert.match(
      readd.html,
      new RegExp(`<a [^>]*href="${blogs}/${blog.id}"[^>]*>Keep it as it is</a>`),
      "keeping it is just going to its page",
    );
    const unchanged = (await server.storage.blogs.get(blog.id))!;
    assert.deepEqual(
      [unchanged.title, unchanged.category, unchanged.ownerEdited],
      ["Epsilon", "Friends", []],
      "nothing changed silently",
    );
    assert.deepEqual(
      unchanged.origins.map((origin) => origin.id),
      [source.id, OWNER_ORIGIN],
      "the owner lists it now",
    );

    const confirmed = await admin.post(`${blogs}/${blog.id}/readd`, { title: "My Epsilon", category: "Work" });
    assert.equal(confirmed.location, `${blogs}/${blog.id}?notice=blogSaved`);
    const changed = (await server.storage.blogs.get(blog.id))!;
    assert.deepEqual(
      [changed.title, changed.category, [...changed.ownerEdited].sort()],
      ["My Epsilon", "Work", ["category", "title"]],
    );
    const page = await admin.page(`${blogs}/${blog.id}`);
    assert.match(page.html, /Listed by[\s\S]*?Friends list, You/, "the blog's page says who lists it");
  });

  it("shows a blog with its details, last error and recent items; saves edits, only changed fields", async () => {
    const blog = await addBlog(server.storage, { title: "Editable", category: "Tech" });
    await addItems(server.storage, blog.id, [
      item("one", new Date(Date.now() - 3_600_000)),
      item("two", new Date(Date.now() - 7_200_000)),
    ]);
    await server.storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: "error",
      error: "Timed out after 15 s",
      nextFetchAt: null,
      failureCount: 1,
    });
    const page = await admin.page(`${blogs}/${blog.id}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Timed out after 15 s/);
    assert.match(page.html, /Post one/);
    assert.match(page.html, /<option value="Tech">/, "existing categories are suggested");

    const invalid = await admin.post(`${blogs}/${blog.id}`, {
      title: "",
      category: "x".repeat(101),
      tags: "a",
      notes: "",
    });
    assert.equal(invalid.status, 422);
    assert.deepEqual(summaryErrors(invalid.html), ["title", "category"]);
    assert.match(invalid.html, /value="a"/, "entered values are kept");

    const saved = await admin.post(`${blogs}/${blog.id}`, {
      title: "Editable",
      category: "Tech",
      tags: "indie, web, indie",
      pinned: "true",
      notes: "Met at IWC",
    });
    assert.equal(saved.location, `${blogs}/${blog.id}?notice=blogSaved`);
    const edited = await server.storage.blogs.get(blog.id);
    assert.deepEqual(edited?.tags, ["indie", "web"]);
    assert.equal(edited?.pinned, true);
    assert.equal(edited?.notes, "Met at IWC");
    assert.deepEqual(
      [...(edited?.ownerEdited ?? [])].sort(),
      ["notes", "pinned", "tags"],
      "unchanged title and category stay sync-owned",
    );
    assert.match((await admin.page(saved.location ?? "")).html, /Blog saved/);
  });

  it("the browser holds each field to the length the server accepts (title, category, private notes)", async () => {
    const added = await admin.page(`${blogs}/new`);
    assert.equal(maxLength(added.html, "title"), LIMITS.title);
    assert.equal(maxLength(added.html, "category"), LIMITS.category);
    const blog = await addBlog(server.storage, { title: "Limited" });
    const edit = await admin.page(`${blogs}/${blog.id}`);
    assert.equal(maxLength(edit.html, "title"), LIMITS.title);
    assert.equal(maxLength(edit.html, "category"), LIMITS.category);
    assert.equal(maxLength(edit.html, "notes"), LIMITS.notes);
    // The public note counts characters as the fediverse does, not the UTF-16 units maxlength counts: the server alone says.
    assert.equal(maxLength(edit.html, "note"), null);
  });

  it("hides a blog from the public API", async () => {
    const blog = await addBlog(server.storage, { title: "Soon hidden" });
    await admin.post(`${blogs}/${blog.id}`, { title: "Soon hidden", hidden: "true" });
    const response = await server.get(`${server.api}/blogs/${blog.id}`);
    assert.equal(response.status, 404);
  });

  it("refreshes a blog now (form redirect and JSON 202)", async () => {
    const blog = await addBlog(server.storage, { feedUrl: `${site.base}/alpha.xml`, title: "Alpha" });
    const refreshed = await admin.post(`${blogs}/${blog.id}/refresh`, {});
    assert.equal(refreshed.location, `${blogs}/${blog.id}?notice=blogRefreshed`);
    assert.equal((await server.storage.blogs.get(blog.id))?.itemCount, 2);
    const json = await admin.post(`${blogs}/${blog.id}/refresh`, {}, { accept: "application/json" });
    assert.equal(json.status, 202);
    assert.equal(JSON.parse(json.html).status, "ok");

    const gone = await addBlog(server.storage, { feedUrl: `${site.base}/missing.xml`, title: "Missing" });
    const failed = await admin.post(`${blogs}/${gone.id}/refresh`, {});
    assert.equal(failed.location, `${blogs}/${gone.id}?notice=blogRefreshFailed`);
    const banner =
      /<div class="notification-banner notification-banner--error" role="alert"[\s\S]*?<\/div>/.exec(
        (await admin.page(failed.location ?? "")).html,
      )?.[0] ?? "";
    assert.match(
      banner,
      /<p class="notification-banner__text">The blog could not be fetched[^<]*<\/p>/,
      "a failure shows in the host's error banner",
    );
  });

  it("deletes a blog softly after confirmation", async () => {
    const blog = await addBlog(server.storage, { title: "Doomed blog" });
    const confirm = await admin.page(`${blogs}/${blog.id}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Delete Doomed blog/);
    const deleted = await admin.post(`${blogs}/${blog.id}/delete`, {});
    assert.equal(deleted.location, `${blogs}?notice=blogDeleted`);
    assert.equal((await server.storage.blogs.get(blog.id))?.status, "deleted");
    assert.equal((await admin.page(`${blogs}/${blog.id}`)).status, 404);
  });

  it("CSRF: a session form post without or with a wrong token gets 403; a Bearer request needs none", async () => {
    const blog = await addBlog(server.storage, { title: "Guarded" });
    assert.equal((await admin.post(`${blogs}/${blog.id}`, { title: "Changed" }, { csrf: null })).status, 403);
    assert.equal((await admin.post(`${blogs}/${blog.id}`, { title: "Changed" }, { csrf: "wrong" })).status, 403);
    const withForgedBearer = await server.get(`${blogs}/${blog.id}`, {
      method: "POST",
      body: new URLSearchParams({ title: "Changed" }),
      headers: { Cookie: admin.cookie, Authorization: "Bearer not-the-token" },
      redirect: "manual",
    });
    assert.equal(withForgedBearer.status, 403, "a session request stays checked whatever Authorization header it adds");
    assert.equal((await server.storage.blogs.get(blog.id))?.title, "Guarded");
    const bearer = await server.get(`${blogs}/${blog.id}`, {
      method: "POST",
      body: new URLSearchParams({ title: "By script" }),
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      redirect: "manual",
    });
    assert.equal(bearer.status, 303);
    assert.equal((await server.storage.blogs.get(blog.id))?.title, "By script");
  });

  it("CSRF: a forged token of the right length is refused, in the form and in the X-CSRF-Token header", async () => {
    const blog = await addBlog(server.storage, { title: "Guarded" });
    const token = admin.csrf;
    const swap = (char: string) => (char === "A" ? "B" : "A");
    const forgeries = [
      swap(token[0]) + token.slice(1),
      token.slice(0, 10) + swap(token[10]) + token.slice(11),
      token.slice(0, -1) + swap(token.at(-1)!),
    ];
    for (const forged of forgeries) {
      assert.equal(forged.length, token.length);
      assert.equal(
        (await admin.post(`${blogs}/${blog.id}`, { title: "Forged" }, { csrf: forged })).status,
        403,
        forged,
      );
      const header = await server.get(`${blogs}/${blog.id}`, {
        method: "POST",
        body: new URLSearchParams({ title: "Forged" }),
        headers: { Cookie: admin.cookie, "X-CSRF-Token": forged, Accept: "application/json" },
      });
      assert.equal(header.status, 403, forged);
      assert.deepEqual(await header.json(), { error: "Invalid CSRF token" });
    }
    assert.equal((await server.storage.blogs.get(blog.id))?.title, "Guarded");
    const genuine = await server.get(`${blogs}/${blog.id}`, {
      method: "POST",
      body: new URLSearchParams({ title: "By header" }),
      headers: { Cookie: admin.cookie, "X-CSRF-Token": token },
      redirect: "manual",
    });
    assert.equal(genuine.status, 303, "the session's own token in the header passes");
    assert.equal((await server.storage.blogs.get(blog.id))?.title, "By header");
  });
});
