/**
 * Whole-blogroll figures (status counts, categories) are computed once per
 * change, not per request; during a sync run, whose every fetch is a write,
 * at most once per BUSY_HOLD_MS however many requests come.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { cachedPerContext } from "../../lib/api/short-cache.js";
import type { BlogrollContext } from "../../lib/context.js";
import { countingChanges } from "../../lib/storage/change-count.js";
import type { Storage } from "../../lib/storage/types.js";
import { openTempStorage, type TempStorage } from "../sync/harness.js";

let temp: TempStorage;
let storage: Storage;
let context: BlogrollContext;
beforeEach(async () => {
  temp = await openTempStorage();
  storage = countingChanges(temp.storage);
  context = { getStorage: async () => storage } as unknown as BlogrollContext;
});
afterEach(() => temp.cleanup());

const write = (index: number) =>
  storage.blogs.upsertFromSource({ feedUrl: `https://w${index}.example/feed`, title: `W${index}`, source: "manual" });

test("computed again after each write when idle; held through writes while a run is busy", async () => {
  let loads = 0;
  // Hours rather than seconds: the test must not depend on how fast a loaded machine runs it.
  const figure = cachedPerContext(3_600_000, async () => ++loads, 3_600_000);
  assert.equal(await figure(context), 1);
  assert.equal(await figure(context), 1, "no write: the same value");
  await write(1);
  assert.equal(await figure(context), 2, "after a write: computed again");

  // A run writes between every request: the value holds.
  for (let index = 2; index < 12; index++) {
    await write(index);
    assert.equal(await figure(context, "running", true), 3);
  }
  assert.equal(loads, 3, "ten requests during a run: one computation");
  // The run ends (another stamp): computed again at once.
  assert.equal(await figure(context, "done", false), 4);
});
