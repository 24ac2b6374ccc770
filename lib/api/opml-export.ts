import { buildOpml, type OpmlHeadLink } from "../opml/build.js";
import type { Blog, Storage } from "../storage/types.js";

/** Spec 8: at most this many blogs in one export. */
export const OPML_EXPORT_LIMIT = 1000;

/**
 * The OPML export of the public blogroll: all visible blogs grouped in one
 * folder outline per category (uncategorised ones at the top level), or the
 * blogs of one category inside that category's folder, so a re-import keeps
 * every category. `links` (the river feeds) go in the head.
 */
export async function exportOpml(storage: Storage, category?: string, links: OpmlHeadLink[] = []): Promise<string> {
  const { items: blogs } = await storage.blogs.list({ category, visibility: "public", sort: "title", limit: OPML_EXPORT_LIMIT, offset: 0 });
  const groups = new Map<string | null, Blog[]>();
  for (const blog of blogs) {
    const key = blog.category || null;
    groups.set(key, [...(groups.get(key) ?? []), blog]);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  return buildOpml({
    title: category === undefined ? "Blogroll" : `Blogroll - ${category}`,
    dateCreated: new Date(),
    links,
    groups: ordered.map(([name, members]) => ({
      category: name,
      feeds: members.map((blog) => ({
        title: blog.title,
        xmlUrl: blog.feedUrl,
        htmlUrl: blog.siteUrl,
        description: blog.description,
        // OPML 2.0 subscription lists mark every feed outline type="rss", whatever the feed's format;
        // some readers skip any other value. The format is learned again at the first fetch.
        type: "rss",
      })),
    })),
  });
}
