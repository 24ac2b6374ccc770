import { FetchError } from "../http/fetch.js";

/**
 * A short message for a failed fetch, safe to show the owner: it names what
 * went wrong, never a resolved IP or a stack.
 */
export function describeFetchFailure(error: unknown): string {
  if (!(error instanceof FetchError)) return "Could not fetch the address";
  switch (error.code) {
    case "timeout":
      return "The site took too long to answer";
    case "too_large":
      return "The response is too large";
    case "blocked_address":
      return "This address is on a private network and may not be fetched (the allowPrivateNetworks option allows it)";
    case "bad_url":
      return "Not a valid web address";
    case "too_many_redirects":
      return "Too many redirects";
    case "aborted":
      return "The request was cancelled";
    default:
      return "Could not connect to the site";
  }
}

/** A short message for an HTTP status that is not a success. */
export function describeHttpStatus(status: number): string {
  if (status === 404 || status === 410) return `Not found (HTTP ${status})`;
  if (status === 401 || status === 403) return `Access denied (HTTP ${status})`;
  return `The site answered HTTP ${status}`;
}

/**
 * A failure message naming the addresses asked, in order: for an address the
 * owner typed without a scheme, where the message alone would not say which
 * one failed ("Could not connect to the site (tried https://a.example/, then http://a.example/)").
 */
export function withTriedAddresses(message: string, tried: string[]): string {
  return `${message} (tried ${tried.join(", then ")})`;
}

/** True when a fetch failed because our own signal was aborted. */
export function isAbort(error: unknown): boolean {
  return error instanceof FetchError && error.code === "aborted";
}
