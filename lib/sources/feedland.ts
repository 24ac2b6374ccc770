import { decodeText } from "../encoding/decode.js";
import { fetchUrl } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import { parseHttpUrl } from "../url/http-url.js";
import { describeFetchFailure, describeHttpStatus } from "../discovery/fetch-messages.js";
import { listSourceKind } from "./list-kind.js";
import { fetchRemoteOpml } from "./remote-opml.js";
import { SourceError } from "./types.js";

export const DEFAULT_FEEDLAND_INSTANCE = "https://feedland.com";

/** The instance's base URL without trailing slashes (default feedland.com). */
function instanceBase(instance: string | undefined): string {
  const url = parseHttpUrl(instance?.trim() || DEFAULT_FEEDLAND_INSTANCE);
  if (!url) throw new SourceError("The FeedLand instance is not a valid address");
  return url.href.replace(/\/+$/, "");
}

function screenNameOf(screenName: string | undefined): string {
  const name = screenName?.trim();
  if (!name) throw new SourceError("The FeedLand source has no screen name");
  return name;
}

/** `<instance>/opml?screenname=<user>[&catname=<category>]`: a user's subscriptions, optionally one category. */
export function feedlandOpmlUrl(settings: { instance?: string; screenName?: string; category?: string }): string {
  const url = new URL(`${instanceBase(settings.instance)}/opml`);
  url.searchParams.set("screenname", screenNameOf(settings.screenName));
  const category = settings.category?.trim();
  if (category) url.searchParams.set("catname", category);
  return url.href;
}

/** Splits FeedLand's comma-separated category string. */
function splitCategories(value: unknown): string[] {
  if (typeof value === "string")
    return value
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
  if (Array.isArray(value)) return value.flatMap(splitCategories);
  return [];
}

/**
 * Reads the category names out of a `getusercategories` answer. FeedLand
 * answers `{ screenname, categories: "a,b", homePageCategories: "a" }`; a bare
 * array of names, or `categories` given as an array, are accepted as well.
 */
export function parseFeedlandCategories(data: unknown): string[] {
  const names = Array.isArray(data)
    ? splitCategories(data)
    : data !== null && typeof data === "object"
      ? splitCategories((data as Record<string, unknown>).categories)
      : [];
  return [...new Set(names)];
}

/**
 * Lists a FeedLand user's categories from `<instance>/getusercategories?screenname=…`,
 * for the admin form's category choice.
 *
 * @throws SourceError when the instance cannot be reached or answers something else.
 */
export async function listFeedlandCategories(
  instance: string | undefined,
  screenName: string,
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<string[]> {
  const url = new URL(`${instanceBase(instance)}/getusercategories`);
  url.searchParams.set("screenname", screenNameOf(screenName));
  let result;
  try {
    result = await fetchUrl(url.href, {
      timeout: options.fetchTimeout,
      maxBodySize: options.maxBodySize,
      allowPrivateNetworks: options.allowPrivateNetworks,
      accept: "application/json",
      signal,
    });
  } catch (error) {
    throw new SourceError(describeFetchFailure(error), { cause: error });
  }
  if (result.status < 200 || result.status >= 300) throw new SourceError(describeHttpStatus(result.status));
  let data: unknown;
  try {
    data = JSON.parse(decodeText(result.body, result.contentType));
  } catch (error) {
    throw new SourceError("FeedLand did not answer with JSON", { cause: error });
  }
  return parseFeedlandCategories(data);
}

/**
 * A FeedLand user's subscription list (`settings.instance`, `screenName`,
 * optional `category`). Blogs take the chosen category, else the outline's.
 */
export const feedlandSource = listSourceKind(
  "feedland",
  (source, context) => fetchRemoteOpml(feedlandOpmlUrl(source.settings), source, context),
  (source) => {
    const chosen = source.settings.category?.trim() || null;
    return (feed) => chosen ?? (feed.category?.trim() || null);
  },
);
