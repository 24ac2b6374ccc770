import type { PageReading } from "../discovery/read-page.js";
import { FeedParseError } from "../feeds/errors.js";
import { decodeBody, type ContentCoding } from "../http/content-coding.js";
import { FetchError, type FetchErrorCode } from "../http/fetch-error.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import { OpmlParseError } from "../opml/errors.js";
import type { ParsedOpml, ParseOpmlOptions } from "../opml/parse.js";

/**
 * A feed's body as it came, still compressed (FetchResult.encoding): the
 * parse decodes it first, refusing content over `maxSize` as the fetch
 * would have, so the thread that fetched it never holds it decompressed.
 */
export interface EncodedBody {
  bytes: Uint8Array;
  encoding: ContentCoding[];
  maxSize: number;
}

/** What a feed parse is given: its text, its bytes, or its bytes still compressed. */
export type FeedBody = string | Uint8Array | EncodedBody;

/** The parses of remote content that run in the parse pool, by kind. */
export type ParseTask =
  | { kind: "feed"; body: FeedBody; options: ParseFeedOptions }
  | { kind: "page"; html: string; url: string }
  | { kind: "opml"; text: string; options: ParseOpmlOptions };

export interface ParseResults {
  feed: ParsedFeed;
  page: PageReading;
  opml: ParsedOpml;
}

/**
 * Runs a task on the calling thread (the worker's body, and the main-thread
 * fallback). The parsers load at their first task: a main thread that parses
 * in workers never loads them (docs/sync.md, Memory).
 */
export async function runParseTask(task: ParseTask): Promise<ParseResults[ParseTask["kind"]]> {
  switch (task.kind) {
    case "feed": {
      const { body } = task;
      const content =
        typeof body === "string" || body instanceof Uint8Array
          ? body
          : decodeBody(body.bytes, body.encoding, body.maxSize);
      return (await import("../feeds/parse.js")).parseFeed(content, task.options);
    }
    case "page":
      return (await import("../discovery/read-page.js")).readDiscoveryPage(task.html, task.url);
    case "opml":
      return (await import("../opml/parse.js")).parseOpml(task.text, task.options);
  }
}

/** What each kind of content is called in the errors a stopped parse gives. */
const SUBJECT: Record<ParseTask["kind"], string> = { feed: "The feed", page: "The page", opml: "The OPML document" };

/** The error of a parse stopped from outside (time or memory limit), of the kind's own error class. */
export function stoppedParseError(kind: ParseTask["kind"], reason: string): Error {
  const message = `${SUBJECT[kind]} ${reason}`;
  return kind === "opml" ? new OpmlParseError(message) : new FeedParseError(message);
}

/** An error as it crosses the thread boundary: name, message and, for a FetchError (a body's decoding), its code. */
export interface CrossingError {
  name: string;
  message: string;
  code?: FetchErrorCode;
}

/** What of an error crosses the thread boundary (see rebuildError). */
export function crossingError(error: unknown): CrossingError {
  if (error instanceof FetchError) return { name: error.name, message: error.message, code: error.code };
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  return { name, message };
}

/** Errors cross the thread boundary as name + message; these classes are rebuilt as themselves. */
export function rebuildError(error: CrossingError): Error {
  if (error.name === "FetchError" && error.code) return new FetchError(error.code, error.message);
  if (error.name === "FeedParseError") return new FeedParseError(error.message);
  if (error.name === "OpmlParseError") return new OpmlParseError(error.message);
  if (error.name === "TypeError") return new TypeError(error.message);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
