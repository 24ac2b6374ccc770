import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { ADMIN_TOKEN, type TestServer } from "../support/server.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { useAdminFixture, type AdminSession } from "./admin-session.js";
import type { FixtureSite } from "./fixture-site.js";

after(() => closeParsePool());

/** The text of a summary row's value by its key. */
function summaryValue(html: string, key: string): string | null {
  return (
    new RegExp(`<dt class="summary__key">${key}</dt>\\s*<dd class="summary__value">([^<]*)</dd>`).exec(html)?.[1] ??
    null
  );
}

describe("admin: dashboard, sync triggers, access (standalone host, SQLite)", () => {
  let server: TestServer;
  let site: FixtureSite;
  let admin: AdminSession;
  let mount: string;

  useAdminFixture((fixture) => {
    ({ server, site, admin } = fixture);
    mount = server.plugin.mountPath;
  });

  it("lists sources in error beside blogs in error, and names untitled latest posts by their text", async () => {
    const broken = await server.storage.sources.create({
      type: "opml_url",
      name: "Broken List",
      settings: { url: "https://broken.example/list.opml" },
    });
    await server.storage.sources.update(broken.id, {
      status: "error",
      lastError: "HTTP 500 Internal Server Error",
      lastSyncAt: new Date(),
    });
    const noter = await addBlog(server.storage, { title: "Noter" });
    await addItems(server.storage, noter.id, [
      item("note-1", new Date(), { title: null, summary: "A note with no title at all" }),
    ]);
    const page = await admin.page(mount);
    const section = page.html.slice(
      page.html.indexOf('id="blogroll-source-errors"'),
      page.html.indexOf('id="blogroll-blog-errors"'),
    );
    assert.match(section, new RegExp(`<a href="${mount}/sources/${broken.id}/edit">Broken List</a>`));
    assert.match(section, /HTTP 500 Internal Server Error/);
    assert.match(page.html, /Sources in error/);
    assert.match(page.html, /class="blogroll-untitled">A note with no title at all<\/a>/);
    await server.storage.sources.delete(broken.id);
    await server.storage.blogs.purge(noter.id);
  });

  it("sends people without a session to the login page, scripts get 401", async () => {
    const page = await server.get(mount, { headers: { Accept: "text/html" }, redirect: "manual" });
    assert.equal(page.status, 302);
    assert.match(page.headers.get("location") ?? "", /^\/session\/login\?redirect=/);
    assert.equal((await server.get(`${mount}/sync`, { method: "POST" })).status, 401);
  });

  it("shows counts, latest items with their blog, blogs in error with their messages, and the actions", async () => {
    const good = await addBlog(server.storage, { title: "Good Blog" });
    await addItems(server.storage, good.id, [item("fresh", new Date(Date.now() - 60_000))]);
    const bad = await addBlog(server.storage, { title: "Bad Blog" });
    await server.storage.blogs.recordFetch(bad.id, {
      at: new Date(),
      status: "error",
      error: "HTTP 503 Service Unavailable",
      nextFetchAt: null,
      failureCount: 2,
    });
    await server.storage.sources.create({ type: "opml_url", name: "S", settings: { url: "https://x.example/a.opml" } });

    const { status, html } = await admin.page(mount);
    assert.equal(status, 200);
    assert.equal(summaryValue(html, "Sources"), "1");
    assert.equal(summaryValue(html, "Blogs"), "2");
    assert.equal(summaryValue(html, "Items"), "1");
    assert.equal(summaryValue(html, "Blogs in error"), "1");
    assert.equal(summaryValue(html, "Last sync"), "never");
    assert.match(html, /Post fresh/);
    assert.match(html, new RegExp(`href="${mount}/blogs/${good.id}">Good Blog`));
    assert.match(html, /HTTP 503 Service Unavailable/);
    assert.match(html, new RegExp(`action="${mount}/sync"`));
    assert.match(html, new RegExp(`href="${mount}/clear-resync"`));
    assert.match(html, new RegExp(`href="${mount}/api/opml"`));
    assert.match(html, /<script src="\/assets\/indiekit-endpoint-blogroll\/progress.js" defer><\/script>/);
    assert.doesNotMatch(html, /<script>|style="/, "no inline script or style (strict CSP)");
  });

  it("shows the next sync, and a live progress line while a sync runs (none when idle)", async () => {
    const idle = await admin.page(mount);
    assert.match(
      idle.html,
      /<p class="blogroll-progress" id="blogroll-progress"[^>]*data-poll="false"[^>]* hidden><\/p>/,
      "hidden and not polling when idle",
    );
    const scheduler = server.plugin.context.scheduler;
    const real = scheduler.getStatus;
    const next = new Date(Date.now() - 60_000);
    scheduler.getStatus = async () =>
      ({
        ...(await real.call(scheduler)),
        isRunning: true,
        progress: { done: 3, total: 12 },
        nextSync: next.toISOString(),
      }) as Awaited<ReturnType<typeof real>>;
    try {
      const { html } = await admin.page(mount);
      const line = /<p class="blogroll-progress"[^>]*>[^<]*<\/p>/.exec(html)?.[0] ?? "";
      assert.match(line, /role="status"/);
      assert.match(line, /aria-live="polite"/);
      assert.match(line, /data-poll="true"/, "polls while the run goes on");
      assert.doesNotMatch(line, / hidden>/);
      assert.match(line, />Syncing: 3 of 12 blogs fetched</);
      assert.match(
        line,
        /data-progress-text="Syncing: \{done\} of \{total\} blogs fetched"/,
        "the script's template for later updates",
      );
      // Never a time that has passed while the run goes on (the timer that started it): the next is planned when it ends.
      assert.equal(summaryValue(html, "Next sync"), "planned when this sync ends");
    } finally {
      scheduler.getStatus = real;
    }
  });

  it("serves the progress script and stylesheet from the plugin's assets", async () => {
    const script = await server.get("/assets/indiekit-endpoint-blogroll/progress.js");
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /javascript/);
    assert.match(await script.text(), /api\/status|statusUrl/);
    assert.equal((await server.get("/assets/indiekit-endpoint-blogroll/styles.css")).status, 200);
  });

  it("POST /sync: redirect with a notice for forms, 202 with the status record for JSON", async () => {
    const status = await server.get(`${mount}/api/status`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    const lastSync = ((await status.json()) as { lastSync: string | null }).lastSync ?? "";
    const form = await admin.post(`${mount}/sync`, {});
    assert.equal(form.status, 303);
    assert.equal(
      form.location,
      `${mount}?syncedBefore=${encodeURIComponent(lastSync)}&notice=syncStarted`,
      "the dashboard is told when the run before this one ended",
    );
    await server.plugin.context.scheduler.syncNow(); // the run ends before the page is asked for
    const page = await admin.page(form.location ?? "");
    assert.match(page.html, /Sync started/);
    assert.match(page.html, /data-poll="true"/, "the progress line polls after a sync was started");
    assert.match(
      page.html,
      new RegExp(`data-last-sync="${lastSync}"`),
      "it compares the status with the run before, so a run already over is seen to have finished",
    );
    const forged = await admin.page(`${mount}?syncedBefore=%22%3E%3Cscript%3E&notice=syncStarted`);
    assert.doesNotMatch(forged.html, /data-last-sync="[^"]*<script/, "only a date is taken from the query");
    const json = await admin.post(`${mount}/sync`, {}, { accept: "application/json" });
    assert.equal(json.status, 202);
    const body = JSON.parse(json.html);
    assert.equal(body.status, "ok");
    assert.equal(typeof body.isRunning, "boolean");
    assert.ok("blogs" in body && "items" in body && "lastSync" in body);
    const bearer = await server.get(`${mount}/sync`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, Accept: "application/json" },
    });
    assert.equal(bearer.status, 202, "Bearer requests need no CSRF token");
    assert.equal((await admin.post(`${mount}/sync`, {}, { csrf: null })).status, 403);
  });

  it("clear and re-sync: asks for confirmation, then deletes every item and makes blogs due without validators", async () => {
    const blog = await addBlog(server.storage, { feedUrl: `${site.base}/alpha.xml`, title: "Alpha" });
    await addItems(server.storage, blog.id, [item("old", new Date())]);
    await server.storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: "active",
      nextFetchAt: new Date(Date.now() + 3_600_000),
      failureCount: 0,
      etag: '"v1"',
    });
    await server.plugin.context.scheduler.syncNow(); // let the earlier trigger's run finish first

    const confirm = await admin.page(`${mount}/clear-resync`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /name="confirm"/);
    const unconfirmed = await admin.post(`${mount}/clear-resync`, {});
    assert.equal(unconfirmed.status, 422);
    assert.match(unconfirmed.html, /href="#confirm"/);
    assert.ok((await server.storage.items.count()) > 0, "nothing deleted without confirmation");

    const cleared = await admin.post(`${mount}/clear-resync`, { confirm: "yes" });
    assert.match(cleared.location ?? "", new RegExp(`^${mount}\\?syncedBefore=[^&]*&notice=itemsCleared$`));
    await server.plugin.context.scheduler.syncNow();
    const refetched = await server.storage.blogs.get(blog.id);
    assert.equal(refetched?.itemCount, 2, "the re-sync fetched the feed again in full (no 304)");
    const items = await server.storage.items.list({ blogId: blog.id, limit: 10, offset: 0 });
    assert.deepEqual(items.map((entry) => entry.title).sort(), ["Alpha first post", "Alpha second post"]);
  });

  it("renders pages in the request's language, with dates in its format", async () => {
    const blog = await addBlog(server.storage, { title: "Dated", lastFetchAt: new Date("2024-03-05T10:20:00Z") });
    const german = await server.get(`${mount}/blogs/${blog.id}`, {
      headers: { Cookie: admin.cookie, "Accept-Language": "de-DE,de;q=0.9" },
    });
    const html = await german.text();
    assert.match(html, /<html lang="de"/);
    assert.match(html, /Zuletzt abgerufen/);
    assert.match(html, /05\.03\.2024/, "German date format");
    const english = await (await server.get(`${mount}/blogs/${blog.id}`, { headers: { Cookie: admin.cookie } })).text();
    assert.match(english, /Mar 5, 2024/);
    const british = await (
      await server.get(`${mount}/blogs/${blog.id}`, { headers: { Cookie: admin.cookie, "Accept-Language": "en-GB" } })
    ).text();
    assert.match(british, /<html lang="en"/, "English page");
    assert.match(british, /5 Mar 2024/, "British date order");
  });

  it("formats the dashboard counts in the request's language", async () => {
    const blog = await addBlog(server.storage, { title: "Many items" });
    await server.storage.items.upsertMany(
      blog.id,
      Array.from({ length: 1200 }, (_, n) => ({
        uid: `n${n}`,
        url: `https://many.example/${n}`,
        title: `Post ${n}`,
        summary: null,
        content: null,
        author: null,
        photo: null,
        categories: [],
        published: new Date(Date.now() - n * 60_000),
      })),
      new Date(),
    );
    const total = await server.storage.items.count();
    const german = await (
      await server.get(mount, { headers: { Cookie: admin.cookie, "Accept-Language": "de-DE" } })
    ).text();
    assert.ok(
      german.includes(new Intl.NumberFormat("de-DE").format(total)),
      `German count ${new Intl.NumberFormat("de-DE").format(total)}`,
    );
    const english = await (await server.get(mount, { headers: { Cookie: admin.cookie } })).text();
    assert.ok(english.includes(new Intl.NumberFormat("en").format(total)));
  });

  it("answers 404 with a page for unknown blogs", async () => {
    const response = await admin.page(`${mount}/blogs/ffffffffffffffffffffffff`);
    assert.equal(response.status, 404);
    assert.match(response.html, /Not found/);
  });
});
