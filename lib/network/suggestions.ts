import type { Blog, Recommendation, Storage } from "../storage/types.js";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";

/** A feed several of the owner's blogs recommend. */
export interface Suggestion {
  feedUrl: string;
  siteUrl: string | null;
  title: string;
  description: string | null;
  /** How many of the owner's blogs recommend it. */
  count: number;
  /** The one recommender's outline it shows (chosenOutline). */
  outline: Recommendation;
  recommendedBy: Array<{ id: string; title: string }>;
}

/** Candidates read from storage before the filters that only this module can apply (site address, own site, live recommenders). */
const CANDIDATE_WINDOW = 1000;
/** Suggestions shown at most. */
export const MAX_SUGGESTIONS = 100;
const PAGE = 500;

/** A site compared by host (without "www.") and path, scheme and trailing slash ignored. */
export function siteKey(url: string | null | undefined): string | null {
  const parsed = parseHttpUrl(url);
  return parsed ? feedUrlKey(parsed.href).replace(/^www\./, "") : null;
}

/** Host and port (without "www."): two sites on one host name but different ports are different sites. */
function hostOf(url: string | null | undefined): string | null {
  const parsed = parseHttpUrl(url);
  return parsed ? parsed.host.toLowerCase().replace(/^www\./, "") : null;
}

/**
 * Whether a recommendation points at the owner's own site: its site address
 * is the owner's, or its feed or site lives on the owner's host.
 */
export function isOwnSite(entry: Pick<Recommendation, "feedUrl" | "siteUrl">, ownSite: string | null): boolean {
  const ownHost = hostOf(ownSite);
  if (!ownHost) return false;
  return (
    siteKey(entry.siteUrl) === siteKey(ownSite) ||
    hostOf(entry.feedUrl) === ownHost ||
    hostOf(entry.siteUrl) === ownHost
  );
}

/** Every blog the owner has (hidden and unlisted ones too; deleted ones are not listed by the store). */
async function ownedBlogs(storage: Storage): Promise<Blog[]> {
  const blogs: Blog[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.blogs.list({ visibility: "admin", limit: PAGE, offset });
    blogs.push(...page.items);
    if (page.items.length < PAGE) return blogs;
  }
}

/**
 * The one outline a suggestion shows, so its title, site and description
 * always come from the same recommender: the title most recommenders give
 * (a tie goes to the title the earliest-followed recommender gives), else,
 * when no two agree, the earliest-followed recommender's. Outlines are in
 * the order their recommenders were followed.
 */
export function chosenOutline<T extends Recommendation>(outlines: T[]): T {
  const titles = new Map<string, { count: number; first: T }>();
  for (const outline of outlines) {
    const title = outline.title?.trim();
    if (!title) continue;
    const seen = titles.get(title);
    if (seen) seen.count++;
    else titles.set(title, { count: 1, first: outline });
  }
  let best: { count: number; first: T } | undefined;
  // Map order is first-seen order: a later title wins only with more recommenders.
  for (const entry of titles.values()) if (!best || entry.count > best.count) best = entry;
  return best && best.count > 1 ? best.first : outlines[0];
}

/**
 * The feeds at least `minRecommenders` of the owner's blogs recommend (their
 * own blogrolls, as the sync read them) that the owner does not follow:
 * neither by normalised feed address (the store leaves those out, deleted
 * blogs included, and dismissed ones) nor by site address. The owner's own
 * site is never suggested. Only blogs still in the blogroll count as
 * recommenders; each suggestion shows one of their outlines (chosenOutline).
 * Most recommended first, then by title.
 */
export async function listSuggestions(
  storage: Storage,
  options: { minRecommenders: number; ownSite: string | null; limit?: number },
): Promise<Suggestion[]> {
  const candidates = await storage.recommendations.candidates({
    minRecommenders: options.minRecommenders,
    limit: CANDIDATE_WINDOW,
  });
  if (candidates.length === 0) return [];
  const blogs = await ownedBlogs(storage);
  const byId = new Map(blogs.map((blog) => [blog.id, blog]));
  const followedSites = new Set(
    blogs.map((blog) => siteKey(blog.siteUrl)).filter((key): key is string => key !== null),
  );
  const suggestions: Suggestion[] = [];
  for (const candidate of candidates) {
    const outlines = candidate.outlines.filter((outline) => byId.has(outline.blogId));
    if (outlines.length === 0 || outlines.length < options.minRecommenders) continue;
    const outline = chosenOutline(outlines);
    const site = siteKey(outline.siteUrl);
    if (site && followedSites.has(site)) continue;
    if (isOwnSite(outline, options.ownSite)) continue;
    suggestions.push({
      feedUrl: outline.feedUrl,
      siteUrl: outline.siteUrl,
      title: outline.title?.trim() || hostOf(outline.feedUrl) || outline.feedUrl,
      description: outline.description,
      count: outlines.length,
      outline: {
        feedUrl: outline.feedUrl,
        siteUrl: outline.siteUrl,
        title: outline.title,
        description: outline.description,
      },
      recommendedBy: outlines
        .map((entry) => byId.get(entry.blogId) as Blog)
        .map((blog) => ({ id: blog.id, title: blog.title }))
        .sort((a, b) => a.title.localeCompare(b.title)),
    });
  }
  suggestions.sort((a, b) => b.count - a.count || a.title.localeCompare(b.title) || a.feedUrl.localeCompare(b.feedUrl));
  return suggestions.slice(0, options.limit ?? MAX_SUGGESTIONS);
}

/** What a blog's own blogroll says, for its admin page: where it is, how many blogs it lists, whether it lists the owner's site. */
export async function blogrollOfBlog(storage: Storage, blogId: string, ownSite: string | null) {
  const record = await storage.recommendations.getBlogroll(blogId);
  if (!record) return null;
  const entries = record.url ? await storage.recommendations.entries(blogId) : [];
  return { ...record, recommendsOwner: entries.some((entry) => isOwnSite(entry, ownSite)) };
}
