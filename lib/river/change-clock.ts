import { SECOND } from "../time/durations.js";
import { wholeSecond } from "../time/whole-second.js";

/**
 * The Last-Modified date of the river's bodies: when this process first
 * served the current body of a URL. The newest entry's date would not do:
 * hiding a blog or editing a title changes the body without a newer entry,
 * and a client that sends only If-Modified-Since would never see it.
 *
 * Dates only move forward per URL (a changed body gets at least one second
 * more than the one it replaces), so a client holding an older body is never
 * told it is current. After a restart every URL starts again at that time:
 * clients download once more, which is safe. Bounded: the least recently
 * asked URL is forgotten first (it then starts again, also safely).
 */
export class ChangeClock {
  private readonly entries = new Map<string, { etag: string; since: number }>();

  constructor(private readonly capacity = 1000) {}

  /** Last-Modified for `key` now serving the body with `etag`. */
  since(key: string, etag: string, now = Date.now()): Date {
    const second = wholeSecond(now);
    const previous = this.entries.get(key);
    this.entries.delete(key);
    let since = second;
    if (previous && previous.etag === etag) since = previous.since;
    else if (previous) since = Math.max(second, previous.since + SECOND);
    this.entries.set(key, { etag, since });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return new Date(since);
  }
}
