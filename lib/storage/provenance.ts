import { isDeepStrictEqual } from "node:util";
import { hostTitle, isHostTitle } from "../url/normalise.js";
import { freshFetchState } from "./fresh.js";
import {
  OWNER_ORIGIN,
  type Blog,
  type BlogOrigin,
  type EditableBlogField,
  type FeedMetadata,
  type FeedValues,
  type ListedField,
  type ListedValues,
  type NewBlog,
  type SourceType,
  type UpsertOutcome,
} from "./types.js";

/*
 * Who lists a blog, and which value each of its fields shows: the rules both
 * adapters apply, as pure functions over port Blogs. A blog stays listed
 * while any origin lists it. For each field an origin can give, the value is
 * chosen the same way every time:
 *
 *   what the owner typed  >  the first origin (in listing order) that gives one
 *   >  what the feed says of itself  >  none (a title: the feed's host name)
 *
 * so a listing that gives no value never clears another's, and re-reading an
 * unchanged list changes nothing.
 */

export const LISTED_FIELDS: readonly ListedField[] = ["title", "description", "siteUrl", "category", "photo", "author"];
const FEED_FIELDS = [
  "title",
  "description",
  "siteUrl",
  "photo",
  "author",
] as const satisfies readonly (keyof FeedValues)[];
/** Microsub's own ids for a blog it mirrors: the latest listing's stand. */
const MICROSUB_FIELDS = ["microsubFeedId", "microsubChannelId", "microsubChannelName"] as const;

/** The `source` kind of the blogs a source of this type lists. */
export function originKind(type: SourceType): string {
  return type === "opml_url" || type === "opml_file" ? "opml" : type;
}

export const isListed = (blog: Pick<Blog, "origins">): boolean => blog.origins.length > 0;

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined;

/** The values a listing gives: its non-blank listed fields. */
export function listedValues(listing: Partial<Record<ListedField, string | null>>): ListedValues {
  const values: ListedValues = {};
  for (const field of LISTED_FIELDS) {
    const value = text(listing[field]);
    if (value !== undefined) values[field] = value;
  }
  return values;
}

/** The non-blank values a feed (or what is known of it) gives. */
export function feedValuesOf(metadata: FeedMetadata | FeedValues | undefined): FeedValues {
  const values: FeedValues = {};
  for (const field of FEED_FIELDS) {
    const value = text(metadata?.[field]);
    if (value !== undefined) values[field] = value;
  }
  return values;
}

/** The value each listed field shows (see the rule at the top). */
export function resolvedValues(
  blog: Pick<Blog, ListedField | "ownerEdited" | "origins" | "feedValues" | "feedUrl">,
): Pick<Blog, ListedField> {
  const chosen = {} as Record<ListedField, string | null>;
  for (const field of LISTED_FIELDS) {
    if ((blog.ownerEdited as string[]).includes(field)) {
      chosen[field] = blog[field];
      continue;
    }
    const given = blog.origins.find((origin) => origin.values[field] !== undefined)?.values[field];
    const fed = field === "category" ? undefined : blog.feedValues[field];
    chosen[field] = given ?? fed ?? (field === "title" ? hostTitle(blog.feedUrl) : null);
  }
  return chosen as Pick<Blog, ListedField>;
}

/**
 * The blog with its shown values and `source` derived again from its
 * origins. A blog no origin lists keeps showing what it showed (to the owner
 * only) until an origin lists it again.
 */
function settled(blog: Blog): Blog {
  if (!isListed(blog)) return { ...blog, source: null };
  return { ...blog, ...resolvedValues(blog), source: blog.origins[0]?.kind ?? null };
}

/** The fields of `after` that differ from `before` (dates by time, lists and objects by content). */
export function changedFields(before: Blog, after: Blog): (keyof Blog)[] {
  return (Object.keys(after) as (keyof Blog)[]).filter((key) => !isDeepStrictEqual(before[key], after[key]));
}

function originOf(listing: NewBlog, since: Date): BlogOrigin {
  const values = listedValues(listing);
  // A listing whose title is only the feed's host name names none: that is the placeholder.
  if (values.title !== undefined && isHostTitle(values.title, listing.feedUrl)) delete values.title;
  return { id: listing.sourceId || OWNER_ORIGIN, kind: listing.source ?? null, since, values };
}

/** A new blog as its first origin lists it. */
export function listedBlog(listing: NewBlog, id: string, now: Date): Blog {
  return settled({
    id,
    title: "",
    description: null,
    feedUrl: listing.feedUrl,
    siteUrl: null,
    feedType: listing.feedType ?? null,
    category: null,
    tags: listing.tags ? [...listing.tags] : [],
    photo: null,
    author: null,
    status: listing.status ?? "pending",
    itemCount: 0,
    pinned: false,
    hidden: false,
    notes: null,
    relationship: [],
    note: null,
    fediverse: null,
    fediverseUrl: null,
    source: null,
    origins: [originOf(listing, now)],
    feedValues: feedValuesOf(listing.feed),
    microsubFeedId: listing.microsubFeedId ?? null,
    microsubChannelId: listing.microsubChannelId ?? null,
    microsubChannelName: listing.microsubChannelName ?? null,
    skipItemFetch: listing.skipItemFetch ?? false,
    ...freshFetchState(),
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
}

/**
 * An origin lists an existing blog: a new origin is added last; a known
 * source gives the values its list gives now (a folder it dropped is gone),
 * while the owner, listing a blog again, only adds to what it gave. A
 * deleted blog is left alone; an unlisted one is listed again
 * (`reactivated`); nothing different, `unchanged`.
 */
export function withListing(
  blog: Blog,
  listing: NewBlog,
  now: Date,
): { outcome: Exclude<UpsertOutcome, "added">; blog: Blog } {
  if (blog.status === "deleted") return { outcome: "skipped-deleted", blog };
  const origin = originOf(listing, now);
  const known = blog.origins.find((entry) => entry.id === origin.id);
  const values = (entry: BlogOrigin) =>
    entry.id === OWNER_ORIGIN ? { ...entry.values, ...origin.values } : origin.values;
  const origins = known
    ? blog.origins.map((entry) => (entry === known ? { ...entry, values: values(entry) } : entry))
    : [...blog.origins, origin];
  const next: Blog = { ...blog, origins };
  for (const field of MICROSUB_FIELDS) {
    const value = listing[field];
    if (value !== undefined) next[field] = value;
  }
  const after = settled(next);
  if (changedFields(blog, after).length === 0) return { outcome: "unchanged", blog };
  return { outcome: isListed(blog) ? "updated" : "reactivated", blog: { ...after, updatedAt: now } };
}

/** The origin no longer lists the blog; its values go with it. */
export function withoutOrigin(blog: Blog, originId: string, now: Date): Blog {
  if (!blog.origins.some((origin) => origin.id === originId)) return blog;
  return { ...settled({ ...blog, origins: blog.origins.filter((origin) => origin.id !== originId) }), updatedAt: now };
}

/**
 * A source the owner deletes while keeping its blogs: a blog only it listed
 * becomes the owner's, with the values the source gave, so nothing it shows
 * changes. Blogs other origins list just lose this one.
 */
export function withoutSourceKept(blog: Blog, sourceId: string, now: Date): Blog {
  const departed = blog.origins.find((origin) => origin.id === sourceId);
  if (!departed) return blog;
  const rest = blog.origins.filter((origin) => origin !== departed);
  const origins =
    rest.length > 0 ? rest : [{ id: OWNER_ORIGIN, kind: "manual", since: now, values: { ...departed.values } }];
  return { ...settled({ ...blog, origins }), updatedAt: now };
}

/** Edits of anything but `hidden` make the owner an origin (added last): what the owner worked on stays listed. */
export function withOwnerEdits(blog: Blog, fields: readonly EditableBlogField[], now: Date): Blog {
  const ownerMade =
    fields.some((field) => field !== "hidden") && !blog.origins.some((origin) => origin.id === OWNER_ORIGIN);
  const origins = ownerMade
    ? [...blog.origins, { id: OWNER_ORIGIN, kind: "manual", since: now, values: {} }]
    : blog.origins;
  return settled({ ...blog, origins });
}

/** A fetch's metadata: the feed's values are kept (absent ones leave what is known) and shown where nobody else gives one. */
export function withFeedMetadata(blog: Blog, metadata: FeedMetadata | undefined): Blog {
  const feedValues = { ...blog.feedValues, ...feedValuesOf(metadata) };
  const feedType = metadata?.feedType ?? blog.feedType;
  return settled({ ...blog, feedValues, feedType });
}
