import { isDecodingError } from "./content-coding.js";
import { FetchError } from "./fetch-error.js";
import { BlockedAddressError } from "./guarded-agent.js";

export { FetchError, type FetchErrorCode } from "./fetch-error.js";

/** What the exchange's own deadline and abort signal say happened, checked before the error itself. */
export interface AbortState {
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Turns whatever a request threw (undici, node:net, zlib, DNS) into a
 * FetchError with a short message naming the host only. The deadline and
 * the caller's abort win over the error they caused (an AbortError).
 */
export function toFetchError(error: unknown, hostname: string, state: AbortState): FetchError {
  if (error instanceof FetchError) return error;
  if (state.timedOut) return new FetchError("timeout", "the server took too long to answer");
  if (state.aborted) return new FetchError("aborted", "the request was stopped");
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 5; depth++) {
    if (cause instanceof BlockedAddressError) return new FetchError("blocked_address", cause.message);
    const code = (cause as { code?: unknown }).code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NODATA")
      return new FetchError("network", `cannot resolve ${hostname}`);
    if (code === "ECONNREFUSED") return new FetchError("network", `connection to ${hostname} refused`);
    if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET")
      return new FetchError("network", `connection to ${hostname} was reset`);
    if (
      code === "UND_ERR_CONNECT_TIMEOUT" ||
      code === "UND_ERR_HEADERS_TIMEOUT" ||
      code === "UND_ERR_BODY_TIMEOUT" ||
      code === "ETIMEDOUT"
    ) {
      return new FetchError("timeout", "the server took too long to answer");
    }
    if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return new FetchError("network", "the response was cut short");
    if (isDecodingError(code)) return new FetchError("network", "the response could not be decompressed");
    if (typeof code === "string" && /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
      return new FetchError("network", `secure connection to ${hostname} failed`);
    }
    if (code === "HPE_INVALID_CONSTANT" || (typeof code === "string" && code.startsWith("HPE_"))) {
      return new FetchError("network", `${hostname} sent an invalid HTTP response`);
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return new FetchError("network", `request to ${hostname} failed`);
}
