import { STATUS_CODES } from "node:http";
import { FetchError } from "../http/fetch.js";
import { FeedParseError } from "../feeds/errors.js";

const MAX_LENGTH = 200;

/** Network error codes worth naming; anything else is a plain "network error". */
const networkCodes: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection closed by the server",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "self-signed TLS certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate does not match the host",
};

/** "HTTP 503 Service Unavailable" */
export function httpStatusMessage(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `HTTP ${status} ${text}` : `HTTP ${status}`;
}

/**
 * A short message for a blog's `lastError`, shown to the owner: what went
 * wrong in words, never a stack trace and never a resolved IP address
 * (those come from the network layer's own messages, which are not reused).
 */
export function describeFailure(error: unknown, limits: { fetchTimeout: number; maxBodySize: number }): string {
  if (error instanceof FetchError) {
    switch (error.code) {
      case "timeout":
        return `Timed out after ${Math.round(limits.fetchTimeout / 1000)} s`;
      case "too_large":
        return `Response larger than ${Math.round(limits.maxBodySize / 1024)} KiB`;
      case "blocked_address":
        return "Address not allowed (private or local network)";
      case "bad_url":
        return "Invalid feed URL";
      case "too_many_redirects":
        return "Too many redirects";
      case "aborted":
        return "Fetch stopped";
      default:
        return `Network error: ${networkCodes[findCode(error) ?? ""] ?? "could not connect"}`;
    }
  }
  if (error instanceof FeedParseError) return truncate(`Not a readable feed: ${error.message}`);
  return "Unexpected error while syncing this blog";
}

/** The first `code` found along the error's cause chain (undici nests the socket error). */
function findCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code in networkCodes) return code;
    current = current.cause;
  }
  return null;
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_LENGTH ? `${oneLine.slice(0, MAX_LENGTH - 1)}…` : oneLine;
}
