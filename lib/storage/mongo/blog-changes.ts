import type { Document } from "mongodb";
import { StorageError, type BlogEdit, type FeedMetadata, type FetchRecord, type NewBlog } from "../types.js";
import { dateOrNull } from "./documents.js";
import { blogStatusValue, countValue, dateValue, optionalTextValue, textValue } from "./values.js";

/*
 * The values of blog writes, checked: a caller's object where text belongs
 * is refused before it can reach a document or a filter. And the `$set` of a
 * fetch's own fields. No database access here; which value each field shows
 * is lib/storage/provenance.ts.
 */

const LISTING_TEXT = [
  "title",
  "description",
  "siteUrl",
  "category",
  "photo",
  "author",
  "source",
  "sourceId",
  "feedType",
] as const;
const LISTING_REFS = ["microsubFeedId", "microsubChannelId", "microsubChannelName"] as const;
const TEXT_EDIT_FIELDS = [
  "description",
  "siteUrl",
  "category",
  "photo",
  "author",
  "notes",
  "note",
  "fediverse",
  "fediverseUrl",
] as const;

function stringArray(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new StorageError(`Invalid ${what}: list expected`);
  return value.map((entry) => textValue(entry, what));
}

function checkedFeedValues(values: FeedMetadata | undefined, what: string): void {
  for (const value of Object.values(values ?? {})) optionalTextValue(value, what);
}

/** A listing whose every value is of its type (a StorageError otherwise). */
export function checkedListing(input: NewBlog): NewBlog {
  textValue(input.feedUrl, "feed URL");
  for (const field of [...LISTING_TEXT, ...LISTING_REFS]) optionalTextValue(input[field], field);
  if (input.tags !== undefined) stringArray(input.tags, "tags");
  if (input.status !== undefined) blogStatusValue(input.status);
  checkedFeedValues(input.feed, "feed value");
  return input;
}

/** An admin edit whose every value is of its type (pinned and hidden read as "true or not"). */
export function checkedEdit(edit: BlogEdit): BlogEdit {
  const checked: BlogEdit = { ...edit };
  if (edit.title !== undefined) textValue(edit.title, "title");
  for (const field of TEXT_EDIT_FIELDS) if (edit[field] !== undefined) optionalTextValue(edit[field], field);
  for (const field of ["tags", "relationship"] as const)
    if (edit[field] !== undefined) checked[field] = stringArray(edit[field], field);
  for (const field of ["pinned", "hidden"] as const)
    if (edit[field] !== undefined) checked[field] = edit[field] === true;
  if (edit.status !== undefined && edit.status !== "active" && edit.status !== "pending")
    throw new StorageError("Invalid blog status");
  return checked;
}

/** A fetch record whose metadata is text. */
export function checkedMetadata(record: FetchRecord): FetchRecord {
  checkedFeedValues(record.metadata, "feed metadata");
  return record;
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
  const status = blogStatusValue(record.status);
  set.status = status;
  set.failingSince = status === "error" ? (dateOrNull(doc.failingSince) ?? set.lastFetchAt) : null;
  set.deadEndSince = record.deadEnd === true ? (dateOrNull(doc.deadEndSince) ?? set.lastFetchAt) : null;
  if (record.schedule) Object.assign(set, scheduleChanges(doc, record.schedule));
  for (const field of ["etag", "lastModified", "iconUrl"] as const) {
    if (record[field] !== undefined) set[field] = optionalTextValue(record[field], field);
  }
  return set;
}

/** The schedule fields of a fetch; the newest post date only ever moves forward. */
function scheduleChanges(doc: Document, schedule: NonNullable<FetchRecord["schedule"]>): Document {
  const recentPosts = schedule.recentPosts
    .map((date) => dateValue(date, "post date"))
    .sort((a, b) => b.getTime() - a.getTime());
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
