import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { OpmlHeadLink } from "../opml/build.js";
import type { BlogrollOwner } from "../owner.js";
import type { Blog, Storage } from "../storage/types.js";
import { recordBlogrollDates, type BlogrollDates } from "../sync/blogroll-dates.js";
import { cachedPerContext } from "./short-cache.js";
import { mountUrl, riverHeadLinks } from "./public-urls.js";
import { sendCacheable } from "./respond.js";

/** What the export's head says besides its title. */
export interface OpmlExportHead {
  /** The river feeds of the same blogs. */
  links: OpmlHeadLink[];
  owner: BlogrollOwner;
  dates: BlogrollDates;
}

/** Spec 8: at most this many blogs in one export. */
export const OPML_EXPORT_LIMIT = 1000;

/** The blogroll's dates for a request: recomputed after a write of this process, else at most every 5 s. */
const blogrollDates = cachedPerContext(5000, (storage) => recordBlogrollDates(storage));

/**
 * The OPML export of the public blogroll: all visible blogs grouped in one
 * folder outline per category (uncategorised ones at the top level), or the
 * blogs of one category inside that category's folder, so a re-import keeps
 * every category. The head names the owner, the river feeds and when the
 * blogroll began and last changed: nothing per request, so the document
 * (and its ETag) stays the same until the blogroll changes.
 */
export async function exportOpml(
  storage: Storage,
  category: string | undefined,
  head: OpmlExportHead,
): Promise<string> {
  const { items: blogs } = await storage.blogs.list({
    category,
    visibility: "public",
    sort: "title",
    limit: OPML_EXPORT_LIMIT,
    offset: 0,
  });
  const groups = new Map<string | null, Blog[]>();
  for (const blog of blogs) {
    const key = blog.category || null;
    groups.set(key, [...(groups.get(key) ?? []), blog]);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  // The XML writer loads at the first export, not with the server (docs/sync.md, Memory).
  const { buildOpml } = await import("../opml/build.js");
  return buildOpml({
    title: category === undefined ? "Blogroll" : `Blogroll - ${category}`,
    dateCreated: head.dates.created,
    dateModified: head.dates.modified,
    ownerName: head.owner.name ?? undefined,
    ownerId: head.owner.url ?? undefined,
    links: head.links,
    groups: ordered.map(([name, members]) => ({
      category: name,
      feeds: members.map((blog) => ({
        title: blog.title,
        xmlUrl: blog.feedUrl,
        htmlUrl: blog.siteUrl,
        // The owner's public note says why they read it: it is the outline's description when set.
        description: blog.note ?? blog.description,
        // OPML 2.0 subscription lists mark every feed outline type="rss", whatever the feed's format;
        // some readers skip any other value. The format is learned again at the first fetch.
        type: "rss",
      })),
    })),
  });
}

/**
 * Answers with the export (spec 4.6/4.7: `text/x-opml`, the attachment
 * filename), a strong ETag and `Last-Modified` = when the blogroll last
 * changed. Served at `/api/opml[/:category]` and, unchanged, as the
 * well-known `recommendations.opml`.
 */
export async function sendOpmlExport(
  context: BlogrollContext,
  request: Request,
  response: Response,
  category: string | undefined,
): Promise<void> {
  const storage = await context.getStorage();
  const dates = await blogrollDates(context);
  const links = riverHeadLinks(mountUrl(request, response, context.options), category);
  const document = await exportOpml(storage, category, { links, owner: context.owner(), dates });
  const filename = category === undefined ? "blogroll.opml" : `blogroll-${encodeURIComponent(category)}.opml`;
  response.set("Content-Disposition", `attachment; filename="${filename}"`);
  sendCacheable(request, response, context.options, Buffer.from(document), "text/x-opml", dates.modified);
}
