/*
 * The text/event-stream format (HTML Living Standard, "Server-sent events"):
 * fields are lines ending in LF, a blank line ends an event, a line starting
 * with ":" is a comment. Data here is always one line of JSON (JSON.stringify
 * escapes CR and LF), so an event is exactly one `data:` line.
 */

/** An event: its id (a seq of the live log), its type and its JSON data. */
export function eventFrame(id: number, type: string, data: unknown): Buffer {
  return Buffer.from(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * How long the browser waits before reconnecting, and where it stands: an
 * `id` with no data sets the stream's last event id without dispatching an
 * event, so a client that reconnects later asks for what it missed since.
 * A client catching up gets no id here (the events it is sent carry theirs).
 */
export function openingFrame(retryMs: number, id: number | null): Buffer {
  return Buffer.from(`retry: ${Math.round(retryMs)}\n${id === null ? "" : `id: ${id}\n`}\n`);
}

/** A comment: keeps an idle connection open through proxies, dispatches nothing. */
export const KEEP_ALIVE_FRAME = Buffer.from(": keep-alive\n\n");

/** A Last-Event-ID (header or query) as a seq: a whole number, else null for a missing one, NaN for one we never gave. */
export function parseLastEventId(value: unknown): number | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value.trim())) return Number.NaN;
  return Number(value.trim());
}
