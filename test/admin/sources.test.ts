import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { describe, it } from "node:test";
import type { TestServer } from "../support/server.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { summaryErrors, useAdminFixture, type AdminSession } from "./admin-session.js";
import type { FixtureSite } from "./fixture-site.js";
import { startWeb } from "../network/web.js";
import { OWNER_ORIGIN, type Blog } from "../../lib/storage/types.js";
import { DRAFT_SOURCE_ID } from "../../lib/admin/source-form.js";
import { foundRecordKey } from "../../lib/sources/blogroll.js";

describe("admin: sources pages and forms (standalone host, SQLite)", () => {
  let server: TestServer;
  let site: FixtureSite;
  let admin: AdminSession;
  let sources: string;

  useAdminFixture((fixture) => {
    ({ server, site, admin } = fixture);
    sources = `${server.plugin.mountPath}/sources`;
  });

  it("offers the source types, Microsub only when its plugin is there", async () => {
    const chooser = await admin.page(`${sources}/new`);
    assert.equal(chooser.status, 200);
    for (const type of ["opml_url", "opml_file", "feedland"]) assert.match(chooser.html, new RegExp(`value="${type}"`));
    assert.doesNotMatch(chooser.html, /value="microsub"/);
    const microsubForm = await admin.page(`${sources}/new?type=microsub`);
    assert.doesNotMatch(microsubForm.html, /name="channelUid"/, "no Microsub form without the plugin");
  });

  it("re-renders an invalid OPML URL form with the error summary and the entered values", async () => {
    const response = await admin.post(sources, {
      type: "opml_url",
      name: "My list",
      url: "ftp://nope",
      action: "save",
    });
    assert.equal(response.status, 422);
    assert.deepEqual(summaryErrors(response.html), ["url"]);
    assert.match(response.html, /value="My list"/);
    assert.match(response.html, /value="ftp:\/\/nope"/);
    assert.match(response.html, /id="url-error"/);
    assert.equal(await server.storage.sources.count(), 0, "nothing saved");
  });

  it("previews an OPML URL import without writing anything", async () => {
    await addBlog(server.storage, { feedUrl: `${site.base}/gamma.xml`, title: "Gamma (known)" });
    const before = await server.storage.blogs.count();
    const response = await admin.post(sources, {
      type: "opml_url",
      name: "Fixture",
      url: `${site.base}/blogroll.opml`,
      action: "preview",
    });
    assert.equal(response.status, 200);
    assert.match(response.html, /Import preview/);
    assert.match(response.html, /2 blogs would be added/);
    assert.match(response.html, /1 would be updated/);
    assert.match(response.html, /Alpha Notes/);
    assert.equal(await server.storage.sources.count(), 0);
    assert.equal(await server.storage.blogs.count(), before);
  });

  it("previews an unreachable OPML URL as a form error", async () => {
    const response = await admin.post(sources, {
      type: "opml_url",
      name: "Broken",
      url: `${site.base}/missing.opml`,
      action: "preview",
    });
    assert.equal(response.status, 422);
    assert.deepEqual(summaryErrors(response.html), ["url"]);
  });

  it("saves an OPML URL source and imports it at once", async () => {
    const response = await admin.post(sources, {
      type: "opml_url",
      name: "Fixture",
      url: `${site.base}/blogroll.opml`,
      enabled: "true",
      action: "save",
    });
    assert.equal(response.status, 303);
    assert.equal(response.location, `${sources}?notice=sourceCreated`);
    const [source] = await server.storage.sources.list();
    assert.equal(source.type, "opml_url");
    assert.equal(source.status, "ok");
    assert.equal(source.lastImport?.added, 2);
    const list = await admin.page(response.location);
    assert.match(list.html, /Source added and imported/);
    assert.match(list.html, /2 added, 1 updated/);
    assert.match(list.html, /Fixture/);
  });

  it("Someone's blogroll: offered, validated, previewed and saved by the site's address", async () => {
    const web = await startWeb([
      { name: "friend", announce: "link-header", recommends: ["a"] },
      { name: "a", announce: "none" },
    ]);
    try {
      const chooser = await admin.page(`${sources}/new`);
      assert.match(chooser.html, /value="blogroll"/);
      assert.match(chooser.html, /Someone&#39;s blogroll|Someone's blogroll/);
      const invalid = await admin.post(sources, { type: "blogroll", name: "Friend", url: "", action: "save" });
      assert.equal(invalid.status, 422);
      assert.deepEqual(summaryErrors(invalid.html), ["url"]);
      const friend = web.sites.get("friend")!;
      const preview = await admin.post(sources, {
        type: "blogroll",
        name: "Friend",
        url: friend.url,
        action: "preview",
      });
      assert.equal(preview.status, 200);
      assert.match(preview.html, new RegExp(web.sites.get("a")!.feed.replace(/[.]/g, "\\.")));
      assert.equal(
        await server.storage.meta.get(foundRecordKey(DRAFT_SOURCE_ID)),
        null,
        "the preview kept nothing, not even where it found the list",
      );
      const saved = await admin.post(sources, {
        type: "blogroll",
        name: "Friend",
        url: friend.url,
        enabled: "true",
        action: "save",
      });
      assert.equal(saved.status, 303);
      const source = (await server.storage.sources.list()).find((entry) => entry.type === "blogroll");
      assert.equal(source?.status, "ok");
      assert.equal(source?.lastImport?.added, 1);
      await server.storage.sources.delete(source!.id);
    } finally {
      await web.close();
    }
  });

  it("refuses a second source reading the same OPML address, naming the first; the first can still be saved", async () => {
    const [first] = (await server.storage.sources.list()).filter((source) => source.type === "opml_url");
    assert.ok(first, "the source saved above");
    const url = `${site.base}/blogroll.opml`.replace("http://127.0.0.1", "HTTP://127.0.0.1") + "#top";
    const twin = await admin.post(sources, { type: "opml_url", name: "Again", url, enabled: "true", action: "save" });
    assert.equal(twin.status, 422);
    assert.deepEqual(summaryErrors(twin.html), ["url"]);
    assert.match(twin.html, /The source Fixture already reads this list/);
    assert.equal(
      (await server.storage.sources.list()).filter((source) => source.type === "opml_url").length,
      1,
      "nothing saved",
    );
    const resaved = await admin.post(`${sources}/${first.id}`, {
      name: "Fixture",
      url: `${site.base}/blogroll.opml`,
      enabled: "true",
      action: "save",
    });
    assert.equal(resaved.status, 303, "a source is not its own twin");
  });

  it("offers the OPML file and the paste as one document: neither marked optional", async () => {
    const form = await admin.page(`${sources}/new?type=opml_file`);
    assert.match(form.html, /<legend class="fieldset__legend">OPML document<\/legend>/);
    assert.match(form.html, /Upload a file or paste its text: one of the two is needed\./);
    // The name may be left empty (the document names the source); neither the file nor the paste is optional on its own.
    assert.equal((form.html.match(/label__optional/g) ?? []).length, 1, "one optional field");
    assert.match(form.html, /<label class="label" for="name">Name <span class="label__optional">/);
    const empty = await admin.post(sources, { type: "opml_file", name: "Empty", xml: "", action: "save" });
    assert.equal(empty.status, 422);
    assert.deepEqual(summaryErrors(empty.html), ["opmlFile"]);
  });

  it("uploads an OPML file (multipart), with the CSRF token in the form", async () => {
    const form = new FormData();
    form.append("type", "opml_file");
    form.append("name", "Uploaded");
    form.append("enabled", "true");
    form.append("action", "save");
    form.append(
      "opmlFile",
      new Blob([site.text("blogroll.opml").replace("Alpha Notes", "Alpha (file)")], { type: "text/x-opml" }),
      "list.opml",
    );
    const response = await admin.post(sources, form);
    assert.equal(response.status, 303);
    const uploaded = (await server.storage.sources.list()).find((source) => source.name === "Uploaded");
    assert.ok(uploaded);
    assert.match(uploaded.settings.xml, /Alpha \(file\)/);
    assert.equal(uploaded.status, "ok");
  });

  it("previews an uploaded OPML file without writing anything, keeping its text for the save", async () => {
    const before = { sources: await server.storage.sources.count(), blogs: await server.storage.blogs.count() };
    const form = new FormData();
    form.append("type", "opml_file");
    form.append("name", "Preview upload");
    form.append("action", "preview");
    form.append("opmlFile", new Blob([site.text("blogroll.opml")], { type: "text/x-opml" }), "list.opml");
    const response = await admin.post(sources, form);
    assert.equal(response.status, 200);
    assert.match(response.html, /Import preview/);
    assert.match(
      response.html,
      /<textarea[^>]*name="xml"[^>]*>[^<]*&lt;opml/,
      "the uploaded list is kept in the form, so Save needs no second upload",
    );
    assert.deepEqual(
      { sources: await server.storage.sources.count(), blogs: await server.storage.blogs.count() },
      before,
    );
  });

  it("saves pasted OPML text", async () => {
    const response = await admin.post(sources, {
      type: "opml_file",
      name: "Pasted list",
      xml: site.text("blogroll.opml"),
      enabled: "true",
      action: "save",
    });
    assert.equal(response.status, 303);
    const pasted = (await server.storage.sources.list()).find((source) => source.name === "Pasted list");
    assert.equal(pasted?.status, "ok");
  });

  it("asks again for the type when a form is posted without a known one", async () => {
    for (const type of [undefined, "manual", "bogus"]) {
      const response = await admin.post(sources, type ? { type, name: "x" } : { name: "x" });
      assert.equal(response.status, 422, String(type));
      assert.deepEqual(summaryErrors(response.html), ["type"]);
      assert.match(response.html, /name="type" type="radio" value="opml_url"/);
    }
  });

  it("refuses a multipart post without the CSRF token", async () => {
    const form = new FormData();
    form.append("type", "opml_file");
    form.append("name", "No token");
    const response = await admin.post(sources, form, { csrf: null });
    assert.equal(response.status, 403);
  });

  it("reports pasted text that is not OPML on the form", async () => {
    const response = await admin.post(sources, {
      type: "opml_file",
      name: "Pasted",
      xml: "<html><body>no</body></html>",
      action: "save",
    });
    assert.equal(response.status, 422);
    assert.deepEqual(summaryErrors(response.html), ["xml"]);
    const empty = await admin.post(sources, { type: "opml_file", name: "Pasted", xml: "", action: "save" });
    assert.deepEqual(summaryErrors(empty.html), ["opmlFile"]);
  });

  it("names a new OPML source left unnamed by its document's title, else its address or file name; FeedLand and an edit still need a name", async () => {
    const form = await admin.page(`${sources}/new?type=opml_file`);
    assert.match(form.html, /Left empty, the list&#39;s own title names it|Left empty, the list's own title names it/);
    const pasted = await admin.post(sources, {
      type: "opml_file",
      name: "",
      xml: site.text("blogroll.opml"),
      enabled: "true",
      action: "save",
    });
    assert.equal(pasted.status, 303);
    const byTitle = (await server.storage.sources.list()).find((source) => source.name === "Fixture blogroll");
    assert.ok(byTitle, "named by the document's <title>");

    const web = await startWeb([
      { name: "friend", announce: "head", recommends: ["a"] },
      { name: "a", announce: "none" },
    ]);
    try {
      const friend = web.sites.get("friend")!;
      const saved = await admin.post(sources, {
        type: "blogroll",
        name: "",
        url: friend.url,
        enabled: "true",
        action: "save",
      });
      assert.equal(saved.status, 303);
      assert.ok(
        (await server.storage.sources.list()).some(
          (source) => source.type === "blogroll" && source.name === "friend's blogroll",
        ),
        "named by the blogroll's <title>",
      );
      const quiet = await admin.post(sources, {
        type: "blogroll",
        name: "",
        url: friend.url.replace(/\/$/, "/quiet/"),
        action: "save",
      });
      assert.equal(quiet.status, 303, "not read now (not enabled): named by its address until then");
      assert.ok(
        (await server.storage.sources.list()).some(
          (source) => source.name === friend.url.replace(/^http:\/\//, "").replace(/\/$/, "/quiet"),
        ),
      );
    } finally {
      await web.close();
    }

    const untitled = new FormData();
    untitled.append("type", "opml_file");
    untitled.append("name", "");
    untitled.append("action", "save");
    untitled.append(
      "opmlFile",
      new Blob([`<opml version="2.0"><head/><body><outline text="Z" xmlUrl="${site.base}/gamma.xml"/></body></opml>`], {
        type: "text/x-opml",
      }),
      "reading-list.opml",
    );
    assert.equal((await admin.post(sources, untitled)).status, 303);
    assert.ok(
      (await server.storage.sources.list()).some((source) => source.name === "reading-list"),
      "no title, not read: the file's name",
    );

    const feedland = await admin.post(sources, {
      type: "feedland",
      name: "",
      instance: site.base,
      screenName: "dave",
      action: "save",
    });
    assert.deepEqual(summaryErrors(feedland.html), ["name"]);
    for (const source of (await server.storage.sources.list()).filter(
      (entry) =>
        ["Fixture blogroll", "friend's blogroll", "reading-list"].includes(entry.name) || entry.type === "blogroll",
    )) {
      await server.storage.sources.delete(source.id);
    }
  });

  it("the preview links each feed address, and shows one that is not a web address as text", async () => {
    const xml = `<opml version="2.0"><body><outline text="A" xmlUrl="${site.base}/alpha.xml?a=1&amp;b=&lt;2&gt;"/><outline text="Bad" xmlUrl="javascript:alert(1)"/></body></opml>`;
    const preview = await admin.post(sources, { type: "opml_file", name: "Links", xml, action: "preview" });
    assert.equal(preview.status, 200);
    const link =
      new RegExp(
        `<a class="blogroll-url" href="${site.base}/alpha.xml\\?a=1&amp;b=(&lt;|%3C)2(&gt;|%3E)">([^<]|<wbr>)*</a>`,
      ).exec(preview.html)?.[0] ?? "";
    assert.ok(link, "the feed's address, linked");
    // Its text may wrap after each "/" and nowhere else, and shows the address as it is.
    const parts = link.replace(/<a[^>]*>|<\/a>/g, "").split("<wbr>");
    assert.ok(parts.length > 3 && parts.slice(0, -1).every((part) => part.endsWith("/")), link);
    assert.match(parts.join(""), new RegExp(`^${site.base}/alpha\\.xml\\?a=1&amp;b=`));
    assert.doesNotMatch(preview.html, /href="javascript:/);
  });

  it("says in plain words why pasted text is not OPML, and where", async () => {
    const list = site.text("blogroll.opml").trimEnd();
    const trailing = await admin.post(sources, {
      type: "opml_file",
      name: "Pasted",
      xml: `${list}\nThanks for reading!`,
      action: "save",
    });
    assert.equal(trailing.status, 422);
    assert.deepEqual(summaryErrors(trailing.html), ["xml"]);
    const lines = list.split("\n").length + 1;
    assert.match(
      trailing.html,
      new RegExp(
        `Something follows the end of the OPML document, from line ${lines}: remove it, or export the list again`,
      ),
    );
    assert.doesNotMatch(trailing.html, /Malformed XML|outside of root node/);
    const address = await admin.post(sources, {
      type: "opml_file",
      name: "Pasted",
      xml: "https://example.org/blogroll.opml",
      action: "save",
    });
    assert.match(
      address.html,
      /This is a web address, not an OPML document: for a list at an address, add an “OPML address” source instead/,
    );
    const page = await admin.post(sources, {
      type: "opml_file",
      name: "Pasted",
      xml: "<!DOCTYPE html><html><body>no</body></html>",
      action: "save",
    });
    assert.match(page.html, /This is a web page, not an OPML document/);
  });

  it("a friend's site typed without a scheme: the preview's error names the address it tried", async () => {
    const server0 = createServer();
    await new Promise<void>((resolve) => server0.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(server0.address() as AddressInfo).port}`;
    await new Promise((resolve) => server0.close(resolve));
    const response = await admin.post(sources, { type: "blogroll", name: "Friend", url: host, action: "preview" });
    assert.equal(response.status, 422);
    assert.deepEqual(summaryErrors(response.html), ["url"]);
    assert.match(
      response.html,
      new RegExp(`Could not connect to the site \\(tried https://${host.replace(".", "\\.")}/\\)`),
    );
  });

  it("refuses an uploaded file that is not text, without pasting it into the form", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    for (const action of ["save", "preview"]) {
      const form = new FormData();
      form.append("type", "opml_file");
      form.append("name", "A picture");
      form.append("action", action);
      form.append("opmlFile", new Blob([png], { type: "application/octet-stream" }), "blogroll.opml");
      const response = await admin.post(sources, form);
      assert.equal(response.status, 422, action);
      assert.deepEqual(summaryErrors(response.html), ["opmlFile"], action);
      assert.match(response.html, /This file is not a text document, so it cannot be OPML/, action);
      assert.match(
        response.html,
        /<textarea[^>]*name="xml"[^>]*>\s*<\/textarea>/,
        `${action}: the paste box stays empty`,
      );
      assert.doesNotMatch(response.html, /IHDR|PNG/, action);
    }
    assert.equal(
      (await server.storage.sources.list()).some((source) => source.name === "A picture"),
      false,
    );
  });

  it("FeedLand: validates, loads the category picker from the instance, saves the category", async () => {
    const invalid = await admin.post(sources, {
      type: "feedland",
      name: "",
      instance: "not a url",
      screenName: "",
      action: "save",
    });
    assert.deepEqual(summaryErrors(invalid.html), ["name", "instance", "screenName"]);
    const failed = await admin.post(sources, {
      type: "feedland",
      name: "FL",
      instance: site.base,
      screenName: "nobody",
      action: "categories",
    });
    assert.equal(failed.status, 422, "an unknown account: the instance answers 404");
    assert.deepEqual(summaryErrors(failed.html), ["screenName"]);
    assert.match(failed.html, /value="nobody"/);

    const loaded = await admin.post(sources, {
      type: "feedland",
      name: "FL",
      instance: site.base,
      screenName: "dave",
      action: "categories",
    });
    assert.equal(loaded.status, 200);
    assert.match(loaded.html, /<option value="Friends">Friends<\/option>/);
    assert.match(loaded.html, /<option value="Work">Work<\/option>/);

    const saved = await admin.post(sources, {
      type: "feedland",
      name: "FL",
      instance: site.base,
      screenName: "dave",
      category: "Work",
      enabled: "true",
      action: "save",
    });
    assert.equal(saved.status, 303);
    const source = (await server.storage.sources.list()).find((entry) => entry.type === "feedland");
    assert.equal(source?.settings.category, "Work");
    assert.equal(source?.status, "ok");
  });

  it("edits a source, enables/disables it, syncs it now (form and JSON)", async () => {
    const source = (await server.storage.sources.list()).find((entry) => entry.name === "Fixture");
    assert.ok(source);
    const edit = await admin.page(`${sources}/${source.id}/edit`);
    assert.equal(edit.status, 200);
    assert.match(edit.html, new RegExp(`value="${site.base}/blogroll.opml"`));

    const invalid = await admin.post(`${sources}/${source.id}`, {
      name: "",
      url: `${site.base}/blogroll.opml`,
      enabled: "true",
      action: "save",
    });
    assert.equal(invalid.status, 422);
    assert.deepEqual(summaryErrors(invalid.html), ["name"]);

    const saved = await admin.post(`${sources}/${source.id}`, {
      name: "Fixture list",
      url: `${site.base}/blogroll.opml`,
      enabled: "true",
      action: "save",
    });
    assert.equal(saved.status, 303);
    assert.equal((await server.storage.sources.get(source.id))?.name, "Fixture list");

    const disabled = await admin.post(`${sources}/${source.id}/toggle`, { enabled: "false" });
    assert.equal(disabled.location, `${sources}?notice=sourceDisabled`);
    assert.equal((await server.storage.sources.get(source.id))?.enabled, false);
    await admin.post(`${sources}/${source.id}/toggle`, { enabled: "true" });
    assert.equal((await server.storage.sources.get(source.id))?.enabled, true);

    const synced = await admin.post(`${sources}/${source.id}/sync`, {});
    assert.equal(synced.location, `${sources}?notice=sourceSynced`);
    const json = await admin.post(`${sources}/${source.id}/sync`, {}, { accept: "application/json" });
    assert.equal(json.status, 202);
    assert.equal(JSON.parse(json.html).status, "ok");
  });

  it("deletes a source: counts the blogs only it lists, names those that stay, and keeps or removes those as chosen; never the owner's", async () => {
    const storage = server.storage;
    const followed = await storage.sources.create({
      type: "blogroll",
      name: "Someone's blogroll",
      settings: { url: "https://someone.example/" },
    });
    const other = await storage.sources.create({
      type: "opml_file",
      name: "My file",
      settings: { xml: site.text("blogroll.opml") },
    });
    const mine = await addBlog(storage, { feedUrl: "https://mine.example/feed", title: "Mine", source: "manual" });
    await storage.blogs.edit(mine.id, { pinned: true, notes: "Met at the meetup" });
    await addItems(storage, mine.id, [item("mine-post", new Date("2026-11-20T10:00:00Z"))]);
    for (const host of ["mine", "shared", "theirs1", "theirs2"])
      await storage.blogs.upsertFromSource({
        feedUrl: `https://${host}.example/feed`,
        title: host,
        source: "blogroll",
        sourceId: followed.id,
      });
    await storage.blogs.upsertFromSource({
      feedUrl: "https://shared.example/feed",
      source: "opml",
      sourceId: other.id,
    });

    const confirm = await admin.page(`${sources}/${followed.id}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /2 blogs are listed by this source alone\./, "only those it alone lists are counted");
    assert.match(
      confirm.html,
      /2 blogs stay, also listed by another source or by you:\s*<\/p>\s*<ul>\s*<li>Mine<\/li>\s*<li>shared<\/li>\s*<\/ul>/,
      "the others are named as staying",
    );
    assert.match(confirm.html, /name="blogs" type="radio" value="keep"/);
    const noChoice = await admin.post(`${sources}/${followed.id}/delete`, {});
    assert.equal(noChoice.status, 422);
    assert.deepEqual(summaryErrors(noChoice.html), ["blogs"]);

    assert.equal(
      (await admin.post(`${sources}/${followed.id}/delete`, { blogs: "remove" })).location,
      `${sources}?notice=sourceDeleted`,
    );
    assert.equal(await storage.sources.get(followed.id), null);
    for (const host of ["theirs1", "theirs2"])
      assert.equal(await storage.blogs.getByFeedUrl(`https://${host}.example/feed`), null, `${host} removed`);
    const kept = (await storage.blogs.get(mine.id)) as Blog;
    assert.deepEqual(
      [kept.status, kept.pinned, kept.notes, kept.title],
      ["active", true, "Met at the meetup", "Mine"],
      "the owner's blog, pin and notes stay",
    );
    assert.equal((await storage.items.list({ blogId: mine.id, limit: 5, offset: 0 })).length, 1, "with its posts");
    assert.ok(await storage.blogs.getByFeedUrl("https://shared.example/feed"));

    const keepMe = await storage.sources.create({
      type: "opml_file",
      name: "Keep me",
      settings: { xml: site.text("blogroll.opml") },
    });
    const onlyHere = await storage.blogs.upsertFromSource({
      feedUrl: "https://only.example/feed",
      title: "Only here",
      category: "Friends",
      source: "opml",
      sourceId: keepMe.id,
    });
    assert.match((await admin.page(`${sources}/${keepMe.id}/delete`)).html, /1 blog is listed by this source alone\./);
    assert.equal(
      (await admin.post(`${sources}/${keepMe.id}/delete`, { blogs: "keep" })).location,
      `${sources}?notice=sourceDeleted`,
    );
    const survivor = await storage.blogs.get(onlyHere.blog.id);
    assert.ok(survivor && survivor.status !== "deleted");
    assert.deepEqual(
      survivor.origins.map((origin) => [origin.id, origin.kind]),
      [[OWNER_ORIGIN, "manual"]],
      "kept: the owner lists it now",
    );
    assert.deepEqual(
      [survivor.title, survivor.category, survivor.source],
      ["Only here", "Friends", "manual"],
      "as it was",
    );

    const empty = await storage.sources.create({
      type: "opml_file",
      name: "Empty",
      settings: { xml: site.text("blogroll.opml") },
    });
    const emptyConfirm = await admin.page(`${sources}/${empty.id}/delete`);
    assert.match(emptyConfirm.html, /This source lists no blogs\./);
    assert.doesNotMatch(emptyConfirm.html, /type="radio"/, "nothing to decide");
    assert.equal((await admin.post(`${sources}/${empty.id}/delete`, {})).location, `${sources}?notice=sourceDeleted`);
  });

  it("answers 404 for unknown or malformed source ids", async () => {
    assert.equal((await admin.page(`${sources}/ffffffffffffffffffffffff/edit`)).status, 404);
    assert.equal((await admin.page(`${sources}/nope/edit`)).status, 404);
    assert.equal((await admin.post(`${sources}/ffffffffffffffffffffffff/sync`, {})).status, 404);
  });
});
