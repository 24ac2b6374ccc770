/**
 * A fediverse handle's profile address, looked up again once a week by
 * WebFinger over https on loopback: a new address replaces the old, an
 * account the server says is gone loses its address, a server that fails
 * keeps what was known, and no blog costs more than its lookup a week.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  createFediverseRechecks,
  FEDIVERSE_RECHECK,
  FEDIVERSE_SPREAD,
  recheckSpread,
} from "../../lib/fediverse/recheck.js";
import { HostLimiter } from "../../lib/http/host-limiter.js";
import { resolveOptions } from "../../lib/options.js";
import { openStorage } from "../../lib/storage/open.js";
import type { Storage } from "../../lib/storage/types.js";
import { DAY } from "../../lib/time/durations.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { conditionalFeed, rss, startFeedServer } from "../sync/feed-server.js";
import { addBlog as addFeed } from "../sync/harness.js";
import { addBlog } from "../support/seed.js";
import { loopbackTls, trustLoopbackCertificate } from "../support/fediverse-web.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";

trustLoopbackCertificate();

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });

describe("fediverse profile addresses asked again weekly (WebFinger over https on loopback)", () => {
  let social: FixtureServer;
  let storage: Storage;
  let folder: string;
  let host: string;
  /** What the server says of @cy: its profile page now, or a status. */
  let answer: { profile: string } | { status: number } = { profile: "" };

  before(async () => {
    social = await startFixtureServer(undefined, { tls: loopbackTls });
    host = new URL(social.url).host;
    social.route("/.well-known/webfinger", (_request, response) => {
      if ("status" in answer) return void response.writeHead(answer.status).end();
      response.writeHead(200, { "content-type": "application/jrd+json" }).end(
        JSON.stringify({
          subject: `acct:cy@${host}`,
          links: [{ rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: answer.profile }],
        }),
      );
    });
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-fediverse-"));
    storage = await openStorage({ hostCollections: null, mongodbUrl: null, databasePath: path.join(folder, "b.db") });
  });
  after(async () => {
    await storage.close();
    await social.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** One sync run's rechecks at `at`, for the blog as stored now. */
  async function run(blogId: string, at: Date) {
    const rechecks = createFediverseRechecks({
      storage,
      options,
      limiter: new HostLimiter(2),
      lane: new HostLimiter(4),
      signal: new AbortController().signal,
      now: () => at,
      log: (message) => assert.fail(message),
    });
    rechecks.want((await storage.blogs.get(blogId))!);
    return rechecks.settled();
  }
  const lookups = () => social.hits("/.well-known/webfinger");

  it("follows a moved profile, keeps it through a failing server, clears it when the account is gone, one lookup a week at most", async () => {
    const blog = await addBlog(storage, { title: "Cy", siteUrl: "https://cy.example/" });
    const handle = `@cy@${host}`;
    await storage.blogs.edit(blog.id, { fediverse: handle, fediverseUrl: "https://old.example/@cy" });
    const start = new Date("2026-11-01T00:00:00Z");
    const week = FEDIVERSE_RECHECK + recheckSpread(blog.id);
    const profile = async () => (await storage.blogs.get(blog.id))?.fediverseUrl;

    // First seen: it was looked up when it was set; its week starts now.
    assert.deepEqual(await run(blog.id, start), { checked: 0, changed: 0 });
    assert.deepEqual(await run(blog.id, new Date(start.getTime() + week - 1)), { checked: 0, changed: 0 });
    assert.equal(lookups(), 0, "no request within the week");

    answer = { profile: `${social.url}/@cy` };
    let at = new Date(start.getTime() + week);
    assert.deepEqual(await run(blog.id, at), { checked: 1, changed: 1 });
    assert.equal(await profile(), `${social.url}/@cy`, "the new profile address");
    assert.equal((await storage.blogs.get(blog.id))?.fediverse, handle, "the handle stays");
    assert.deepEqual(await run(blog.id, new Date(at.getTime() + DAY)), { checked: 0, changed: 0 });
    assert.equal(lookups(), 1, "one lookup that week");

    answer = { status: 503 };
    at = new Date(at.getTime() + week);
    assert.deepEqual(await run(blog.id, at), { checked: 1, changed: 0 });
    assert.equal(await profile(), `${social.url}/@cy`, "a failing server changes nothing");

    for (const status of [404, 410]) {
      await storage.blogs.edit(blog.id, { fediverse: handle, fediverseUrl: `${social.url}/@cy` });
      answer = { status };
      at = new Date(at.getTime() + week);
      assert.deepEqual(await run(blog.id, at), { checked: 1, changed: 1 }, String(status));
      assert.equal(await profile(), null, `${status}: the account is gone, its address with it`);
      assert.equal((await storage.blogs.get(blog.id))?.fediverse, handle, "the owner's handle stays, shown as text");
    }
    assert.equal(lookups(), 4);
  });

  it("a handle the owner changed since the last lookup starts a new week; a blog without one costs nothing", async () => {
    const blog = await addBlog(storage, { title: "Dee", siteUrl: "https://dee.example/" });
    const before = lookups();
    const start = new Date("2026-11-01T00:00:00Z");
    await run(blog.id, start);
    await storage.blogs.edit(blog.id, { fediverse: `@cy@${host}`, fediverseUrl: `${social.url}/@cy` });
    await run(blog.id, new Date(start.getTime() + 30 * DAY));
    await storage.blogs.edit(blog.id, { fediverse: `@dee@${host}`, fediverseUrl: `${social.url}/@dee` });
    assert.deepEqual(await run(blog.id, new Date(start.getTime() + 60 * DAY)), { checked: 0, changed: 0 });
    assert.equal(lookups(), before, "set by the owner (and looked up then): no lookup until a week later");
  });

  it("a sync run asks again for the handle of a blog whose feed it fetches, once its week has passed", async () => {
    const feeds = await startFeedServer();
    try {
      feeds.route(
        "/cy.xml",
        conditionalFeed(() => rss([{ guid: "one", published: new Date() }])),
      );
      const blog = await addFeed(storage, `${feeds.origins[0]}/cy.xml`);
      await storage.blogs.edit(blog.id, { fediverse: `@cy@${host}`, fediverseUrl: "https://old.example/@cy" });
      answer = { profile: `${social.url}/@cy-moved` };
      const start = Date.now();
      const everyone = { signal: new AbortController().signal, everyone: true, progress: () => {} };
      const syncAt = (at: number) => createSyncRunner({ options, now: () => new Date(at) })(storage, everyone);
      const before = lookups();
      await syncAt(start);
      assert.equal(lookups(), before, "the first run notes the handle");
      await syncAt(start + FEDIVERSE_RECHECK + FEDIVERSE_SPREAD);
      assert.equal(lookups(), before + 1);
      assert.equal((await storage.blogs.get(blog.id))?.fediverseUrl, `${social.url}/@cy-moved`);
    } finally {
      await feeds.close();
      await closeParsePool();
    }
  });

  it("a sync run asks again for the handle of a blog the Microsub plugin follows, though it never fetches its feed", async () => {
    // A store of its own: only this blog's lookups are counted.
    const own = await openStorage({
      hostCollections: null,
      mongodbUrl: null,
      databasePath: path.join(folder, "microsub.db"),
    });
    try {
      const blog = await addBlog(own, {
        title: "Mo",
        source: "microsub",
        microsubFeedId: "feed-mo",
        fediverse: `@mo@${host}`,
        fediverseUrl: "https://old.example/@mo",
      });
      assert.equal(blog.skipItemFetch, true, "its posts come from Microsub");
      answer = { profile: `${social.url}/@mo-moved` };
      const start = Date.now();
      const scheduled = { signal: new AbortController().signal, everyone: false, progress: () => {} };
      const syncAt = (at: number) => createSyncRunner({ options, now: () => new Date(at) })(own, scheduled);
      const before = lookups();
      await syncAt(start);
      assert.equal(lookups(), before, "the first run notes the handle");
      await syncAt(start + FEDIVERSE_RECHECK + FEDIVERSE_SPREAD);
      assert.equal(lookups(), before + 1, "looked up again once its week has passed");
      assert.equal((await own.blogs.get(blog.id))?.fediverseUrl, `${social.url}/@mo-moved`);
      await syncAt(start + FEDIVERSE_RECHECK + FEDIVERSE_SPREAD + DAY);
      assert.equal(lookups(), before + 1, "not again within its new week");
    } finally {
      await own.close();
      await closeParsePool();
    }
  });

  it("spreads blogs over a day beyond the week, the same for a blog at every run", () => {
    const spreads = Array.from({ length: 200 }, (_, n) => recheckSpread(`blog-${n}`));
    assert.ok(spreads.every((spread) => spread >= 0 && spread < FEDIVERSE_SPREAD));
    assert.equal(recheckSpread("blog-7"), spreads[7]);
    assert.ok(new Set(spreads.map((spread) => Math.floor(spread / (FEDIVERSE_SPREAD / 24)))).size > 12, "most hours");
  });
});
