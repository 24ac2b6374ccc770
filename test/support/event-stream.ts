/**
 * A Server-Sent Events client for tests: real HTTP (node:http) and a parser
 * written elsewhere to the HTML standard (eventsource-parser), so the stream's
 * framing is read as a conforming client reads it. It keeps the raw text too,
 * for what a client does not surface (an `id` sent without data).
 */
import { get, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** Longest a test waits for something that should come (a stuck test fails instead of hanging). */
const GIVE_UP_MS = 30_000;

export interface EventStreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body when the answer was not a stream. */
  body: string;
  /** Every event dispatched so far, in order. */
  readonly events: EventSourceMessage[];
  readonly comments: string[];
  readonly retries: number[];
  /** Everything received, as text. */
  readonly raw: string;
  /** True once the server has ended or cut the stream. */
  readonly ended: boolean;
  /** The next event (after those already taken) whose type is `type` (any type when omitted). */
  next(type?: string): Promise<EventSourceMessage>;
  /** Resolves when received text satisfies `test`. */
  until(what: string, test: () => boolean): Promise<void>;
  /** Stops reading from the socket without closing it: a client that does not keep up. */
  pause(): void;
  resume(): void;
  close(): void;
}

export function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { Accept: "text/event-stream", ...headers } }, (response: IncomingMessage) => {
      const events: EventSourceMessage[] = [];
      const comments: string[] = [];
      const retries: number[] = [];
      let raw = "";
      let taken = 0;
      let ended = false;
      const waiters = new Set<() => void>();
      const wake = () => {
        for (const waiter of [...waiters]) waiter();
      };
      const parser = createParser({
        onEvent: (event) => events.push(event),
        onComment: (comment) => comments.push(comment),
        onRetry: (retry) => retries.push(retry),
      });
      response.setEncoding("utf8");
      const streaming = response.statusCode === 200;
      response.on("data", (chunk: string) => {
        raw += chunk;
        if (streaming) parser.feed(chunk);
        wake();
      });
      const finish = () => {
        ended = true;
        wake();
      };
      response.on("end", finish);
      response.on("close", finish);
      response.on("error", finish);

      const until = (what: string, test: () => boolean) =>
        new Promise<void>((done, fail) => {
          const check = () => {
            if (test()) {
              waiters.delete(check);
              clearTimeout(timer);
              done();
            } else if (ended) {
              waiters.delete(check);
              clearTimeout(timer);
              fail(new Error(`the stream ended before ${what}; received:\n${raw}`));
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`gave up waiting for ${what}; received:\n${raw}`));
          }, GIVE_UP_MS);
          waiters.add(check);
          check();
        });

      const client: EventStreamClient = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        get body() {
          return raw;
        },
        events,
        comments,
        retries,
        get raw() {
          return raw;
        },
        get ended() {
          return ended;
        },
        async next(type) {
          const matches = (event: EventSourceMessage) => type === undefined || (event.event ?? "message") === type;
          await until(`an event${type ? ` "${type}"` : ""}`, () => events.slice(taken).some(matches));
          const index = events.findIndex((event, position) => position >= taken && matches(event));
          taken = index + 1;
          return events[index];
        },
        until,
        pause: () => response.socket.pause(),
        resume: () => response.socket.resume(),
        close: () => request.destroy(),
      };
      if (!streaming) response.on("end", () => resolve(client));
      else resolve(client);
    });
    request.on("error", reject);
  });
}

/** The data of an event, parsed. */
export const dataOf = <T = Record<string, unknown>>(event: EventSourceMessage): T => JSON.parse(event.data) as T;
