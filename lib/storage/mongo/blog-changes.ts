import type { Document } from "mongodb";
import { feedUrlKey, hostTitle } from "../../url/normalise.js";
import { freshFetchState } from "../fresh.js";
import { StorageError, type BlogEdit, type EditableBlogField, type FetchRecord, type NewBlog } from "../types.js";
import { dateOrNull, ownerEditedOf } from "./documents.js";
import { refHex, type ObjectIds } from "./object-ids.js";
import { blogStatusValue, countValue, dateValue, optionalTextValue, textValue } from "./values.js";

/*
 * What each blog write changes, as plain documents built from validated
 * values: a new document, or the `$set` of a source listing, an admin edit
 * or a fetch. No database access here.
 */

/**
 * Fields a source may refresh on an existing blog, unless the owner edited
 * them. Not feedType: a listing's type is a hint for a new blog, the feed
 * itself says what it is.
 */
const SOURCE_TEXT_FIELDS = ["title", "description", "siteUrl", "category", "photo", "author", "microsubChannelName"] as const;
/** Reference fields a source may refresh (stored as ObjectId when they are ids). */
const SOURCE_REF_FIELDS = ["microsubFeedId", "microsubChannelId"] as const;
/** Feed metadata a fetch may refresh, unless the owner edited it. */
const METADATA_FIELDS = ["title", "description", "siteUrl", "photo", "author", "feedType"] as const;
const TEXT_EDIT_FIELDS = ["description", "siteUrl", "category", "photo", "author", "notes", "note"] as const;

function stringArray(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new StorageError(`Invalid ${what}: list expected`);
  return value.map((entry) => textValue(entry, what));
}

/** A complete new blog document, every field present, dates as BSON Date. */
export function newBlogDoc(ids: ObjectIds, input: NewBlog, feedUrl: string, now: Date): Document {
  const sourceId = ids.ref(input.sourceId);
  return {
    _id: ids.create(),
    feedKey: feedUrlKey(feedUrl),
    feedUrl,
    title: textValue(input.title ?? "", "title"),
    description: optionalTextValue(input.description, "description"),
    siteUrl: optionalTextValue(input.siteUrl, "siteUrl"),
    feedType: optionalTextValue(input.feedType, "feedType"),
    category: optionalTextValue(input.category, "category"),
    tags: input.tags === undefined ? [] : stringArray(input.tags, "tags"),
    photo: optionalTextValue(input.photo, "photo"),
    author: optionalTextValue(input.author, "author"),
    status: input.status === undefined ? "pending" : blogStatusValue(input.status),
    itemCount: 0,
    pinned: false,
    hidden: false,
    notes: null,
    relationship: [],
    note: null,
    fediverse: null,
    fediverseUrl: null,
    source: optionalTextValue(input.source, "source"),
    sourceId,
    sourceIds: sourceId === null ? [] : [sourceId],
    microsubFeedId: ids.ref(input.microsubFeedId),
    microsubChannelId: ids.ref(input.microsubChannelId),
    microsubChannelName: optionalTextValue(input.microsubChannelName, "microsubChannelName"),
    skipItemFetch: input.skipItemFetch === true,
    ...freshFetchState(),
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/** The `$set` a source listing implies for an existing blog (empty when nothing differs). */
export function sourceChanges(ids: ObjectIds, doc: Document, input: NewBlog): Document {
  const edited = new Set<string>(ownerEditedOf(doc));
  const set: Document = {};
  for (const field of SOURCE_TEXT_FIELDS) {
    const value = input[field];
    if (value === undefined || edited.has(field)) continue;
    if (field === "title" && value === hostTitle(input.feedUrl)) continue; // the listing named none
    const next = optionalTextValue(value, field);
    if ((doc[field] ?? null) !== next) set[field] = next;
  }
  for (const field of SOURCE_REF_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (refHex(doc[field]) !== (value || null)) set[field] = ids.ref(value);
  }
  if ((doc.source ?? null) === null && input.source) set.source = textValue(input.source, "source");
  if (input.sourceId && refHex(doc.sourceId) === null) set.sourceId = ids.ref(input.sourceId);
  if (doc.status === "inactive") set.status = input.status === undefined ? (doc.lastFetchAt ? "active" : "pending") : blogStatusValue(input.status);
  return set;
}

/** The `$set` an admin edit implies, and the fields it marks owner-edited. */
export function editChanges(edit: BlogEdit): { set: Document; fields: EditableBlogField[] } {
  const set: Document = {};
  const fields: EditableBlogField[] = [];
  if (edit.title !== undefined) {
    set.title = textValue(edit.title, "title");
    fields.push("title");
  }
  for (const field of TEXT_EDIT_FIELDS) {
    if (edit[field] === undefined) continue;
    set[field] = optionalTextValue(edit[field], field);
    fields.push(field);
  }
  for (const field of ["tags", "relationship"] as const) {
    if (edit[field] === undefined) continue;
    set[field] = stringArray(edit[field], field);
    fields.push(field);
  }
  if (edit.fediverse !== undefined) {
    // The profile page belongs to the handle: a new handle brings its own, or none.
    set.fediverse = optionalTextValue(edit.fediverse, "fediverse");
    set.fediverseUrl = set.fediverse === null ? null : optionalTextValue(edit.fediverseUrl ?? null, "fediverseUrl");
    fields.push("fediverse");
  }
  for (const field of ["pinned", "hidden"] as const) {
    if (edit[field] === undefined) continue;
    set[field] = edit[field] === true;
    fields.push(field);
  }
  if (edit.status !== undefined) {
    if (edit.status !== "active" && edit.status !== "pending") throw new StorageError("Invalid blog status");
    // Re-enabling starts the back-off from scratch and makes the blog due now.
    Object.assign(set, { status: edit.status, failureCount: 0, deadEndSince: null, nextFetchAt: null });
  }
  return { set, fields };
}

/** The `$set` of one fetch outcome; `undefined` fields are left alone. */
export function fetchChanges(doc: Document, record: FetchRecord): Document {
  const set: Document = {
    lastFetchAt: dateValue(record.at, "fetch time"),
    lastError: optionalTextValue(record.error, "error"),
    nextFetchAt: record.nextFetchAt === null ? null : dateValue(record.nextFetchAt, "next fetch time"),
    failureCount: countValue(record.failureCount),
    updatedAt: new Date(),
  };
  // An inactive blog stays inactive until a source lists it again.
  const status = blogStatusValue(record.status);
  if (doc.status !== "inactive") set.status = status;
  set.failingSince = status === "error" ? (dateOrNull(doc.failingSince) ?? set.lastFetchAt) : null;
  set.deadEndSince = record.deadEnd === true ? (dateOrNull(doc.deadEndSince) ?? set.lastFetchAt) : null;
  if (record.schedule) Object.assign(set, scheduleChanges(doc, record.schedule));
  for (const field of ["etag", "lastModified", "iconUrl"] as const) {
    if (record[field] !== undefined) set[field] = optionalTextValue(record[field], field);
  }
  const edited = new Set<string>(ownerEditedOf(doc));
  for (const field of METADATA_FIELDS) {
    const value = record.metadata?.[field];
    if (value !== undefined && !edited.has(field)) set[field] = optionalTextValue(value, field);
  }
  return set;
}

/** The schedule fields of a fetch; the newest post date only ever moves forward. */
function scheduleChanges(doc: Document, schedule: NonNullable<FetchRecord["schedule"]>): Document {
  const recentPosts = schedule.recentPosts.map((date) => dateValue(date, "post date")).sort((a, b) => b.getTime() - a.getTime());
  const known = dateOrNull(doc.lastPostAt);
  const newest = recentPosts[0] ?? null;
  const interval = schedule.fetchInterval;
  return {
    recentPosts,
    lastPostAt: known && (!newest || known > newest) ? known : newest,
    fetchInterval: interval === null ? null : countValue(interval),
    fetchReason: textValue(schedule.fetchReason, "schedule reason"),
    waitUntil: schedule.waitUntil === null ? null : dateValue(schedule.waitUntil, "wait"),
  };
}
