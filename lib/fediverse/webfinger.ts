import { decodeText } from "../encoding/decode.js";
import { describeFetchFailure, describeHttpStatus } from "../discovery/fetch-messages.js";
import { FetchError, fetchUrl, type FetchResult } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import { httpUrl } from "../url/http-url.js";
import { formatHandle, parseHandle, type FediverseHandle } from "./handle.js";

/*
 * From a fediverse handle to the account's profile page, by WebFinger
 * (RFC 7033): `GET https://host/.well-known/webfinger?resource=acct:user@host`
 * answers a JSON Resource Descriptor whose `profile-page` link is the page
 * (Mastodon: https://host/@user; WordPress: the author's page; Ghost: the
 * site). An account that names none is read for its ActivityPub actor's
 * `url`. Every request goes through the project's fetch with its timeout and
 * private-network guard, under small size caps.
 */

export const PROFILE_PAGE_REL = "http://webfinger.net/rel/profile-page";
/** A descriptor is a few hundred bytes; Mastodon's with every link is under 2 KB. */
export const MAX_JRD_BYTES = 64 * 1024;
/** An actor document carries keys and a summary; a few KB in practice. */
export const MAX_ACTOR_BYTES = 256 * 1024;
const MAX_REDIRECTS = 3;

const JRD_ACCEPT = "application/jrd+json, application/json;q=0.9";
const ACTIVITY_ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const isActivityType = (type: string | null) =>
  type === "application/activity+json" || (type?.startsWith("application/ld+json") ?? false);

export type AccountResult =
  | { ok: true; handle: string; profileUrl: string }
  /** `gone`: the server said the account is not there (404 or 410), rather than failing to answer. */
  | { ok: false; error: string; gone?: true };

/** The address WebFinger is asked at for a handle: always https (RFC 7033, section 4). */
export function webfingerUrl(handle: FediverseHandle): string {
  const url = new URL(`https://${handle.host}/.well-known/webfinger`);
  url.searchParams.set("resource", `acct:${handle.user}@${handle.host}`);
  return url.href;
}

const failure = (error: string): AccountResult => ({ ok: false, error });

function parseJson(result: FetchResult): unknown {
  try {
    return JSON.parse(decodeText(result.body, result.contentType));
  } catch {
    return null;
  }
}

interface JrdLink {
  rel: string;
  type: string | null;
  href: string | null;
}

/** The links of a descriptor that have a `rel`; anything else in it is ignored. */
function linksOf(jrd: unknown): JrdLink[] {
  const links = jrd && typeof jrd === "object" ? (jrd as { links?: unknown }).links : undefined;
  if (!Array.isArray(links)) return [];
  return links.flatMap((link: unknown) => {
    if (!link || typeof link !== "object") return [];
    const { rel, type, href } = link as Record<string, unknown>;
    if (typeof rel !== "string") return [];
    return [{ rel, type: typeof type === "string" ? type.toLowerCase() : null, href: httpUrl(href) }];
  });
}

/** The HTML page an actor's `url` names (a string, a Link object, or a list of either). */
function actorPage(actor: unknown): string | null {
  const url = actor && typeof actor === "object" ? (actor as { url?: unknown }).url : undefined;
  for (const entry of Array.isArray(url) ? url : [url]) {
    if (typeof entry === "string") {
      const address = httpUrl(entry);
      if (address) return address;
    } else if (entry && typeof entry === "object") {
      const { href, mediaType } = entry as { href?: unknown; mediaType?: unknown };
      const address = httpUrl(href);
      if (address && (mediaType === undefined || mediaType === "text/html")) return address;
    }
  }
  return null;
}

/** Fetches a small JSON document under the options' timeout and guard; a FetchError tells why it could not. */
async function fetchJson(
  url: string,
  accept: string,
  maxBodySize: number,
  options: BlogrollOptions,
  signal?: AbortSignal,
  httpsOnly = false,
): Promise<FetchResult> {
  return fetchUrl(url, {
    httpsOnly,
    timeout: options.fetchTimeout,
    maxBodySize,
    allowPrivateNetworks: options.allowPrivateNetworks,
    accept,
    maxRedirects: MAX_REDIRECTS,
    signal,
  });
}

/** The actor document's page, or null when it cannot be read (servers that sign every fetch refuse us). */
async function pageOfActor(actorUrl: string, options: BlogrollOptions, signal?: AbortSignal): Promise<string | null> {
  try {
    const result = await fetchJson(actorUrl, ACTIVITY_ACCEPT, MAX_ACTOR_BYTES, options, signal);
    return result.status === 200 ? actorPage(parseJson(result)) : null;
  } catch (error) {
    if (error instanceof FetchError && error.code === "aborted") throw error;
    return null;
  }
}

/**
 * Finds the profile page of the account a handle names. A failure says why
 * in a short sentence for the owner (no such account, the server is
 * unreachable or on a private network, it answered no descriptor, it named
 * no page); the lookup never falls back to plain http, and a redirect to
 * http is refused.
 */
export async function findAccount(
  text: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<AccountResult> {
  const handle = parseHandle(text);
  if (!handle) return failure("Not a fediverse handle (@user@host)");
  let result: FetchResult;
  try {
    result = await fetchJson(webfingerUrl(handle), JRD_ACCEPT, MAX_JRD_BYTES, options, signal, true);
  } catch (error) {
    if (error instanceof FetchError && error.code === "bad_url")
      return failure(`${handle.host} sent the account lookup to an address without https`);
    return failure(`${handle.host}: ${describeFetchFailure(error)}`);
  }
  if (result.status === 404 || result.status === 410)
    return { ok: false, error: `No account ${formatHandle(handle)} on ${handle.host}`, gone: true };
  if (result.status !== 200) return failure(`${handle.host}: ${describeHttpStatus(result.status)}`);
  const jrd = parseJson(result);
  if (!jrd || typeof jrd !== "object" || Array.isArray(jrd))
    return failure(`${handle.host} gave no account description (WebFinger)`);
  const links = linksOf(jrd);
  const profile = links.find(
    (link) => link.rel === PROFILE_PAGE_REL && link.href && (link.type === null || link.type === "text/html"),
  );
  if (profile?.href) return { ok: true, handle: formatHandle(handle), profileUrl: profile.href };
  const actor = links.find((link) => link.rel === "self" && link.href && isActivityType(link.type));
  const page = actor?.href ? await pageOfActor(actor.href, options, signal) : null;
  if (page) return { ok: true, handle: formatHandle(handle), profileUrl: page };
  return failure(`${formatHandle(handle)} names no profile page`);
}
