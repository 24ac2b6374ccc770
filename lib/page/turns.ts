/**
 * Turns of background work (the page's rebuilds), one per pass of the event
 * loop however many rebuilds run at once. Each rebuild is cut into short
 * turns; if each yielded with its own `setImmediate`, the page, the fragment
 * and the JSON rebuilt after one change would run three turns back to back
 * in every pass, and a request would wait for all three at each step of its
 * way through the server. Here they queue: a pass runs the turn of the
 * rebuild first in line, then requests' I/O is served before the next.
 */
const waiting: Array<() => void> = [];
let scheduled = false;

function releaseOne(): void {
  scheduled = false;
  const next = waiting.shift();
  // Scheduled before the turn runs (in this pass's microtasks): it comes due in the next pass, not this one.
  if (waiting.length > 0) schedule();
  next?.();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(releaseOne);
}

/** Resolves when this caller's turn comes: in a later pass of the event loop, after the turns queued before it. */
export function backgroundTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}
