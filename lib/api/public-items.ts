import type { BlogrollContext } from "../context.js";
import { isValidId } from "../storage/id.js";
import { isListed } from "../storage/provenance.js";
import type { Blog, Item, PublicBlog } from "../storage/types.js";
import { futureHorizon } from "../storage/future.js";

/** Microsub follows whose items are merged (one list read per request; far above any real follow list). */
const MAX_MICROSUB_BLOGS = 10_000;

/** The storage's public visibility (PUBLIC_BLOG, publicBlogFilter) for a blog already read. */
export function isPubliclyVisible(blog: Blog): boolean {
  return !blog.hidden && blog.status !== "deleted" && blog.status !== "gone" && isListed(blog);
}

export interface PublicItemsQuery {
  /** A valid, lower-case blog id. */
  blogId?: string;
  category?: string;
  limit: number;
  offset: number;
  /** false: the items' content is not read (null): the API never sends it, the river feeds do. */
  content?: boolean;
}

export interface PublicItemsPage {
  items: Item[];
  hasMore: boolean;
  /** The blog of each item, by the item's blogId (Microsub items map through their feed id). */
  blogs: Map<string, PublicBlog>;
}

/**
 * The newest items of visible blogs, our own and the Microsub plugin's merged
 * into one order: what /api/items and the river feeds serve.
 */
export async function listPublicItems(context: BlogrollContext, query: PublicItemsQuery): Promise<PublicItemsPage> {
  const { blogId, category, limit, offset, content } = query;
  const storage = await context.getStorage();
  let blogFilterPasses = true;
  if (blogId) {
    const blog = await storage.blogs.get(blogId);
    blogFilterPasses = blog !== null && isPubliclyVisible(blog) && (!category || blog.category === category);
  }
  let page: Item[] = [];
  let microsubBlogs = new Map<string, Blog>();
  if (blogFilterPasses) {
    const { microsub, byFeed } = await microsubBlogsByFeed(context, category, blogId);
    microsubBlogs = byFeed;
    const feedIds = [...byFeed.keys()];
    if (microsub && feedIds.length > 0) {
      // Merge two newest-first streams: each side gives at most offset + limit + 1 rows.
      const want = offset + limit + 1;
      const [ours, theirs] = await Promise.all([
        storage.items.list({ blogId, category, limit: want, offset: 0, content }),
        microsub.listItems({ feedIds, limit: want, offset: 0 }),
      ]);
      page = [...ours, ...theirs].sort(compareItems).slice(offset, offset + limit + 1);
    } else {
      page = await storage.items.list({ blogId, category, limit: limit + 1, offset, content });
    }
  }
  const hasMore = page.length > limit;
  page = page.slice(0, limit);
  return { items: page, hasMore, blogs: await blogsForItems(context, page, microsubBlogs) };
}

/**
 * The visible Microsub blogs an items query covers, by Microsub feed id: their
 * items are read from the Microsub plugin, never copied. Empty when the
 * integration is absent.
 */
async function microsubBlogsByFeed(context: BlogrollContext, category: string | undefined, blogId: string | undefined) {
  const byFeed = new Map<string, Blog>();
  const microsub = context.getMicrosub();
  if (!microsub) return { microsub: null, byFeed };
  const storage = await context.getStorage();
  let blogs: Blog[];
  if (blogId) {
    const blog = await storage.blogs.get(blogId);
    blogs = blog && blog.source === "microsub" && isPubliclyVisible(blog) ? [blog] : [];
  } else {
    blogs = (
      await storage.blogs.list({
        source: "microsub",
        category,
        visibility: "public",
        limit: MAX_MICROSUB_BLOGS,
        offset: 0,
      })
    ).items;
  }
  for (const blog of blogs) {
    if (blog.microsubFeedId && (!category || blog.category === category)) byFeed.set(blog.microsubFeedId, blog);
  }
  return { microsub, byFeed };
}

/** Newest first: published desc (posts more than a day ahead after the others), undated after dated, then id desc (ids sort by creation). */
function compareItems(a: Item, b: Item): number {
  const horizon = futureHorizon().getTime();
  const rank = (item: Item) => (item.published === null ? 2 : item.published.getTime() > horizon ? 1 : 0);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  const pa = a.published?.getTime() ?? 0;
  const pb = b.published?.getTime() ?? 0;
  if (pa !== pb) return pb - pa;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Blog context for a page of items, in one query; Microsub items (whose blogId is their feed id) map through `microsubBlogs`. */
async function blogsForItems(
  context: BlogrollContext,
  items: Item[],
  microsubBlogs: Map<string, Blog>,
): Promise<Map<string, PublicBlog>> {
  const storage = await context.getStorage();
  const ids = [...new Set(items.map((item) => item.blogId))].filter((id) => !microsubBlogs.has(id));
  const byId = new Map<string, PublicBlog>(
    (await storage.blogs.getManyPublic(ids.filter(isValidId))).map((blog) => [blog.id, blog]),
  );
  for (const [feedId, blog] of microsubBlogs) byId.set(feedId, blog);
  return byId;
}
