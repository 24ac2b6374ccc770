/**
 * Bulk actions at scale: every blog that matches the list's filters, a
 * thousand of them, hidden or deleted in one request and one storage write.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { logIn, type AdminSession } from "./admin-session.js";
import { startTestServer, type TestServer } from "../support/server.js";

after(() => closeParsePool());

const BIG = 1000;

describe("admin: bulk actions on every blog that matches (standalone host, SQLite)", () => {
  let server: TestServer;
  let admin: AdminSession;
  let base: string;
  const calls = { list: 0, edit: 0, softDelete: 0, hideMany: 0, softDeleteMany: 0 };

  before(async () => {
    server = await startTestServer("sqlite");
    base = `${server.plugin.mountPath}/blogs`;
    for (let i = 0; i < BIG + 20; i++) {
      await server.storage.blogs.upsertFromSource({
        feedUrl: `https://b${i}.example/feed`,
        title: `Blog ${i}`,
        source: "manual",
        category: i < BIG ? "Big" : "Other",
      });
    }
    admin = await logIn(server);
    // Each storage call the bulk actions make is counted.
    const blogs = server.storage.blogs;
    for (const name of Object.keys(calls) as Array<keyof typeof calls>) {
      const original = blogs[name].bind(blogs) as (...args: unknown[]) => Promise<unknown>;
      (blogs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls[name]++;
        return original(...args);
      };
    }
  });
  after(() => server.close());

  const post = (fields: Array<[string, string]>) =>
    server.get(`${base}/bulk`, {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([["_csrf", admin.csrf], ...fields]),
      redirect: "manual",
    });
  const countWhere = async (category: string, hidden: boolean) =>
    (
      await server.storage.blogs.list({
        visibility: "admin",
        category,
        limit: 0,
        offset: 0,
        ...(hidden ? { status: "hidden" as const } : {}),
      })
    ).total;

  it("the list offers every blog that matches, beyond the page", async () => {
    const page = await admin.page(`${base}?category=Big`);
    assert.match(page.html, /name="all" value="1"/);
    assert.match(page.html, /Apply to all 1[,.\u202f\u00a0 ]?000 blogs that match the filters/);
    assert.doesNotMatch(
      (await admin.page(`${base}?category=Other`)).html,
      /name="all"/,
      "20 blogs fit one page: nothing more to offer",
    );
  });

  it("hides the 1 000 blogs of a filter in one request and one storage write; the others stay", async () => {
    const back = `${base}?category=Big`;
    const listed = calls.list;
    const response = await post([
      ["action", "hide"],
      ["all", "1"],
      ["back", back],
    ]);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), `${back}&notice=blogsHidden`);
    // The filters went to storage whole: no page of the list was read to find the blogs.
    assert.deepEqual(
      { ...calls, list: calls.list - listed },
      { list: 0, edit: 0, softDelete: 0, hideMany: 1, softDeleteMany: 0 },
    );
    assert.equal(await countWhere("Big", true), BIG);
    assert.equal(await countWhere("Other", true), 0);
  });

  it("deletes them after a confirmation that names the first and counts the rest", async () => {
    const back = `${base}?category=Big`;
    const ask = await post([
      ["action", "delete"],
      ["all", "1"],
      ["back", back],
    ]);
    assert.equal(ask.status, 200);
    const html = await ask.text();
    assert.match(html, /Delete 1[,.\u202f\u00a0 ]?000 blogs\?/);
    assert.match(html, /and 950 more/);
    assert.match(html, /name="all" value="1"/);
    assert.doesNotMatch(html, /name="ids"/, "the selection travels as the filter, not as a thousand fields");
    const done = await post([
      ["action", "delete"],
      ["confirm", "yes"],
      ["all", "1"],
      ["back", back],
    ]);
    assert.equal(done.status, 303);
    assert.equal(await countWhere("Big", false), 0);
    assert.equal(await countWhere("Other", false), 20);
    assert.equal(calls.softDeleteMany, 1);
    assert.equal(calls.softDelete, 0);
  });

  it("hides every blog a search matches in one storage write, the deleted ones left out", async () => {
    const before = { ...calls };
    const back = `${base}?q=${encodeURIComponent("blog 101")}`;
    const response = await post([
      ["action", "hide"],
      ["all", "1"],
      ["back", back],
    ]);
    assert.equal(response.status, 303);
    assert.deepEqual([calls.list - before.list, calls.hideMany - before.hideMany], [0, 1]);
    // "Blog 1010" to "Blog 1019" of the others; "Blog 101" and "Blog 101x" are deleted.
    assert.equal(await countWhere("Other", true), 10);
  });
});
