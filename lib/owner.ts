import type { BlogrollOptions } from "./options.js";
import { parseHttpUrl } from "./url/http-url.js";

/** Who the blogroll belongs to, as its OPML export names them (`ownerId`, `ownerName`). */
export interface BlogrollOwner {
  /** The owner's site: Indiekit's `publication.me`, else the `publicUrl` option; null when neither is known. */
  url: string | null;
  /** The `ownerName` option, else the host name of the owner's site. */
  name: string | null;
  /** The language the public page speaks: the `locale` option, else the host's, else English. */
  locale: string;
}

/** A language tag Intl knows, canonical ("pt-br" → "pt-BR"), or null. */
function languageTag(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  try {
    return Intl.getCanonicalLocales(value)[0] ?? null;
  } catch {
    return null;
  }
}

export function blogrollOwner(
  publicationUrl: unknown,
  options: Pick<BlogrollOptions, "publicUrl" | "ownerName" | "locale">,
  hostLocales: unknown[] = [],
): BlogrollOwner {
  // Only absolute http(s) addresses name an owner; anything else is left out rather than published.
  const site = parseHttpUrl(publicationUrl) ?? parseHttpUrl(options.publicUrl);
  const locale = [options.locale, ...hostLocales].map(languageTag).find((tag) => tag !== null) ?? "en";
  return { url: site?.href ?? null, name: options.ownerName ?? site?.hostname ?? null, locale };
}
