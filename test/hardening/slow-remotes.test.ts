/**
 * Remote faults do not slow others down: feeds that hang until the timeout
 * occupy at most their share of the pool, so every other feed is served
 * before the first hanging request is even cut off. (Order of events, not
 * clocks: the hanging requests are dropped by their server once every fast
 * feed is served, and the fetch timeout is long enough that only a pool
 * blocked by them reaches it, however loaded the machine. The 100 + 900 feed
 * version with real timeouts: bench/hardening-slow-remotes.ts.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runSlowRemotes } from "./slow-remotes.js";

test(
  "10 hanging feeds on 5 hosts do not hold up 90 others: all are served before the first timeout",
  { timeout: 120_000 },
  async () => {
    const result = await runSlowRemotes({
      hanging: 10,
      fast: 90,
      hangingHosts: 5,
      concurrency: 16,
      perHost: 2,
      timeout: 30_000,
      dropHangingWhenFastDone: true,
    });
    assert.equal(result.fastTotal, 90);
    assert.equal(
      result.fastServedBeforeFirstTimeout,
      90,
      "every fast feed was served while the hanging ones were still waiting",
    );
    assert.equal(result.stats.blogs.total, 100);
    assert.equal(result.stats.blogs.success, 90);
    assert.equal(result.stats.blogs.failed, 10);
  },
);

test(
  "one host with many hanging feeds holds only perHost workers: the other hosts' feeds go first",
  { timeout: 120_000 },
  async () => {
    const result = await runSlowRemotes({
      hanging: 12,
      fast: 60,
      hangingHosts: 1,
      concurrency: 6,
      perHost: 2,
      timeout: 30_000,
      dropHangingWhenFastDone: true,
    });
    assert.equal(result.fastServedBeforeFirstTimeout, 60);
    assert.equal(result.stats.blogs.failed, 12);
  },
);
