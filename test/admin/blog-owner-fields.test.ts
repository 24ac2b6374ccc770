import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { NOTE_MAX_CHARACTERS, plainNote } from "../../lib/admin/blog-owner-fields.js";
import { addBlog } from "../support/seed.js";
import { startFediverseWeb, trustLoopbackCertificate, type FediverseWeb } from "../support/fediverse-web.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { logIn, summaryErrors, type AdminSession } from "./admin-session.js";

// The local web serves https with a self-signed loopback certificate.
trustLoopbackCertificate();

after(() => closeParsePool());

/** The values checked on the page, by input name. */
function checked(html: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const match of html.matchAll(
    /<input class="(?:radios|checkboxes)__input"[^>]*name="(xfn[\w-]*)"[^>]*value="([^"]*)"[^>]*checked/g,
  )) {
    (found[match[1]] ??= []).push(match[2]);
  }
  return found;
}

/** The XFN inputs on the page: by name, their type and values in page order. */
function inputTypes(html: string): Record<string, Record<string, string[]>> {
  const found: Record<string, Record<string, string[]>> = {};
  for (const [tag] of html.matchAll(/<input [^>]*name="xfn[\w-]*"[^>]*>/g)) {
    const attribute = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? "";
    ((found[attribute("name")] ??= {})[attribute("type")] ??= []).push(attribute("value"));
  }
  return found;
}

describe("admin: what the owner says about a blog (relationship, public note, fediverse handle)", () => {
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

  it("shows the XFN groups (one choice for friendship, geography and family), the note and the handle", async () => {
    const blog = await addBlog(server.storage, {
      title: "Shown",
      relationship: ["friend", "met"],
      note: "Good on gardens",
      fediverse: web.ana,
      fediverseUrl: web.anaProfile,
    });
    const page = await admin.page(`${blogs}/${blog.id}`);
    assert.equal(page.status, 200);
    assert.deepEqual(checked(page.html), {
      "xfn-friendship": ["friend"],
      xfn: ["met"],
      "xfn-geographical": [""],
      "xfn-family": [""],
    });
    assert.deepEqual(inputTypes(page.html), {
      "xfn-friendship": { radio: ["", "contact", "acquaintance", "friend"] },
      xfn: { checkbox: ["met", "co-worker", "colleague", "muse", "crush", "date", "sweetheart"] },
      "xfn-geographical": { radio: ["", "co-resident", "neighbor"] },
      "xfn-family": { radio: ["", "child", "parent", "sibling", "spouse", "kin"] },
    });
    assert.doesNotMatch(page.html, /value="me"/, "`me` is never offered");
    assert.match(page.html, /<textarea[^>]*name="note"[^>]*>Good on gardens<\/textarea>/);
    assert.match(
      page.html,
      new RegExp(`name="fediverse"[^>]*value="${web.ana}"|value="${web.ana}"[^>]*name="fediverse"`),
    );
    assert.match(
      page.html,
      new RegExp(`<p class="hint blogroll-fediverse-profile">[^<]*<a class="blogroll-url" href="${web.anaProfile}">`),
      "the profile page found is linked",
    );
  });

  it("saves a relationship, a note and a handle, looking the handle up by WebFinger; all become the owner's", async () => {
    const blog = await addBlog(server.storage, { title: "Friend" });
    const saved = await admin.post(`${blogs}/${blog.id}`, {
      title: "Friend",
      "xfn-friendship": "friend",
      xfn: "colleague",
      "xfn-family": "",
      "xfn-geographical": "neighbor",
      note: "  Writes about\r\n\tgardens & <b>weeds</b>.  ",
      fediverse: web.ana.slice(1),
    });
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    const edited = (await server.storage.blogs.get(blog.id))!;
    assert.deepEqual(edited.relationship, ["friend", "colleague", "neighbor"]);
    assert.equal(
      edited.note,
      "Writes about gardens & <b>weeds</b>.",
      "plain text on one line, kept as typed otherwise",
    );
    assert.deepEqual([edited.fediverse, edited.fediverseUrl], [web.ana, web.anaProfile]);
    assert.deepEqual([...edited.ownerEdited].sort(), ["fediverse", "note", "relationship"]);
    const page = await admin.page(`${blogs}/${blog.id}`);
    assert.match(page.html, /gardens &amp; &lt;b&gt;weeds&lt;\/b&gt;\./, "the note is text on the page, never markup");

    const lookups = web.mastodon.hits("/.well-known/webfinger");
    await admin.post(`${blogs}/${blog.id}`, {
      title: "Friend",
      "xfn-friendship": "friend",
      xfn: "colleague",
      "xfn-geographical": "neighbor",
      note: "Writes about gardens & <b>weeds</b>.",
      fediverse: web.ana,
    });
    assert.equal(web.mastodon.hits("/.well-known/webfinger"), lookups, "an unchanged handle is not looked up again");

    const cleared = await admin.post(`${blogs}/${blog.id}`, { title: "Friend", note: "", fediverse: "" });
    assert.equal(cleared.status, 303);
    const emptied = (await server.storage.blogs.get(blog.id))!;
    assert.deepEqual(
      [emptied.relationship, emptied.note, emptied.fediverse, emptied.fediverseUrl],
      [[], null, null, null],
    );
  });

  it("refuses two values of an exclusive group, `me` and unknown values, keeping what was typed and saving nothing", async () => {
    const blog = await addBlog(server.storage, { title: "Strict", relationship: ["acquaintance"] });
    for (const [fields, message] of [
      [{ "xfn-friendship": "contact", xfn: "friend" }, /Pick at most one under “Friendship”/],
      [{ "xfn-family": "kin", xfn: "sibling" }, /Pick at most one under “Family”/],
      [{ "xfn-geographical": "neighbor", xfn: "co-resident" }, /Pick at most one under “Geographical”/],
      [{ xfn: "me" }, /“me” is for links to your own sites/],
      [{ "xfn-friendship": "me" }, /“me” is for links to your own sites/],
      [{ xfn: "nofollow" }, /“nofollow” is not an XFN relationship/],
    ] as const) {
      const refused = await admin.post(`${blogs}/${blog.id}`, { title: "Strict", note: "Kept note", ...fields });
      assert.equal(refused.status, 422, JSON.stringify(fields));
      assert.deepEqual(summaryErrors(refused.html), ["relationship"]);
      assert.match(refused.html, message);
      assert.match(refused.html, />Kept note<\/textarea>/, "the other fields keep what was typed");
    }
    assert.deepEqual((await server.storage.blogs.get(blog.id))?.relationship, ["acquaintance"]);
    assert.equal((await server.storage.blogs.get(blog.id))?.note, null);
  });

  it("takes a public note of up to 280 characters (as people count them), not one more", async () => {
    const blog = await addBlog(server.storage, { title: "Noted" });
    const longest = "🌱".repeat(NOTE_MAX_CHARACTERS);
    assert.equal((await admin.post(`${blogs}/${blog.id}`, { title: "Noted", note: longest })).status, 303);
    assert.equal((await server.storage.blogs.get(blog.id))?.note, longest);
    const tooLong = await admin.post(`${blogs}/${blog.id}`, {
      title: "Noted",
      note: `${"x".repeat(NOTE_MAX_CHARACTERS)}y`,
    });
    assert.equal(tooLong.status, 422);
    assert.deepEqual(summaryErrors(tooLong.html), ["note"]);
    assert.match(tooLong.html, /280 characters or fewer/);
    assert.equal((await server.storage.blogs.get(blog.id))?.note, longest);
    assert.equal(plainNote("a\u0000b\u0007\n\nc   d"), "a b c d");
  });

  it("refuses a handle that is not one without asking anyone, and one whose account is not found with the reason", async () => {
    const blog = await addBlog(server.storage, { title: "Handled" });
    const host = new URL(web.mastodon.url).host;
    const lookups = web.mastodon.hits("/.well-known/webfinger");
    for (const bad of ["ana", "@ana@", "https://social.example/@ana", `@ana@${host}/x`]) {
      const refused = await admin.post(`${blogs}/${blog.id}`, { title: "Handled", fediverse: bad });
      assert.equal(refused.status, 422, bad);
      assert.deepEqual(summaryErrors(refused.html), ["fediverse"]);
      assert.match(refused.html, /Enter a handle such as @name@social\.example/);
    }
    assert.equal(web.mastodon.hits("/.well-known/webfinger"), lookups);
    const missing = await admin.post(`${blogs}/${blog.id}`, {
      title: "Handled",
      note: "Still here",
      fediverse: `@nobody@${host}`,
    });
    assert.equal(missing.status, 422);
    assert.deepEqual(summaryErrors(missing.html), ["fediverse"]);
    assert.match(
      missing.html,
      new RegExp(`The account could not be found: No account @nobody@${host.replaceAll(".", "\\.")}`),
    );
    assert.match(missing.html, />Still here<\/textarea>/);
    const kept = (await server.storage.blogs.get(blog.id))!;
    assert.deepEqual([kept.fediverse, kept.note], [null, null], "nothing saved");
  });
});
