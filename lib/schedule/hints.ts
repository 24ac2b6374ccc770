/**
 * A push notification is a hint, never a command: it may bring a blog's next
 * fetch forward, within a small budget per blog. A real hub notifies once per
 * update, so honest pushes stay instant; a flood of notices (forged, replayed
 * or from a hostile hub) costs the blog's server no more than the budget.
 *
 * The budget is a token bucket kept as one date per blog (the generic cell
 * rate algorithm): HINT_BURST hints at once, then one more every
 * HINT_INTERVAL. Pure: the clock is an input.
 */

/** Hints a blog may act on at once. */
export const HINT_BURST = 2;
/** One more hint every quarter of an hour (four an hour). */
export const HINT_INTERVAL = 15 * 60_000;

export interface HintDecision {
  /** When the hint may bring a fetch: now, or when the budget refills, never inside a server's Retry-After. */
  at: Date;
  /** The blog's budget once this hint is taken (store it only when the hint is acted on). */
  budgetAt: Date;
}

/**
 * When a notice arriving `now` may make us fetch the blog, given its budget
 * (`budgetAt`, null while untouched) and a server's Retry-After (`waitUntil`).
 */
export function takeHint(budgetAt: Date | null, now: Date, waitUntil: Date | null): HintDecision {
  const paidBack = Math.max(budgetAt?.getTime() ?? 0, now.getTime());
  const at = Math.max(now.getTime(), paidBack - (HINT_BURST - 1) * HINT_INTERVAL, waitUntil?.getTime() ?? 0);
  return { at: new Date(at), budgetAt: new Date(Math.max(paidBack, at) + HINT_INTERVAL) };
}
