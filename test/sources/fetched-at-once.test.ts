/**
 * Blogs the owner takes in are fetched at once, not at the next sync: a
 * suggestion added from the Suggestions page, and the sources of a
 * BLOGROLL_CONFIG file at start-up (as the add form and new sources already
 * were). The scheduler runs with its first sync an hour away, so only the
 * fetch-at-once path can have fetched them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import type { Blog } from "../../lib/storage/types.js";
import { startFixtureSite, type FixtureSite } from "../admin/fixture-site.js";
import { startStandalone } from "../hardening/standalone-process.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { HOUR } from "../../lib/time/durations.js";

after(() => closeParsePool());

/** Polls `read` until `done` holds or 30 s pass; returns the last value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

describe("a suggestion added is fetched at once (standalone host, scheduler running, first sync an hour away)", () => {
  let server: TestServer;
  let site: FixtureSite;

  before(async () => {
    site = await startFixtureSite();
    server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: HOUR, syncInterval: HOUR });
    // Two followed blogs whose blogrolls both list Gamma: a suggestion.
    for (const name of ["alpha", "beta"]) {
      const { blog } = await server.storage.blogs.upsertFromSource({
        feedUrl: `${site.base}/${name}.xml`,
        title: name,
        source: "manual",
      });
      await server.storage.recommendations.saveBlogroll(
        {
          blogId: blog.id,
          url: `${site.base}/${name}.opml`,
          via: "head",
          checkedAt: new Date(),
          etag: null,
          lastModified: null,
          count: 1,
        },
        [{ feedUrl: `${site.base}/gamma.xml`, siteUrl: `${site.base}/gamma/`, title: "Gamma Log", description: null }],
      );
    }
  });
  after(async () => {
    await server?.close();
    await site?.close();
  });

  it("Add on the Suggestions page fetches the blog in the background: its posts are there before any sync", async () => {
    const add = await server.get(`${server.plugin.mountPath}/suggestions/add`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ feedUrl: `${site.base}/gamma.xml` }),
      redirect: "manual",
    });
    assert.equal(add.status, 303);
    const blog = await until(
      () => server.storage.blogs.getByFeedUrl(`${site.base}/gamma.xml`),
      (found) => found?.lastFetchAt != null,
    );
    assert.ok(blog, "the suggestion is a blog now");
    assert.notEqual(blog.lastFetchAt, null, "fetched without waiting for a sync");
    assert.equal(blog.status, "active", blog.lastError ?? "");
    assert.ok(blog.itemCount > 0, "its posts are stored");
    assert.equal((await server.plugin.context.scheduler.getStatus()).lastSync, null, "no sync ran");
  });
});

describe("a blog added in the add form costs its site one request for its feed (standalone host, scheduler running, first sync an hour away)", () => {
  let server: TestServer;
  let site: FixtureSite;

  before(async () => {
    site = await startFixtureSite();
    server = await startTestServer("sqlite", { scheduler: true, initialSyncDelay: HOUR, syncInterval: HOUR });
  });
  after(async () => {
    await server?.close();
    await site?.close();
  });

  /** Posts the add form as the owner and waits for the new blog's first fetch. */
  async function add(fields: Record<string, string>, feedUrl: string): Promise<Blog | null> {
    const response = await server.get(`${server.plugin.mountPath}/blogs`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    assert.equal(response.status, 303, await response.text());
    return until(
      () => server.storage.blogs.getByFeedUrl(feedUrl),
      (found) => found?.lastFetchAt != null,
    );
  }

  /** How often the site was asked for one path. */
  const asked = (pathname: string) => site.requests.filter((request) => request === pathname).length;

  it("a feed address: the feed is read once, to know it is a feed, and that read is the blog's first fetch", async () => {
    const blog = await add({ action: "add", url: `${site.base}/gamma.xml` }, `${site.base}/gamma.xml`);
    assert.ok(blog?.lastFetchAt, "fetched without waiting for a sync");
    assert.equal(blog.status, "active", blog.lastError ?? "");
    assert.equal(blog.itemCount, 1, "its post is stored");
    assert.equal(asked("/gamma.xml"), 1, site.requests.join(", "));
  });

  it("a site address: its page once, its feed once; a feed picked after Find feeds: once", async () => {
    const blog = await add({ action: "add", url: `${site.base}/delta/` }, `${site.base}/delta.xml`);
    assert.ok(blog?.lastFetchAt);
    assert.ok(blog.itemCount > 0, "its posts are stored");
    assert.equal(asked("/delta/"), 1, site.requests.join(", "));
    assert.equal(asked("/delta.xml"), 1, site.requests.join(", "));

    const picked = await add(
      { action: "add", url: `${site.base}/delta/`, feedUrl: `${site.base}/delta-comments.xml` },
      `${site.base}/delta-comments.xml`,
    );
    assert.ok(picked?.lastFetchAt);
    assert.equal(picked.status, "active", picked.lastError ?? "");
    assert.equal(asked("/delta-comments.xml"), 1, site.requests.join(", "));
  });
});

describe("BLOGROLL_CONFIG sources are read and their blogs fetched at start-up (the standalone server process)", () => {
  let site: FixtureSite;
  let folder: string;

  before(async () => {
    site = await startFixtureSite();
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-config-at-once-"));
  });
  after(async () => {
    await site?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it(
    "an OPML source of the config file: every blog it lists is fetched before the first sync, an hour away",
    { timeout: 90_000 },
    async () => {
      const server = await startStandalone(folder, {
        allowPrivateNetworks: true,
        initialSyncDelay: HOUR,
        syncInterval: HOUR,
        sources: [{ type: "opml_url", name: "Fixture", url: `${site.base}/blogroll.opml` }],
      });
      try {
        const api = `${server.base}/blogrollapi/api`;
        const blogs = await until(
          async () =>
            (
              (await (await fetch(`${api}/blogs`)).json()) as {
                items: Array<Pick<Blog, "title" | "status"> & { lastFetchAt: string | null }>;
              }
            ).items,
          (items) => items.length === 3 && items.every((blog) => blog.lastFetchAt !== null),
        );
        assert.deepEqual(
          blogs.map((blog) => blog.title).sort(),
          ["Alpha Notes", "Beta Journal", "Gamma Log"],
          server.output(),
        );
        assert.deepEqual(
          blogs.map((blog) => blog.status),
          ["active", "active", "active"],
          "each fetched well",
        );
        const status = (await (await fetch(`${api}/status`)).json()) as {
          lastSync: string | null;
          items: { count: number };
        };
        assert.equal(status.lastSync, null, "no sync ran: the start-up read did it");
        assert.ok(status.items.count > 0);
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    },
  );
});
