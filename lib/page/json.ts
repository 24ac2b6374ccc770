import { serializeBlog, serializeItem, type ApiBlog, type ApiItem } from "../api/serialize.js";
import { backgroundTurn } from "./turns.js";
import type { BlogrollData, PageBlog } from "./blogroll.js";
import type { Blog, Item } from "../storage/types.js";
import type { PageLinks } from "./html.js";

/** A blog of blogroll.json: the API's Blog, when it last posted, and its latest posts. */
export interface JsonBlog extends ApiBlog {
  lastPostAt: string | null;
  posts: ApiItem[];
}

export interface BlogrollJson {
  title: string;
  owner: { name: string | null; url: string | null };
  links: PageLinks & { page: string; embed: string };
  groups: Array<{ category: string | null; blogs: JsonBlog[] }>;
}

/** Blogs written between two turns of other requests. */
const BLOGS_PER_TURN = 50;

/** A blog of blogroll.json: the API's Blog, when it last posted, and its latest posts. */
function blogJson({ blog, posts, lastPostAt }: PageBlog, now: Date): JsonBlog {
  return {
    ...serializeBlog(blog),
    lastPostAt: lastPostAt ? lastPostAt.toISOString() : null,
    posts: posts.map((post) => serializeItem(post, now)),
  };
}

/**
 * The JSON last written for a blog as read (storage reads make new objects,
 * never changed after), as UTF-8: the same while its posts are the same
 * array, its last post date the same and no post has stopped being in the
 * future (`isFuture`, the one part that moves with the clock).
 */
const written = new WeakMap<Blog, { posts: Item[]; lastPostAt: number | null; future: string; encoded: Buffer }>();

function encodedBlogJson(entry: PageBlog, now: Date): Buffer {
  const lastPostAt = entry.lastPostAt?.getTime() ?? null;
  let future = "";
  for (const post of entry.posts) future += post.published !== null && post.published > now ? "1" : "0";
  const known = written.get(entry.blog);
  if (known && known.posts === entry.posts && known.lastPostAt === lastPostAt && known.future === future)
    return known.encoded;
  const encoded = Buffer.from(JSON.stringify(blogJson(entry, now)));
  written.set(entry.blog, { posts: entry.posts, lastPostAt, future, encoded });
  return encoded;
}

const COMMA = Buffer.from(",");

/**
 * The page's data as JSON (a BlogrollJson, UTF-8), for static-site builds:
 * the same blogs, order and groups, one request. Its blogs are written a
 * few at a time, with other requests served in between, and copied together
 * at the end.
 */
export async function blogrollJson(
  data: BlogrollData,
  head: { title: string; owner: BlogrollJson["owner"]; links: BlogrollJson["links"] },
  now: Date,
): Promise<Buffer> {
  // The head's members, then the groups: `{"title":…,"owner":…,"links":…,"groups":[…]}`.
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(head).slice(0, -1)},"groups":[`)];
  let count = 0;
  for (const [n, group] of data.groups.entries()) {
    parts.push(Buffer.from(`${n > 0 ? "," : ""}{"category":${JSON.stringify(group.category)},"blogs":[`));
    for (const [i, entry] of group.blogs.entries()) {
      if (count > 0 && count % BLOGS_PER_TURN === 0) await backgroundTurn();
      if (i > 0) parts.push(COMMA);
      parts.push(encodedBlogJson(entry, now));
      count++;
    }
    parts.push(Buffer.from("]}"));
  }
  parts.push(Buffer.from("]}"));
  return Buffer.concat(parts);
}
