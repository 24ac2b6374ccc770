/**
 * The 1000-feed version of test/hardening/slow-remotes.test.ts: 100 feeds on
 * 20 hosts that hang until the timeout, beside 900 that answer at once, in
 * one run with the default pool (16 workers, 2 per host). Hanging feeds are
 * queued first (the worst order), so they can hold every worker; the fast
 * feeds must still be done within what the pool size implies:
 * ceil(hanging / hanging slots) × timeout, hanging slots being
 * min(concurrency, hanging hosts × perHost).
 *
 *   node --import tsx bench/hardening-slow-remotes.ts [timeout ms, default 5000]
 */
import assert from "node:assert/strict";
import { runSlowRemotes } from "../test/hardening/slow-remotes.js";

const timeout = Number(process.argv[2] ?? 5000);
const shape = { hanging: 100, fast: 900, hangingHosts: 20, concurrency: 16, perHost: 2, timeout };
const result = await runSlowRemotes(shape);
const slots = Math.min(shape.concurrency, shape.hangingHosts * shape.perHost);
const bound = Math.ceil(shape.hanging / slots) * timeout;
console.log(
  `900 fast feeds all served after ${result.lastFastAt} ms (pool-implied bound ${bound} ms: ${shape.hanging} hanging feeds, ${slots} slots, ${timeout} ms timeout); ` +
    `${result.fastServedBeforeFirstTimeout} served before the first timeout; whole run ${result.runMs} ms: ${result.stats.blogs.success} ok, ${result.stats.blogs.failed} failed`,
);
assert.equal(result.stats.blogs.success, 900);
assert.equal(result.stats.blogs.failed, 100);
assert.ok(result.lastFastAt <= bound + 2000, "fast feeds were delayed beyond what the pool size implies");
