export type FetchErrorCode =
  "timeout" | "too_large" | "blocked_address" | "bad_url" | "too_many_redirects" | "network" | "aborted";

/**
 * The one error outbound requests throw; its message is short, human and never names a resolved address.
 * A module of its own: a parse worker that decodes a body throws it without loading the HTTP client.
 */
export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "FetchError";
  }
}
