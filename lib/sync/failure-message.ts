import { STATUS_CODES } from "node:http";
import { FetchError } from "../http/fetch.js";
import { FeedParseError } from "../feeds/errors.js";

const MAX_LENGTH = 200;

/** What the owner sees for an error that is neither the remote's nor the feed's doing (the details go to the log). */
export const UNEXPECTED_FAILURE = "Unexpected error while syncing this blog";

/** "HTTP 503 Service Unavailable" */
export function httpStatusMessage(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `HTTP ${status} ${text}` : `HTTP ${status}`;
}

/**
 * A short message for a blog's `lastError`, shown to the owner: what went
 * wrong in words, never a stack trace and never a resolved IP address
 * (FetchError messages name the host only).
 */
export function describeFailure(error: unknown, limits: { fetchTimeout: number; maxBodySize: number }): string {
  if (error instanceof FetchError) {
    if (error.code === "timeout") return `Timed out after ${Math.round(limits.fetchTimeout / 100) / 10} s`;
    if (error.code === "too_large") return `Response larger than ${Math.round(limits.maxBodySize / 1024)} KiB`;
    const prefix = error.code === "network" ? "Network error: " : "";
    return truncate(`${prefix}${error.message}`);
  }
  if (error instanceof FeedParseError) return truncate(`Not a readable feed: ${error.message}`);
  return UNEXPECTED_FAILURE;
}

/** The `lastError` of a feed whose redirects end in a 404 or 410: where they lead, and what it answered. */
export function describeDeadEnd(url: string, status: number): string {
  return truncate(`The feed redirects to ${url}, which answers ${httpStatusMessage(status)}`);
}

/** The `lastError` of a feed read only in part (ParsedFeed.problem): its whole items were kept. */
export function describeProblem(problem: string): string {
  return truncate(`Feed partly unreadable: ${problem}`);
}

/** "Name: message" of anything thrown, for the operator's log (no stack). */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  const capitalised = oneLine.charAt(0).toUpperCase() + oneLine.slice(1);
  return capitalised.length > MAX_LENGTH ? `${capitalised.slice(0, MAX_LENGTH - 1)}…` : capitalised;
}
