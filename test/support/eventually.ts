import { setTimeout as sleep } from "node:timers/promises";

/**
 * What `probe` gives once it gives something (not undefined, null or false),
 * asked again after a short pause while it does not: for answers that follow
 * a change after work in the background (the blogroll page's rebuilds).
 * Fails after `tries` attempts, naming `what` was awaited.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  tries = 500,
): Promise<T> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const found = await probe();
    if (found !== undefined && found !== null && found !== false) return found;
    await sleep(20);
  }
  throw new Error(`still not so after ${tries} attempts: ${what}`);
}
