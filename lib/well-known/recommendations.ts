import type { Blog } from "../storage/types.js";

/**
 * One entry of Ghost's `/.well-known/recommendations.json`: the recommended
 * site's address and when the recommendation was made and last changed
 * (ISO 8601). Ghost writes a bare JSON array of these, nothing else.
 */
export interface GhostRecommendation {
  url: string;
  updated_at: string;
  created_at: string;
}

/**
 * The blogs as Ghost-style recommendations, in the blogroll's order. A
 * recommendation names a site, so a blog counts by its site address (its
 * feed's when it has none) and a site with several feeds is named once, by
 * its earliest blog. The only field shown is the address, which this
 * project does not date apart from the blog: both dates are when the blog
 * was added, so the file changes only when the list does.
 */
export function ghostRecommendations(blogs: Blog[]): GhostRecommendation[] {
  const bySite = new Map<string, Date>();
  for (const blog of blogs) {
    const url = blog.siteUrl ?? blog.feedUrl;
    const known = bySite.get(url);
    if (!known || blog.createdAt < known) bySite.set(url, blog.createdAt);
  }
  return [...bySite].map(([url, created]) => ({
    url,
    updated_at: created.toISOString(),
    created_at: created.toISOString(),
  }));
}
