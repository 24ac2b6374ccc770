import { serializeBlog, serializeItem, type ApiBlog, type ApiItem } from "../api/serialize.js";
import { backgroundTurn } from "./turns.js";
import type { BlogrollData, PageBlog } from "./blogroll.js";
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
 * The page's data as JSON text (a BlogrollJson), for static-site builds: the
 * same blogs, order and groups, one request. Written a few blogs at a time,
 * with other requests served in between.
 */
export async function blogrollJsonText(
  data: BlogrollData,
  head: { title: string; owner: BlogrollJson["owner"]; links: BlogrollJson["links"] },
  now: Date,
): Promise<string> {
  const groups: string[] = [];
  let written = 0;
  for (const group of data.groups) {
    const blogs: string[] = [];
    for (const entry of group.blogs) {
      if (written > 0 && written % BLOGS_PER_TURN === 0) await backgroundTurn();
      blogs.push(JSON.stringify(blogJson(entry, now)));
      written++;
    }
    groups.push(`{"category":${JSON.stringify(group.category)},"blogs":[${blogs.join(",")}]}`);
  }
  // The head's members, then the groups: `{"title":…,"owner":…,"links":…,"groups":[…]}`.
  return `${JSON.stringify(head).slice(0, -1)},"groups":[${groups.join(",")}]}`;
}
