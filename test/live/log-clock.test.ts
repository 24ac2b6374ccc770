/**
 * The storage's change clock on one SQLite file with two connections (as two
 * processes would have): it rises for this connection's writes and for the
 * other's events, and tells the first version that saw an event.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { LogClock } from "../../lib/live/log-clock.js";
import { openStorage } from "../../lib/storage/open.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";
import { eventually } from "../support/eventually.js";
import { memoryLogger } from "../support/server.js";
import { addBlog } from "../support/seed.js";

describe("the log clock (SQLite, two connections to one file)", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-log-clock-"));
  const file = path.join(folder, "blogroll.db");
  const logs: string[] = [];
  let own: Storage;
  let other: Storage;

  before(async () => {
    own = await openStorage({ hostCollections: null, mongodbUrl: null, databasePath: file });
    other = createSqliteStorage(file);
    await other.init();
  });
  after(async () => {
    await other.close();
    await own.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const clockOn = (pollInterval: number) =>
    new LogClock({ getStorage: async () => own, log: memoryLogger(logs), pollInterval });

  it("rises for a write of its own connection and, while followed, for the other connection's events", async () => {
    const clock = clockOn(20);
    try {
      let rises = 0;
      clock.onChange(() => rises++);
      await clock.follow();
      const start = clock.version;
      assert.ok(start > 0, "the first read sets it");
      await addBlog(own, { title: "Own" });
      await eventually("a rise for its own write", async () => clock.version > start);
      const afterOwn = clock.version;
      await addBlog(other, { title: "Other's" });
      await eventually("a rise for the other connection's event, with no call", async () => clock.version > afterOwn);
      assert.equal(rises, clock.version, "each rise told");
    } finally {
      clock.stop();
    }
  });

  it("gives the first version that saw an event, reading the log when it has not; null for an id the log never gave", async () => {
    // Reads only when asked (the poll far off).
    const clock = clockOn(3_600_000);
    try {
      await clock.follow();
      const before = clock.version;
      await addBlog(other, { title: "First" });
      const first = (await other.events.bounds()).newest;
      const seenFirst = await clock.covering(first);
      assert.ok(seenFirst !== null && seenFirst > before, "read the log to find it");
      await addBlog(other, { title: "Second" });
      const second = (await other.events.bounds()).newest;
      const seenSecond = await clock.covering(second);
      assert.ok(seenSecond !== null && seenSecond > seenFirst);
      assert.equal(await clock.covering(first), seenFirst, "an earlier event: the version that first saw it");
      assert.equal(await clock.covering(second + 1), null);
      assert.equal(clock.version, seenSecond, "no rise without a change");
    } finally {
      clock.stop();
    }
    assert.deepEqual(logs, []);
  });
});
