import type { Blog, Recommendation, Storage } from "../storage/types.js";
import { feedUrlKey, parseHttpUrl } from "../url/normalise.js";

/** A feed several of the owner's blogs recommend. */
export interface Suggestion {
  feedUrl: string;
  siteUrl: string | null;
  title: string;
  description: string | null;
  /** How many of the owner's blogs recommend it. */
  count: number;
  recommendedBy: Array<{ id: string; title: string }>;
}

/** Candidates read from storage before the filters that only this module can apply (site address, own site, live recommenders). */
const CANDIDATE_WINDOW = 1000;
/** Suggestions shown at most. */
export const MAX_SUGGESTIONS = 100;
const PAGE = 500;

/** A site compared by host (without "www.") and path, scheme and trailing slash ignored. */
export function siteKey(url: string | null | undefined): string | null {
  const parsed = url ? parseHttpUrl(url) : null;
  return parsed ? feedUrlKey(parsed.href).replace(/^www\./, "") : null;
}

/** Host and port (without "www."): two sites on one host name but different ports are different sites. */
function hostOf(url: string | null | undefined): string | null {
  const parsed = url ? parseHttpUrl(url) : null;
  return parsed ? parsed.host.toLowerCase().replace(/^www\./, "") : null;
}

/**
 * Whether a recommendation points at the owner's own site: its site address
 * is the owner's, or its feed or site lives on the owner's host.
 */
export function isOwnSite(entry: Pick<Recommendation, "feedUrl" | "siteUrl">, ownSite: string | null): boolean {
  const ownHost = hostOf(ownSite);
  if (!ownHost) return false;
  return siteKey(entry.siteUrl) === siteKey(ownSite) || hostOf(entry.feedUrl) === ownHost || hostOf(entry.siteUrl) === ownHost;
}

/** Every blog the owner has (hidden and inactive ones too; deleted ones are not listed by the store). */
async function ownedBlogs(storage: Storage): Promise<Blog[]> {
  const blogs: Blog[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.blogs.list({ visibility: "admin", limit: PAGE, offset });
    blogs.push(...page.items);
    if (page.items.length < PAGE) return blogs;
  }
}

/**
 * The feeds at least `minRecommenders` of the owner's blogs recommend (their
 * own blogrolls, as the sync read them) that the owner does not follow:
 * neither by normalised feed address (the store leaves those out, deleted
 * blogs included, and dismissed ones) nor by site address. The owner's own
 * site is never suggested. Only blogs still in the blogroll count as
 * recommenders. Most recommended first, then by title.
 */
export async function listSuggestions(storage: Storage, options: { minRecommenders: number; ownSite: string | null; limit?: number }): Promise<Suggestion[]> {
  const candidates = await storage.recommendations.candidates({ minRecommenders: options.minRecommenders, limit: CANDIDATE_WINDOW });
  if (candidates.length === 0) return [];
  const blogs = await ownedBlogs(storage);
  const byId = new Map(blogs.map((blog) => [blog.id, blog]));
  const followedSites = new Set(blogs.map((blog) => siteKey(blog.siteUrl)).filter((key): key is string => key !== null));
  const suggestions: Suggestion[] = [];
  for (const candidate of candidates) {
    const recommenders = candidate.blogIds.map((id) => byId.get(id)).filter((blog): blog is Blog => blog !== undefined);
    if (recommenders.length < options.minRecommenders) continue;
    const site = siteKey(candidate.siteUrl);
    if (site && followedSites.has(site)) continue;
    if (isOwnSite(candidate, options.ownSite)) continue;
    suggestions.push({
      feedUrl: candidate.feedUrl,
      siteUrl: candidate.siteUrl,
      title: candidate.title?.trim() || hostOf(candidate.feedUrl) || candidate.feedUrl,
      description: candidate.description,
      count: recommenders.length,
      recommendedBy: recommenders.map((blog) => ({ id: blog.id, title: blog.title })).sort((a, b) => a.title.localeCompare(b.title)),
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
