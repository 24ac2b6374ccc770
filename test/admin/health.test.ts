/**
 * Blog health where the owner sees it: each blog's page says how it is kept
 * fresh, how often it posts and its health; the blogs list filters dormant,
 * failing, gone and moved blogs and hides or deletes the ticked ones; and
 * the owner's status counts blogs by freshness and health.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Blog, FetchRecord } from "../../lib/storage/types.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { TestServer } from "../support/server.js";
import { addBlog, daysAgo } from "../support/seed.js";
import { useAdminFixture, type AdminSession } from "./admin-session.js";
import { HOUR } from "../../lib/time/durations.js";

after(() => closeParsePool());

const listedTitles = (html: string) =>
  [...html.matchAll(/<th scope="row">[\s\S]*?<a href="[^"]+">([^<]+)<\/a>/g)].map((match) => match[1]).sort();
/** The text of the summary row named `key` on a blog's page. */
function row(html: string, key: string): string {
  const match = new RegExp(`${key}\\s*</dt>\\s*<dd[^>]*>([\\s\\S]*?)</dd>`).exec(html);
  return match
    ? match[1]
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim()
    : "";
}

describe("admin: blog health (standalone host, SQLite)", () => {
  let server: TestServer;
  let admin: AdminSession;
  let base: string;
  const blogs: Record<string, Blog> = {};

  useAdminFixture((fixture) => {
    ({ server, admin } = fixture);
    base = `${server.plugin.mountPath}/blogs`;
  });

  const fetched = async (title: string, record: Partial<FetchRecord>, fields: Parameters<typeof addBlog>[1] = {}) => {
    const blog = await addBlog(server.storage, { title, ...fields });
    await server.storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: "active",
      nextFetchAt: new Date(Date.now() + HOUR),
      failureCount: 0,
      ...record,
    });
    blogs[title] = (await server.storage.blogs.get(blog.id))!;
  };
  const schedule = (posts: Date[], fetchInterval: number, fetchReason = "posting-rate") => ({
    recentPosts: posts,
    fetchInterval,
    fetchReason,
    waitUntil: null,
  });

  it("each blog's page says how it is kept fresh, how often it posts, and its health", async () => {
    await fetched("Lively", { schedule: schedule([daysAgo(1), daysAgo(2), daysAgo(3)], 2 * HOUR) });
    await fetched("Sleepy", { schedule: schedule([daysAgo(400)], 24 * HOUR) });
    await fetched("Broken", {
      at: daysAgo(9),
      status: "error",
      error: "HTTP 500 Internal Server Error",
      failureCount: 1,
    });
    await server.storage.blogs.recordFetch(blogs.Broken.id, {
      at: new Date(),
      status: "error",
      error: "HTTP 502 <Bad> Gateway",
      nextFetchAt: new Date(Date.now() + HOUR),
      failureCount: 2,
      schedule: schedule([], 40 * 60_000, "backoff"),
    });
    await fetched("Paced", { schedule: schedule([daysAgo(1)], 4 * HOUR, "server") });

    const lively = (await admin.page(`${base}/${blogs.Lively.id}`)).html;
    assert.equal(row(lively, "Kept fresh"), "Fetched about every 2 hours, by how often it posts");
    assert.equal(row(lively, "Posts"), "About every 24 hours");
    assert.equal(row(lively, "Health"), "Healthy");
    const next = row(lively, "Next check");
    assert.notEqual(next, "");
    assert.equal(lively.split(next).length - 1, 1, "the next fetch is said once, beside why it comes then");

    const sleepy = (await admin.page(`${base}/${blogs.Sleepy.id}`)).html;
    assert.equal(row(sleepy, "Posts"), "No post in the last 90 days");
    assert.equal(row(sleepy, "Health"), "Dormant: no post for 180 days or more");
    assert.equal(row(sleepy, "Kept fresh"), "Fetched about every 24 hours, by how often it posts");

    const broken = (await admin.page(`${base}/${blogs.Broken.id}`)).html;
    assert.match(row(broken, "Health"), /^Failing since .+ — HTTP 502 &lt;Bad&gt; Gateway$/, "the last error, escaped");
    assert.equal(row(broken, "Kept fresh"), "Backing off after errors; next try in about 40 minutes");

    const paced = (await admin.page(`${base}/${blogs.Paced.id}`)).html;
    assert.equal(row(paced, "Kept fresh"), "Fetched about every 4 hours, as often as its server allows");
  });

  it("the blogs list filters dormant, failing, gone and moved blogs", async () => {
    await fetched("Erring", { status: "error", error: "HTTP 500", failureCount: 1 });
    await fetched("Gone", { status: "gone", error: "HTTP 410 Gone", failureCount: 1, nextFetchAt: null });
    const moving = await addBlog(server.storage, { title: "Moving", feedUrl: "https://old-home.example/feed" });
    await server.storage.blogs.recordFetch(moving.id, {
      at: new Date(),
      status: "active",
      nextFetchAt: null,
      failureCount: 0,
      feedUrl: "https://new-home.example/feed",
    });

    assert.deepEqual(listedTitles((await admin.page(`${base}?health=dormant`)).html), ["Sleepy"]);
    const failing = (await admin.page(`${base}?health=failing`)).html;
    assert.deepEqual(listedTitles(failing), ["Broken"], "errors for a week or more; Erring only since today");
    assert.match(failing, /HTTP 502 &lt;Bad&gt; Gateway/, "with the last error");
    assert.match(failing, /<option value="failing" selected>/);
    assert.deepEqual(listedTitles((await admin.page(`${base}?health=gone`)).html), ["Gone"]);
    assert.deepEqual(listedTitles((await admin.page(`${base}?health=moved`)).html), ["Moving"]);
    assert.equal((await admin.page(`${base}?health=bogus`)).status, 200);
  });

  it("hides the ticked blogs at once; deletes them after a confirmation", async () => {
    const post = (fields: Array<[string, string]>) =>
      server.get(`${base}/bulk`, {
        method: "POST",
        headers: { Cookie: admin.cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([["_csrf", admin.csrf], ...fields]),
        redirect: "manual",
      });
    const back = `${base}?health=dormant`;
    const hide = await post([
      ["action", "hide"],
      ["ids", blogs.Sleepy.id],
      ["ids", blogs.Gone.id],
      ["back", back],
    ]);
    assert.equal(hide.status, 303);
    assert.equal(hide.headers.get("location"), `${back}&notice=blogsHidden`);
    assert.equal((await server.storage.blogs.get(blogs.Sleepy.id))?.hidden, true);
    assert.equal((await server.storage.blogs.get(blogs.Gone.id))?.hidden, true);

    const ask = await post([
      ["action", "delete"],
      ["ids", blogs.Erring.id],
      ["ids", blogs.Gone.id],
    ]);
    assert.equal(ask.status, 200);
    const page = await ask.text();
    assert.match(page, /Delete 2 blogs\?/);
    assert.equal(
      (await server.storage.blogs.get(blogs.Erring.id))?.status,
      "error",
      "nothing deleted before the confirmation",
    );
    const confirmed = await post([
      ["action", "delete"],
      ["confirm", "yes"],
      ["ids", blogs.Erring.id],
      ["ids", blogs.Gone.id],
    ]);
    assert.equal(confirmed.status, 303);
    assert.equal((await server.storage.blogs.get(blogs.Erring.id))?.status, "deleted");
    assert.equal((await server.storage.blogs.get(blogs.Gone.id))?.status, "deleted");

    const nothing = await post([
      ["action", "hide"],
      ["ids", "not-an-id"],
    ]);
    assert.equal(nothing.headers.get("location"), `${base}?notice=bulkNone`);
    const forged = await server.get(`${base}/bulk`, {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["action", "hide"],
        ["ids", blogs.Lively.id],
      ]),
      redirect: "manual",
    });
    assert.equal(forged.status, 403, "no CSRF token, no change");
    assert.equal((await server.storage.blogs.get(blogs.Lively.id))?.hidden, false);
  });

  it("the owner's status counts blogs by how they are kept fresh and by health, apart from the public counts", async () => {
    const response = await server.get(`${server.api}/owner-status`, { headers: { Cookie: admin.cookie } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const status = await response.json();
    assert.equal(status.status, "ok");
    assert.equal(typeof status.blogs.count, "number");
    assert.deepEqual(Object.keys(status.owner.blogs.byFreshness).sort(), [
      "backoff",
      "external",
      "off",
      "pending",
      "push",
      "schedule",
      "server",
    ]);
    assert.deepEqual(Object.keys(status.owner.blogs.byHealth).sort(), [
      "dormant",
      "erroring",
      "failing",
      "gone",
      "healthy",
      "moved",
    ]);
    assert.equal(status.owner.blogs.byHealth.failing, 1);
    assert.equal(status.owner.blogs.byHealth.moved, 1);
    assert.equal(status.owner.blogs.byFreshness.server, 1);
    assert.equal(status.owner.blogs.public, status.blogs.count, "the public count beside the owner's");
    assert.ok(status.owner.blogs.count > status.blogs.count, "hidden and gone blogs are the owner's alone");
    const anonymous = await server.get(`${server.api}/owner-status`, { headers: { Accept: "application/json" } });
    assert.equal(anonymous.status, 401, "behind the login");
    const publicStatus = await (await server.get(`${server.api}/status`)).json();
    assert.equal(publicStatus.owner, undefined);
    assert.deepEqual(Object.keys(publicStatus.blogs), ["count"]);
  });
});
