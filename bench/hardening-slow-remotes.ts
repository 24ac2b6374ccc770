/**
 * The 1000-feed version of test/hardening/slow-remotes.test.ts: 100 feeds
 * that hang until the timeout beside 900 that answer at once, one run with
 * the default pool (16 workers, 2 per host). Prints when the last fast feed
 * was served compared with the timeout.
 *
 *   node --import tsx bench/hardening-slow-remotes.ts
 */
import assert from "node:assert/strict";
import { runSlowRemotes } from "../test/hardening/slow-remotes.js";

const timeout = 15_000;
const result = await runSlowRemotes({ hanging: 100, fast: 900, hangingHosts: 20, concurrency: 16, perHost: 2, timeout });
console.log(
  `900 fast feeds served in ${result.lastFastAt} ms (all ${result.fastServedBeforeFirstTimeout} before the first of 100 hanging feeds timed out at ${timeout} ms); ` +
    `whole run ${result.runMs} ms: ${result.stats.blogs.success} ok, ${result.stats.blogs.failed} failed`,
);
assert.equal(result.fastServedBeforeFirstTimeout, 900);
assert.equal(result.stats.blogs.failed, 100);
