import type { Blog, DueCursor, Storage } from "../storage/types.js";
import { hostOf } from "./fetch-blog.js";

export interface DueBlogLimits {
  /** Blogs handled at the same time. */
  concurrency: number;
  /** Blogs of one host handled at the same time. */
  perHost: number;
  /** Blogs read from storage per query (default 250). */
  batchSize?: number;
  /** "Sync now": every fetchable blog, due or not, except those a server told to wait. */
  everyone?: boolean;
}

/**
 * Blogs a run holds in hand beyond `concurrency` (fetched, waiting for their
 * parse and writes): a quarter more, enough to keep the parse pool fed as responses
 * come in, while a parse that falls behind holds up few blogs (side by side
 * runs at 1 000 blogs found a backlog as large as `concurrency` raised the
 * main thread's heap peak by some 30 MB; a quarter did not measurably).
 */
export function backlogOf(concurrency: number): number {
  return Math.ceil(concurrency / 4);
}

/**
 * Calls `handle` once for every blog due at `runAt`, however many there
 * are, at most `concurrency` fetching at a time and `perHost` per feed host.
 *
 * A blog holds its fetch slot until its handler calls `fetched` (its
 * response is in hand) or settles: the slot then goes to the next blog at
 * once, while this one is parsed and written, so the requests never wait
 * for the parse pool or the database. Blogs in hand (fetching, or fetched
 * and not yet settled) are at most `concurrency` and a small backlog (see
 * backlogOf): when the parse and the writes fall further behind, no further
 * fetch starts until one settles.
 *
 * Blogs are read in pages with `listDue`, each continuing where the last
 * ended, so every row is read once and at most a few pages are held in
 * memory, whatever the size of the blogroll. A blog whose host is busy
 * waits while blogs of other hosts go ahead, so one large host does not
 * hold up the pool.
 *
 * Stops dispatching when `signal` aborts and returns once the blogs already
 * started have settled.
 */
export async function forEachDueBlog(
  storage: Storage,
  runAt: Date,
  limits: DueBlogLimits,
  signal: AbortSignal,
  handle: (blog: Blog, fetched: () => void) => Promise<void>,
  progress: (done: number, total: number) => void,
): Promise<void> {
  const batchSize = limits.batchSize ?? 250;
  // A guard only: a blog another process re-scheduled within this run's range could be read twice.
  const seen = new Set<string>();
  const pending: Array<{ blog: Blog; host: string }> = [];
  const busyHosts = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let cursor: DueCursor | undefined;
  let exhausted = false;
  let done = 0;

  const loadMore = async () => {
    const due = await storage.blogs.listDue(runAt, batchSize, { everyone: limits.everyone === true, after: cursor });
    exhausted = due.length < batchSize;
    const last = due.at(-1);
    if (last) cursor = { id: last.id, nextFetchAt: last.nextFetchAt };
    for (const blog of due) {
      if (seen.has(blog.id)) continue;
      seen.add(blog.id);
      pending.push({ blog, host: hostOf(blog.feedUrl) });
    }
    progress(done, seen.size);
  };

  const inHand = limits.concurrency + backlogOf(limits.concurrency);
  let fetching = 0;
  // Resolved whenever a slot frees (a blog fetched or settled): the loop waits for it.
  let wake: () => void = () => undefined;
  const slotFreed = () => new Promise<void>((resolve) => (wake = resolve));

  const start = ({ blog, host }: { blog: Blog; host: string }) => {
    busyHosts.set(host, (busyHosts.get(host) ?? 0) + 1);
    fetching++;
    let holdsSlot = true;
    const fetched = () => {
      if (!holdsSlot) return;
      holdsSlot = false;
      fetching--;
      busyHosts.set(host, busyHosts.get(host)! - 1);
      wake();
    };
    const task: Promise<void> = handle(blog, fetched)
      .catch(() => undefined)
      .finally(() => {
        fetched();
        inFlight.delete(task);
        done++;
        progress(done, seen.size);
        wake();
      });
    inFlight.add(task);
  };

  try {
    while (!signal.aborted) {
      const free = fetching < limits.concurrency && inFlight.size < inHand;
      const next = free ? pending.findIndex(({ host }) => (busyHosts.get(host) ?? 0) < limits.perHost) : -1;
      if (next !== -1) {
        start(pending.splice(next, 1)[0]);
        continue;
      }
      // Read further when nothing is left, or when every waiting blog is on a busy host
      // (more hosts may come), keeping at most a few batches in memory.
      if (!exhausted && free && pending.length < batchSize * 4) {
        await loadMore();
        continue;
      }
      if (inFlight.size === 0) break;
      await slotFreed();
    }
  } finally {
    // Also when listDue fails: no blog is left running unobserved.
    await Promise.allSettled(inFlight);
  }
}
