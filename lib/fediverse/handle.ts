/*
 * Fediverse handles, `@user@host`: the address Mastodon, Ghost, WordPress
 * (ActivityPub plugin), WriteFreely and Micro.blog accounts go by. The host
 * part is where WebFinger is asked about the account (acct URI, RFC 7565).
 */

export interface FediverseHandle {
  /** As typed (servers compare it case-insensitively, but show it as the owner wrote it). */
  user: string;
  /** Lower-cased, IDNs in their ASCII form, with a port only when not the default. */
  host: string;
}

/** Longest handle accepted, in characters: far beyond any real one, short enough to show. */
export const MAX_HANDLE_LENGTH = 255;

/** Letters, digits and the few marks account names use (RFC 3986 unreserved, plus `+`). */
const USER = /^[A-Za-z0-9._~+-]{1,64}$/;

/**
 * A handle from what the owner typed: `@user@host`, `user@host` or
 * `acct:user@host`; null when it is not one (a web address, a path or query
 * after the host, spaces, a host without a dot).
 */
export function parseHandle(text: string): FediverseHandle | null {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_HANDLE_LENGTH || /\s/.test(trimmed)) return null;
  const bare = trimmed.replace(/^acct:/i, "").replace(/^@/, "");
  const at = bare.indexOf("@");
  if (at <= 0 || at !== bare.lastIndexOf("@")) return null;
  const user = bare.slice(0, at);
  const hostText = bare.slice(at + 1);
  if (!USER.test(user) || !/[A-Za-z0-9]/.test(user) || hostText === "" || /[/?#\\]/.test(hostText)) return null;
  let url: URL;
  try {
    url = new URL(`https://${hostText}/`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== "/") return null;
  const { hostname } = url;
  if (!hostname.includes(".") && !hostname.startsWith("[")) return null;
  return { user, host: url.host };
}

/** `@user@host`. */
export function formatHandle(handle: FediverseHandle): string {
  return `@${handle.user}@${handle.host}`;
}

/** The handle written the one way it is stored, or null. */
export function normaliseHandle(text: string): string | null {
  const handle = parseHandle(text);
  return handle ? formatHandle(handle) : null;
}

/**
 * Whether an address the owner typed into an add-a-blog box is meant as a
 * handle: it has no scheme and an `@` before any `/` (a web address with
 * credentials is never something to fetch anyway).
 */
export function looksLikeHandle(text: string): boolean {
  const trimmed = text.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return false;
  const at = trimmed.indexOf("@");
  const slash = trimmed.indexOf("/");
  return at >= 0 && (slash < 0 || at < slash);
}
