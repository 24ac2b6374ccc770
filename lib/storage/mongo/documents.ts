import type { Document } from "mongodb";
import { EDITABLE_BLOG_FIELDS, type Blog, type BlogStatus, type EditableBlogField, type FeedType, type ImportCounts, type Item, type Source, type SourceType } from "../types.js";
import { isObjectId, refHex } from "./object-ids.js";
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

/** Every source id a blog document lists (legacy documents only have `sourceId`). */
export function sourceIdsOf(doc: Document): string[] {
  if (Array.isArray(doc.sourceIds)) {
    return doc.sourceIds.map(refHex).filter((id: string | null): id is string => id !== null);
  }
  const single = refHex(doc.sourceId);
  return single ? [single] : [];
}

/** Fields the owner edited on a blog document. */
export function ownerEditedOf(doc: Document): EditableBlogField[] {
  return stringList(doc.ownerEdited).filter((field): field is EditableBlogField =>
    (EDITABLE_BLOG_FIELDS as readonly string[]).includes(field),
  );
}

/** A `blogrollBlogs` document as a port Blog, with defaults for missing fields. */
export function toBlog(doc: Document): Blog {
  const createdAt = createdAtOf(doc);
  const sourceIds = sourceIdsOf(doc);
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
    author: authorText(doc.author),
    status: oneOf<BlogStatus>(doc.status, BLOG_STATUSES) ?? "pending",
    itemCount: countOf(doc.itemCount),
    pinned: doc.pinned === true,
    hidden: doc.hidden === true,
    notes: textOrNull(doc.notes),
    relationship: stringList(doc.relationship),
    note: textOrNull(doc.note),
    fediverse: textOrNull(doc.fediverse),
    fediverseUrl: textOrNull(doc.fediverseUrl),
    source: nonEmptyText(doc.source),
    sourceId: refHex(doc.sourceId) ?? sourceIds[0] ?? null,
    sourceIds,
    microsubFeedId: refHex(doc.microsubFeedId),
    microsubChannelId: refHex(doc.microsubChannelId),
    microsubChannelName: textOrNull(doc.microsubChannelName),
    skipItemFetch: doc.skipItemFetch === true,
    lastFetchAt: dateOrNull(doc.lastFetchAt),
    lastItemAt: dateOrNull(doc.lastItemAt),
    lastError: textOrNull(doc.lastError),
    nextFetchAt: dateOrNull(doc.nextFetchAt),
    failureCount: countOf(doc.failureCount),
    failingSince: dateOrNull(doc.failingSince),
    deadEndSince: dateOrNull(doc.deadEndSince),
    recentPosts: Array.isArray(doc.recentPosts) ? doc.recentPosts.map(dateOrNull).filter((date: Date | null): date is Date => date !== null) : [],
    lastPostAt: dateOrNull(doc.lastPostAt),
    fetchInterval: typeof doc.fetchInterval === "number" && Number.isFinite(doc.fetchInterval) ? doc.fetchInterval : null,
    fetchReason: textOrNull(doc.fetchReason),
    waitUntil: dateOrNull(doc.waitUntil),
    movedFrom: nonEmptyText(doc.movedFrom),
    movedAt: dateOrNull(doc.movedAt),
    etag: textOrNull(doc.etag),
    lastModified: textOrNull(doc.lastModified),
    iconUrl: nonEmptyText(doc.iconUrl),
    ownerEdited: ownerEditedOf(doc),
    createdAt,
    updatedAt: dateOrNull(doc.updatedAt) ?? createdAt,
    deletedAt: dateOrNull(doc.deletedAt),
  };
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
