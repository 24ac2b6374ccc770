import { SECOND } from "./durations.js";

/**
 * A time (milliseconds since the epoch) cut down to its whole second: HTTP
 * dates (Last-Modified, If-Modified-Since) carry no finer part, so a date
 * sent or compared as one is first cut to what the header can say.
 */
export function wholeSecond(ms: number): number {
  return Math.floor(ms / SECOND) * SECOND;
}
