/**
 * An origin's /.well-known/recommendations.opml that has nothing is asked
 * once: not again for another blog of that origin, in the same run or a
 * later one, until a week has passed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Storage } from "../../lib/storage/types.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { DAY } from "../../lib/time/durations.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { conditionalFeed, rss, startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { addBlog, openTempStorage, testOptions, type TempStorage } from "../sync/harness.js";

const WELL_KNOWN = "/.well-known/recommendations.opml";

describe("the well-known blogroll path, asked once per origin", () => {
  let temp: TempStorage;
  let storage: Storage;
  let server: FeedServer;
  let clock = new Date("2026-06-01T08:00:00Z");
  const sync = () =>
    createSyncRunner({ options: testOptions({ siteIcons: false }), now: () => clock })(storage, {
      signal: new AbortController().signal,
      progress: () => undefined,
    });

  before(async () => {
    temp = await openTempStorage();
    storage = temp.storage;
    server = await startFeedServer();
    const [origin] = server.origins;
    // Three blogs of one origin, each with a site of its own, none announcing a blogroll; the well-known path is a 404.
    for (const name of ["a", "b", "c"]) {
      server.route(
        `/${name}/feed.xml`,
        conditionalFeed(() =>
          rss([{ guid: `${name}-1`, published: new Date(clock.getTime() - 3_600_000) }], {
            link: `${origin}/${name}/`,
          }),
        ),
      );
    }
  });
  after(async () => {
    await server.close();
    await temp.cleanup();
    await closeParsePool();
  });

  it("one request for two blogs in one run, none for a third blog of the origin a day later, one again after a week", async () => {
    const [origin] = server.origins;
    await addBlog(storage, `${origin}/a/feed.xml`);
    await addBlog(storage, `${origin}/b/feed.xml`);
    await sync();
    assert.equal(server.hits(WELL_KNOWN), 1);

    clock = new Date(clock.getTime() + DAY);
    await addBlog(storage, `${origin}/c/feed.xml`);
    await sync();
    assert.equal(server.hits(WELL_KNOWN), 1, "the miss is remembered for the origin");
    const c = (await storage.blogs.getByFeedUrl(`${origin}/c/feed.xml`))!;
    assert.equal((await storage.recommendations.getBlogroll(c.id))?.url, null, "the third blog is known to have none");

    clock = new Date(clock.getTime() + 7 * DAY);
    await sync();
    assert.equal(server.hits(WELL_KNOWN), 2, "a week on, asked once more for all three");
  });
});
