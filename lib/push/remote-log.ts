import type { Logger } from "../context.js";

/** Characters that could break a log line or forge another: C0 and C1 controls, DEL, Unicode line and paragraph separators. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Text from a remote party made fit for one log line: control characters become spaces, at most `max` characters. */
export function printable(text: string, max = 200): string {
  const flat = text.replace(UNPRINTABLE, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** How long repeats of one event from one sender are counted before one line says how many. */
const WINDOW_MS = 60_000;
/** Senders × events counted at once; past this, repeats of new ones are counted together. */
const MAX_KEYS = 1000;

interface Count {
  message: string;
  repeats: number;
}

/**
 * Log lines caused by what remote parties send (hubs, cloud servers, anyone
 * who knows a callback), aggregated per sender: the first line of a kind is
 * written at once, repeats within the minute are only counted, and one line
 * at the end of the minute says how many there were. A thousand forged
 * notifications a second cost two log lines a minute; every line is made
 * printable, so remote text never starts a line of its own.
 */
export class RemoteLog {
  private readonly counts = new Map<string, Count>();
  private overflow = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly log: Logger) {}

  /** Logs `message` (info) for `sender`, or counts it when the same event of that sender was logged this minute. */
  note(sender: string, event: string, message: string): void {
    const key = `${sender} ${event}`;
    const count = this.counts.get(key);
    if (count) {
      count.repeats++;
      return;
    }
    if (this.counts.size >= MAX_KEYS) {
      this.overflow++;
      return;
    }
    const line = printable(message, 400);
    this.counts.set(key, { message: line, repeats: 0 });
    this.log.info(line);
    this.timer ??= setTimeout(() => this.flush(), WINDOW_MS).unref();
  }

  /** Writes the counts of the window now ending and starts afresh. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const { message, repeats } of this.counts.values()) {
      if (repeats > 0) this.log.info(`${message} (and ${repeats} more like it in the last minute)`);
    }
    if (this.overflow > 0)
      this.log.info(`${this.overflow} more push callback events from other senders in the last minute`);
    this.counts.clear();
    this.overflow = 0;
  }
}
