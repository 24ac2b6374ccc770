import { serializeBlog, serializeItem, type ApiBlog, type ApiItem } from "../api/serialize.js";
import type { BlogrollData } from "./blogroll.js";
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

/** The page's data as JSON, for static-site builds: the same blogs, order and groups, one request. */
export function blogrollJson(
  data: BlogrollData,
  head: { title: string; owner: BlogrollJson["owner"]; links: BlogrollJson["links"] },
  now: Date,
): BlogrollJson {
  return {
    ...head,
    groups: data.groups.map((group) => ({
      category: group.category,
      blogs: group.blogs.map(({ blog, posts, lastPostAt }) => ({
        ...serializeBlog(blog),
        lastPostAt: lastPostAt ? lastPostAt.toISOString() : null,
        posts: posts.map((post) => serializeItem(post, now)),
      })),
    })),
  };
}
