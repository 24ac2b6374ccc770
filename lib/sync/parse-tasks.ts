import type { PageReading } from "../discovery/read-page.js";
import { FeedParseError } from "../feeds/errors.js";
import type { ParsedFeed, ParseFeedOptions } from "../feeds/types.js";
import { OpmlParseError } from "../opml/errors.js";
import type { ParsedOpml, ParseOpmlOptions } from "../opml/parse.js";

/** The parses of remote content that run in the parse pool, by kind. */
export type ParseTask =
  | { kind: "feed"; body: string | Uint8Array; options: ParseFeedOptions }
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
    case "feed":
      return (await import("../feeds/parse.js")).parseFeed(task.body, task.options);
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

/** Errors cross the thread boundary as name + message; these classes are rebuilt as themselves. */
export function rebuildError(error: { name: string; message: string }): Error {
  if (error.name === "FeedParseError") return new FeedParseError(error.message);
  if (error.name === "OpmlParseError") return new OpmlParseError(error.message);
  if (error.name === "TypeError") return new TypeError(error.message);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
