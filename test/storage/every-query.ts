/**
 * Makes every query a sync, the API and the admin make, on a store of
 * `fixture`'s blogs: three sync runs, each public API route, each blogs-list
 * filter, the dashboard and the bulk actions. The SQLite query-plan test and
 * the MongoDB query-shape test watch the same workload.
 */
import assert from "node:assert/strict";
import { createSyncRunner } from "../../lib/sync/run.js";
import { loopbackDispatcher, type FeedFixture } from "../../bench/support/fixture-server.js";
import { addBlogs } from "../../bench/support/stores.js";
import { logIn } from "../admin/admin-session.js";
import type { TestServer } from "../support/server.js";

export async function makeEveryQuery(server: TestServer, fixture: FeedFixture, blogCount: number): Promise<void> {
  await addBlogs(
    server.storage,
    Array.from({ length: blogCount }, (_, index) => fixture.urlOf(index)),
    5,
  );
  const push = server.plugin.context.push;
  const runner = createSyncRunner({
    options: server.plugin.settings,
    dispatcher: loopbackDispatcher(2),
    onFeedRead: push.observe,
    pushSignal: push,
  });
  const context = (everyone: boolean) => ({
    signal: new AbortController().signal,
    everyone,
    progress: () => undefined,
  });
  await runner(server.storage, context(true));
  await runner(server.storage, context(true));
  await runner(server.storage, context(false));

  const { items: blogs } = await server.storage.blogs.list({ limit: 5, offset: 0, visibility: "admin" });
  const api = [
    "/items?limit=50",
    "/items?offset=60",
    "/items?category=Category%201",
    `/items?blog=${blogs[0].id}`,
    "/blogs",
    "/blogs?sort=recent",
    "/blogs?category=Category%202",
    `/blogs/${blogs[1].id}`,
    "/categories",
    "/status",
    "/opml",
  ];
  for (const path of api) assert.equal((await server.get(`${server.api}${path}`)).status, 200, path);

  const admin = await logIn(server);
  const base = `${server.plugin.mountPath}/blogs`;
  const pages = [
    "",
    "?q=blog+1",
    "?category=Category+3",
    "?status=error",
    "?status=hidden",
    "?health=dormant",
    "?health=failing",
    "?health=moved",
    "?health=gone",
    "?source=manual",
    "?page=2",
    `/${blogs[2].id}`,
  ];
  for (const page of pages) assert.equal((await admin.page(`${base}${page}`)).status, 200, page);
  assert.equal((await admin.page(server.plugin.mountPath)).status, 200, "dashboard");
  const bulk = await server.get(`${base}/bulk`, {
    method: "POST",
    headers: { Cookie: admin.cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([
      ["_csrf", admin.csrf],
      ["action", "hide"],
      ...blogs.slice(3).map((blog): [string, string] => ["ids", blog.id]),
    ]),
    redirect: "manual",
  });
  assert.equal(bulk.status, 303, "bulk hide");
  // Every blog the list's filters match, in one write.
  for (const back of ["?category=Category+4", "?q=blog+2", "?source=manual"]) {
    const all = await server.get(`${base}/bulk`, {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["_csrf", admin.csrf],
        ["action", "hide"],
        ["all", "1"],
        ["back", `${base}${back}`],
      ]),
      redirect: "manual",
    });
    assert.equal(all.status, 303, `bulk hide of all that match ${back}`);
  }
}
