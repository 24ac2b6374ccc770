import { hostTitle } from "../url/normalise.js";
import { feedValuesOf } from "./provenance.js";
import { OWNER_ORIGIN, type BlogOrigin, type FeedValues } from "./types.js";

/*
 * Blogs stored before origins were recorded: what they become, for both
 * adapters' migrations (and MongoDB documents the Microsub plugin writes
 * itself, which never carry origins).
 */

/** What a blog stored the older way says of where it came from. */
export interface LegacyBlog {
  /** "inactive" meant: no source lists it any more. */
  status: string;
  source: string | null;
  /** The sources recorded on it, the first one first. */
  sourceIds: string[];
  ownerEdited: string[];
  feedUrl: string;
  title: string | null;
  description: string | null;
  siteUrl: string | null;
  category: string | null;
  photo: string | null;
  author: string | null;
  createdAt: Date;
}

/**
 * Its origins: the sources recorded on it (none when it was no longer
 * listed), and the owner when the owner added it (source "manual", or no
 * recorded source at all: a Microsub follow, or a blog kept when its source
 * was deleted) or edited more than whether it is hidden. The owner comes
 * first when the owner brought it in. Its category, unless typed by the
 * owner, is taken as given by its first origin, so it does not change until
 * that origin's list is read again.
 *
 * @param kindOf the origin kind of a source id; undefined for a source that no longer exists
 */
export function legacyOrigins(blog: LegacyBlog, kindOf: (sourceId: string) => string | undefined): BlogOrigin[] {
  const since = blog.createdAt;
  const unlisted = blog.status === "inactive";
  const sources: BlogOrigin[] = unlisted
    ? []
    : blog.sourceIds.flatMap((id) => {
        const kind = kindOf(id);
        return kind === undefined ? [] : [{ id, kind, since, values: {} }];
      });
  const broughtByOwner = blog.source === "manual" || blog.sourceIds.length === 0;
  const edited = blog.ownerEdited.some((field) => field !== "hidden");
  const ownerLists = blog.source === "manual" || edited || (!unlisted && sources.length === 0);
  const origins = [...sources];
  if (ownerLists) {
    const owner: BlogOrigin = { id: OWNER_ORIGIN, kind: broughtByOwner ? blog.source : "manual", since, values: {} };
    if (broughtByOwner) origins.unshift(owner);
    else origins.push(owner);
  }
  if (origins.length > 0 && blog.category && !blog.ownerEdited.includes("category"))
    origins[0].values = { category: blog.category };
  return origins;
}

/** What the feed said of itself, as far as the stored values tell (a host-name title is the placeholder, not the feed's). */
export function legacyFeedValues(blog: LegacyBlog): FeedValues {
  const values = feedValuesOf({
    title: blog.title === hostTitle(blog.feedUrl) ? undefined : (blog.title ?? undefined),
    description: blog.description ?? undefined,
    siteUrl: blog.siteUrl ?? undefined,
    photo: blog.photo ?? undefined,
    author: blog.author ?? undefined,
  });
  for (const field of Object.keys(values) as (keyof FeedValues)[])
    if (blog.ownerEdited.includes(field)) delete values[field];
  return values;
}
