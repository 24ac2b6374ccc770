import type { Document } from "mongodb";
import { legacyFeedValues, legacyOrigins, type LegacyBlog } from "../legacy-origins.js";
import { changedFields, feedValuesOf, listedValues } from "../provenance.js";
import {
  EDITABLE_BLOG_FIELDS,
  type Blog,
  type BlogOrigin,
  type BlogStatus,
  type EditableBlogField,
  type FeedType,
  type ImportCounts,
  type Item,
  PUBLIC_BLOG_FIELDS,
  type PublicBlog,
  type Source,
  type SourceType,
} from "../types.js";
import { isObjectId, refHex, type ObjectIds } from "./object-ids.js";
import { titleSortKey } from "./sort-keys.js";
import { BLOG_STATUSES } from "./values.js";

/*
 * Documents -> port records. Reading is tolerant on purpose: the Microsub
 * plugin writes `blogrollBlogs` itself (without most of our fields), and the
 * earlier blogroll plugin stored dates as ISO text.
 */

const FEED_TYPES: readonly FeedType[] = ["rss", "atom", "json", "hfeed"];
const SOURCE_TYPES: readonly SourceType[] = ["opml_url", "opml_file", "manual", "feedland", "microsub", "blogroll"];

/** The hex id of a document's `_id`. */
export function hexId(value: unknown): string {
  return refHex(value) ?? "";
}

function textOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function nonEmptyText(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** A Date from a BSON date or legacy ISO text; null when absent or invalid. */
export function dateOrNull(value: unknown): Date | null {
  const date = value instanceof Date ? value : typeof value === "string" && value !== "" ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

function countOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}

/** Older documents may hold an author object ({ name }) rather than text. */
function authorText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { name?: unknown }).name === "string") {
    return (value as { name: string }).name;
  }
  return null;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

function createdAtOf(doc: Document): Date {
  return dateOrNull(doc.createdAt) ?? (isObjectId(doc._id) ? doc._id.getTimestamp() : new Date(0));
}

/** The source ids a document stored before origins records (older ones only have `sourceId`), the first one first. */
function legacySourceIds(doc: Document): string[] {
  const listed = Array.isArray(doc.sourceIds) ? doc.sourceIds.map(refHex) : [];
  return [...new Set([refHex(doc.sourceId), ...listed].filter((id): id is string => id !== null))];
}

/** A document without origins, as lib/storage/legacy-origins.ts reads it. */
export function legacyBlogOf(doc: Document): LegacyBlog {
  return {
    status: typeof doc.status === "string" ? doc.status : "pending",
    source: nonEmptyText(doc.source),
    sourceIds: legacySourceIds(doc),
    ownerEdited: stringList(doc.ownerEdited),
    feedUrl: textOrNull(doc.feedUrl) ?? "",
    title: textOrNull(doc.title),
    description: textOrNull(doc.description),
    siteUrl: nonEmptyText(doc.siteUrl),
    category: nonEmptyText(doc.category),
    photo: nonEmptyText(doc.photo),
    author: authorText(doc.author),
    createdAt: createdAtOf(doc),
  };
}

/**
 * A blog document's origins. Documents without any (written before origins
 * were, or by the Microsub plugin itself) are read as the setup migrates
 * them, their recorded sources taken to be of the blog's own kind.
 */
export function originsOf(doc: Document): BlogOrigin[] {
  if (!Array.isArray(doc.origins)) return legacyOrigins(legacyBlogOf(doc), () => nonEmptyText(doc.source) ?? undefined);
  return doc.origins.flatMap((entry: unknown): BlogOrigin[] => {
    const origin = (entry ?? {}) as Document;
    const id = refHex(origin.id);
    if (id === null) return [];
    return [
      {
        id,
        kind: nonEmptyText(origin.kind),
        since: dateOrNull(origin.since) ?? createdAtOf(doc),
        values: listedValues(origin.values ?? {}),
      },
    ];
  });
}

/** Origins as stored: source ids as references (ObjectIds), the owner as text. */
export function originDocs(origins: BlogOrigin[], ids: ObjectIds): Document[] {
  return origins.map((origin) => ({
    id: ids.ref(origin.id),
    kind: origin.kind,
    since: origin.since,
    values: { ...origin.values },
  }));
}

/** Fields the owner edited on a blog document. */
export function ownerEditedOf(doc: Document): EditableBlogField[] {
  return stringList(doc.ownerEdited).filter((field): field is EditableBlogField =>
    (EDITABLE_BLOG_FIELDS as readonly string[]).includes(field),
  );
}

/** A `blogrollBlogs` document as a port Blog, with defaults for missing fields. */
/** The fields of a blog document the public reads need (PUBLIC_BLOG_FIELDS; `id` is `_id`). */
export const PUBLIC_BLOG_PROJECTION: Document = Object.fromEntries(
  PUBLIC_BLOG_FIELDS.map((field) => [field === "id" ? "_id" : field, 1]),
);

/** A blog document's public fields (it may hold only those: PUBLIC_BLOG_PROJECTION). */
export function toPublicBlog(doc: Document): PublicBlog {
  return {
    id: hexId(doc._id),
    title: textOrNull(doc.title) ?? "",
    description: textOrNull(doc.description),
    feedUrl: textOrNull(doc.feedUrl) ?? "",
    siteUrl: nonEmptyText(doc.siteUrl),
    feedType: oneOf(doc.feedType, FEED_TYPES),
    category: nonEmptyText(doc.category),
    tags: stringList(doc.tags),
    photo: nonEmptyText(doc.photo),
    iconUrl: nonEmptyText(doc.iconUrl),
    author: authorText(doc.author),
    status: oneOf<BlogStatus>(doc.status, BLOG_STATUSES) ?? "pending",
    itemCount: countOf(doc.itemCount),
    pinned: doc.pinned === true,
    lastFetchAt: dateOrNull(doc.lastFetchAt),
    lastItemAt: dateOrNull(doc.lastItemAt),
    source: nonEmptyText(doc.source),
    microsubChannelName: textOrNull(doc.microsubChannelName),
    relationship: stringList(doc.relationship),
    note: textOrNull(doc.note),
    fediverse: textOrNull(doc.fediverse),
    fediverseUrl: textOrNull(doc.fediverseUrl),
  };
}

export function toBlog(doc: Document): Blog {
  const createdAt = createdAtOf(doc);
  // Every field written out, not spread from toPublicBlog: a Blog built by spreading another
  // object weighed on the main thread's heap in a sync (bench/scale.ts, BENCHMARKS.md).
  return {
    id: hexId(doc._id),
    title: textOrNull(doc.title) ?? "",
    description: textOrNull(doc.description),
    feedUrl: textOrNull(doc.feedUrl) ?? "",
    siteUrl: nonEmptyText(doc.siteUrl),
    feedType: oneOf(doc.feedType, FEED_TYPES),
    category: nonEmptyText(doc.category),
    tags: stringList(doc.tags),
    photo: nonEmptyText(doc.photo),
    iconUrl: nonEmptyText(doc.iconUrl),
    author: authorText(doc.author),
    status: oneOf<BlogStatus>(doc.status, BLOG_STATUSES) ?? "pending",
    itemCount: countOf(doc.itemCount),
    pinned: doc.pinned === true,
    lastFetchAt: dateOrNull(doc.lastFetchAt),
    lastItemAt: dateOrNull(doc.lastItemAt),
    source: nonEmptyText(doc.source),
    microsubChannelName: textOrNull(doc.microsubChannelName),
    relationship: stringList(doc.relationship),
    note: textOrNull(doc.note),
    fediverse: textOrNull(doc.fediverse),
    fediverseUrl: textOrNull(doc.fediverseUrl),
    hidden: doc.hidden === true,
    notes: textOrNull(doc.notes),
    origins: originsOf(doc),
    feedValues: Array.isArray(doc.origins) ? feedValuesOf(doc.feedValues ?? {}) : legacyFeedValues(legacyBlogOf(doc)),
    microsubFeedId: refHex(doc.microsubFeedId),
    microsubChannelId: refHex(doc.microsubChannelId),
    skipItemFetch: doc.skipItemFetch === true,
    lastError: textOrNull(doc.lastError),
    nextFetchAt: dateOrNull(doc.nextFetchAt),
    failureCount: countOf(doc.failureCount),
    failingSince: dateOrNull(doc.failingSince),
    deadEndSince: dateOrNull(doc.deadEndSince),
    recentPosts: Array.isArray(doc.recentPosts)
      ? doc.recentPosts.map(dateOrNull).filter((date: Date | null): date is Date => date !== null)
      : [],
    lastPostAt: dateOrNull(doc.lastPostAt),
    fetchInterval:
      typeof doc.fetchInterval === "number" && Number.isFinite(doc.fetchInterval) ? doc.fetchInterval : null,
    fetchReason: textOrNull(doc.fetchReason),
    waitUntil: dateOrNull(doc.waitUntil),
    hintBudgetAt: dateOrNull(doc.hintBudgetAt),
    movedFrom: nonEmptyText(doc.movedFrom),
    movedAt: dateOrNull(doc.movedAt),
    etag: textOrNull(doc.etag),
    lastModified: textOrNull(doc.lastModified),
    ownerEdited: ownerEditedOf(doc),
    createdAt,
    updatedAt: dateOrNull(doc.updatedAt) ?? createdAt,
    deletedAt: dateOrNull(doc.deletedAt),
  };
}

/** Fields whose stored form differs from the port's: references are stored as ObjectIds where they are ids. */
function docValue(key: keyof Blog, blog: Blog, ids: ObjectIds): unknown {
  switch (key) {
    case "origins":
      return originDocs(blog.origins, ids);
    case "microsubFeedId":
    case "microsubChannelId":
      return ids.ref(blog[key]);
    case "tags":
    case "recentPosts":
    case "ownerEdited":
      return [...blog[key]];
    case "feedValues":
      return { ...blog.feedValues };
    default:
      return blog[key];
  }
}

/**
 * A new blog's complete document (`_id` from its id; feedKey is the caller's),
 * with its stored sort key: the blogs list sorts on `pinned` (a boolean here)
 * and `titleSort` through an index, as a sort on keys computed per query
 * would read every blog.
 */
export function blogDoc(blog: Blog, ids: ObjectIds): Document {
  const doc: Document = { _id: ids.of(blog.id) };
  for (const key of Object.keys(blog) as (keyof Blog)[]) if (key !== "id") doc[key] = docValue(key, blog, ids);
  doc.titleSort = titleSortKey(blog.title);
  return doc;
}

/**
 * The `$set` that turns the document of `before` into `after`: only the
 * fields that differ (never `id`), and the title's sort key with the title.
 * Every write of a blog's fields (a listing, an edit, a fetch, an origin
 * removed) goes through here, so the key never lags its title.
 */
export function blogChanges(before: Blog, after: Blog, ids: ObjectIds): Document {
  const set: Document = {};
  for (const key of changedFields(before, after)) if (key !== "id") set[key] = docValue(key, after, ids);
  if (set.title !== undefined) set.titleSort = titleSortKey(after.title);
  return set;
}

/** A `blogrollItems` document as a port Item. */
export function toItem(doc: Document): Item {
  return {
    id: hexId(doc._id),
    blogId: hexId(doc.blogId),
    uid: typeof doc.uid === "string" ? doc.uid : hexId(doc._id),
    url: nonEmptyText(doc.url),
    title: textOrNull(doc.title),
    summary: textOrNull(doc.summary),
    content: textOrNull(doc.content),
    published: dateOrNull(doc.published),
    author: authorText(doc.author),
    photo: nonEmptyText(doc.photo),
    categories: stringList(doc.categories),
    fetchedAt: dateOrNull(doc.fetchedAt) ?? createdAtOf(doc),
  };
}

function importCountsOf(value: unknown): ImportCounts | null {
  if (!value || typeof value !== "object") return null;
  const counts = value as Record<string, unknown>;
  return {
    added: countOf(counts.added),
    updated: countOf(counts.updated),
    unchanged: countOf(counts.unchanged),
    skipped: countOf(counts.skipped),
    missing: countOf(counts.missing),
  };
}

/** Only string settings survive: they are what every source type stores. */
export function settingsOf(value: unknown): Record<string, string> {
  const settings: Record<string, string> = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return settings;
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === "string") settings[key] = entry;
  }
  return settings;
}

/** A `blogrollSources` document as a port Source. */
export function toSource(doc: Document): Source {
  const createdAt = createdAtOf(doc);
  return {
    id: hexId(doc._id),
    type: oneOf(doc.type, SOURCE_TYPES) ?? "manual",
    name: textOrNull(doc.name) ?? "",
    enabled: doc.enabled !== false,
    settings: settingsOf(doc.settings),
    status: oneOf(doc.status, ["pending", "ok", "error"] as const) ?? "pending",
    lastError: textOrNull(doc.lastError),
    lastSyncAt: dateOrNull(doc.lastSyncAt),
    lastImport: importCountsOf(doc.lastImport),
    etag: textOrNull(doc.etag),
    lastModified: textOrNull(doc.lastModified),
    createdAt,
    updatedAt: dateOrNull(doc.updatedAt) ?? createdAt,
  };
}
