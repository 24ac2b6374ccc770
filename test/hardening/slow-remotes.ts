/**
 * Shared by the slow-remote test and its 1000-feed benchmark: hanging feeds
 * on their own hosts beside fast feeds on others, synced in one run, with the
 * order of events recorded (no clocks needed for the verdict).
 */
import { createSyncRunner } from "../../lib/sync/run.js";
import type { SyncStats } from "../../lib/sync/status-record.js";
import { rss, startFeedServer } from "../sync/feed-server.js";
import { addBlog, openTempStorage, testOptions } from "../sync/harness.js";

export interface SlowRemoteResult {
  stats: SyncStats;
  /** Fast feeds served before the first hanging request was cut off by the timeout. */
  fastServedBeforeFirstTimeout: number;
  fastTotal: number;
  hangingCutOff: number;
  /** Milliseconds from start until the last fast feed was served, and for the whole run. */
  lastFastAt: number;
  runMs: number;
}

/**
 * `hanging` feeds spread over `hangingHosts` loopback addresses never answer;
 * `fast` feeds on two other addresses answer at once. One sync run with the
 * given pool size and timeout.
 *
 * With `dropHangingWhenFastDone`, the hanging requests are cut off by the
 * server as soon as every fast feed has been served (and later ones at once),
 * so a correct pool finishes without waiting for the timeout: the verdict is
 * then an order of events even on a loaded machine, and only a pool that
 * blocks fast feeds behind hanging ones meets the (long) timeout first.
 */
export async function runSlowRemotes(options: {
  hanging: number;
  fast: number;
  hangingHosts: number;
  concurrency: number;
  perHost: number;
  timeout: number;
  dropHangingWhenFastDone?: boolean;
}): Promise<SlowRemoteResult> {
  const fastHosts = ["127.0.0.1", "127.0.0.2"];
  const slowHosts = Array.from({ length: options.hangingHosts }, (_, index) => `127.0.1.${index + 1}`);
  const server = await startFeedServer([...fastHosts, ...slowHosts]);
  const temp = await openTempStorage();
  const started = Date.now();
  let fastServed = 0;
  let fastServedBeforeFirstTimeout = -1;
  let hangingCutOff = 0;
  let lastFastAt = 0;
  const body = rss([{ guid: "one", published: new Date(Date.now() - 3600_000) }]);
  const waiting = new Set<import("node:http").ServerResponse>();
  const dropping = () => options.dropHangingWhenFastDone === true && fastServed >= options.fast;
  try {
    const fast: Parameters<typeof server.route>[1] = (_request, response) => {
      fastServed++;
      lastFastAt = Date.now() - started;
      response.writeHead(200, { "content-type": "application/rss+xml" }).end(body);
      if (dropping()) for (const held of waiting) held.destroy();
    };
    const hang: Parameters<typeof server.route>[1] = (_request, response) => {
      response.on("close", () => {
        waiting.delete(response);
        hangingCutOff++;
        if (fastServedBeforeFirstTimeout === -1) fastServedBeforeFirstTimeout = fastServed;
      });
      if (dropping()) response.destroy();
      else waiting.add(response);
    };
    const port = new URL(server.origins[0]).port;
    for (let index = 0; index < options.hanging; index++) {
      server.route(`/hang-${index}.xml`, hang);
      await addBlog(temp.storage, `http://${slowHosts[index % slowHosts.length]}:${port}/hang-${index}.xml`);
    }
    for (let index = 0; index < options.fast; index++) {
      server.route(`/fast-${index}.xml`, fast);
      await addBlog(temp.storage, `http://${fastHosts[index % fastHosts.length]}:${port}/fast-${index}.xml`);
    }
    const run = createSyncRunner({
      options: testOptions({
        concurrency: options.concurrency,
        perHostConcurrency: options.perHost,
        fetchTimeout: options.timeout,
      }),
      parseInWorkers: false,
    });
    const stats = await run(temp.storage, { signal: new AbortController().signal, progress: () => undefined });
    return {
      stats,
      fastServedBeforeFirstTimeout: fastServedBeforeFirstTimeout === -1 ? fastServed : fastServedBeforeFirstTimeout,
      fastTotal: fastServed,
      hangingCutOff,
      lastFastAt,
      runMs: Date.now() - started,
    };
  } finally {
    await temp.cleanup();
    await server.close();
  }
}
