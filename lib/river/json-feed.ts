/** The river as JSON Feed 1.1 (https://jsonfeed.org/version/1.1). */
import type { River, RiverEntry } from "./river.js";

export const JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1";

/** Where the `_blogroll` extension object is described (JSON Feed asks extensions for an `about`). */
const EXTENSION_ABOUT = "https://www.npmjs.com/package/indiekit-endpoint-blogroll#river-feeds";

const iso = (date: Date | null) => (date ? { date_published: date.toISOString() } : {});

/**
 * Items carry the post's author (else the blog) in `authors`, and the blog
 * they come from in the `_blogroll` extension object, as the spec's
 * extension rules ask (underscore key, `about`). One of `content_html` and
 * `content_text` is required: the sanitised HTML when stored, else the
 * plain-text summary.
 */
export function buildJsonFeed(river: River): Record<string, unknown> {
  return {
    version: JSON_FEED_VERSION,
    title: river.title,
    home_page_url: river.homePageUrl,
    feed_url: river.jsonUrl,
    description: river.description,
    items: river.entries.map(item),
  };
}

function item(entry: RiverEntry): Record<string, unknown> {
  const { blog } = entry;
  return {
    id: entry.id,
    ...(entry.url ? { url: entry.url } : {}),
    ...(entry.title ? { title: entry.title } : {}),
    ...(entry.content ? { content_html: entry.content } : { content_text: entry.summary ?? entry.title ?? "" }),
    ...(entry.summary ? { summary: entry.summary } : {}),
    ...iso(entry.published),
    authors: [
      entry.author
        ? { name: entry.author }
        : {
            name: blog.title,
            ...(blog.siteUrl ? { url: blog.siteUrl } : {}),
            ...(blog.photo ? { avatar: blog.photo } : {}),
          },
    ],
    ...(entry.categories.length > 0 ? { tags: entry.categories } : {}),
    _blogroll: {
      about: EXTENSION_ABOUT,
      blog: {
        id: blog.id,
        title: blog.title,
        site_url: blog.siteUrl,
        feed_url: blog.feedUrl,
        category: blog.category,
        photo: blog.photo,
      },
    },
  };
}
