import { hostTitle, isHostTitle } from "../../url/normalise.js";
import { newId } from "../id.js";
import { freshFetchState } from "../fresh.js";
import { EDITABLE_BLOG_FIELDS, type Blog, type BlogEdit, type FeedMetadata, type FetchRecord, type NewBlog, type UpsertOutcome } from "../types.js";
import type { StoredBlog } from "./rows.js";

/*
 * The blog rules as pure functions over a stored blog: what a source, an
 * admin edit or a fetch changes. blogs.ts reads a row, applies one of these
 * and writes the row back inside one transaction.
 */

/**
 * Fields a source may refresh on an existing blog, unless the owner edited
 * them. Not feedType: a listing's type is a hint for a new blog, the feed
 * itself says what it is.
 */
const SOURCE_FIELDS = [
  "title", "description", "siteUrl", "category", "photo", "author",
  "microsubFeedId", "microsubChannelId", "microsubChannelName",
] as const satisfies readonly (keyof NewBlog & keyof Blog)[];

/** Fields a fetch learns from the feed itself. */
const METADATA_FIELDS = ["title", "description", "siteUrl", "photo", "author", "feedType"] as const satisfies readonly (keyof FeedMetadata)[];

const isOwnerEdited = (blog: Blog, field: string) => (blog.ownerEdited as string[]).includes(field);

/** A new blog row from a source listing. */
export function blogFromSource(input: NewBlog, now: Date): StoredBlog {
  const sourceId = input.sourceId ?? null;
  return {
    resumeStatus: null,
    blog: {
      id: newId(now.getTime()),
      title: input.title,
      description: input.description ?? null,
      feedUrl: input.feedUrl,
      siteUrl: input.siteUrl ?? null,
      feedType: input.feedType ?? null,
      category: input.category ?? null,
      tags: input.tags ?? [],
      photo: input.photo ?? null,
      author: input.author ?? null,
      status: input.status ?? "pending",
      itemCount: 0,
      pinned: false,
      hidden: false,
      notes: null,
      relationship: [],
      note: null,
      fediverse: null,
      fediverseUrl: null,
      source: input.source,
      sourceId,
      sourceIds: sourceId ? [sourceId] : [],
      microsubFeedId: input.microsubFeedId ?? null,
      microsubChannelId: input.microsubChannelId ?? null,
      microsubChannelName: input.microsubChannelName ?? null,
      skipItemFetch: input.skipItemFetch ?? false,
      ...freshFetchState(),
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    },
  };
}

/**
 * A source listed an existing blog again. Deleted blogs are never touched;
 * inactive ones come back to the status they had; owner-edited fields stay.
 */
export function mergeFromSource(stored: StoredBlog, input: NewBlog, now: Date): { outcome: Exclude<UpsertOutcome, "added">; stored: StoredBlog } {
  if (stored.blog.status === "deleted") return { outcome: "skipped-deleted", stored };
  const blog: Blog = { ...stored.blog, sourceIds: [...stored.blog.sourceIds] };
  let changed = false;
  for (const field of SOURCE_FIELDS) {
    const value = input[field];
    if (value === undefined || isOwnerEdited(blog, field) || blog[field] === value) continue;
    if (field === "title" && value === hostTitle(input.feedUrl)) continue; // the listing named none
    (blog as unknown as Record<string, unknown>)[field] = value;
    changed = true;
  }
  if (input.sourceId && !blog.sourceIds.includes(input.sourceId)) {
    blog.sourceIds.push(input.sourceId);
    blog.sourceId ??= input.sourceId;
    changed = true;
  }
  if (blog.source === null && input.source) {
    blog.source = input.source;
    changed = true;
  }
  if (blog.status === "inactive") {
    blog.status = stored.resumeStatus ?? "pending";
    blog.updatedAt = now;
    return { outcome: "reactivated", stored: { blog, resumeStatus: null } };
  }
  if (!changed) return { outcome: "unchanged", stored };
  blog.updatedAt = now;
  return { outcome: "updated", stored: { blog, resumeStatus: stored.resumeStatus } };
}

/**
 * An admin edit: fields become owner-edited; a status re-enables fetching
 * from scratch. A title that is only the host name is the placeholder, never
 * the owner's: it is stored untyped, so the feed's own title replaces it.
 */
export function applyEdit(stored: StoredBlog, edit: BlogEdit, now: Date): StoredBlog {
  const blog: Blog = { ...stored.blog, ownerEdited: [...stored.blog.ownerEdited] };
  let resumeStatus = stored.resumeStatus;
  for (const field of EDITABLE_BLOG_FIELDS) {
    const value = edit[field];
    if (value === undefined) continue;
    (blog as unknown as Record<string, unknown>)[field] = Array.isArray(value) ? [...value] : value;
    if (!blog.ownerEdited.includes(field)) blog.ownerEdited.push(field);
  }
  // The profile page belongs to the handle: a new handle brings its own, or none.
  if (edit.fediverse !== undefined) blog.fediverseUrl = edit.fediverse === null ? null : (edit.fediverseUrl ?? null);
  if (edit.title !== undefined && isHostTitle(edit.title, blog.feedUrl, blog.movedFrom)) {
    blog.ownerEdited = blog.ownerEdited.filter((field) => field !== "title");
  }
  if (edit.status) {
    blog.status = edit.status;
    blog.failureCount = 0;
    blog.deadEndSince = null;
    blog.nextFetchAt = null;
    resumeStatus = null;
  }
  blog.updatedAt = now;
  return { blog, resumeStatus };
}

/**
 * The outcome of a fetch. A deleted or inactive blog keeps that status (a
 * fetch that raced a delete must not bring it back); an inactive one
 * remembers the fetch status for when it is listed again.
 * `newFeedUrl` is the redirect target the caller found free, if any.
 */
export function applyFetch(stored: StoredBlog, record: FetchRecord, newFeedUrl: string | null, now: Date): StoredBlog {
  const blog: Blog = { ...stored.blog };
  let resumeStatus = stored.resumeStatus;
  if (blog.status === "inactive") resumeStatus = record.status;
  else if (blog.status !== "deleted") blog.status = record.status;
  blog.lastFetchAt = record.at;
  blog.lastError = record.error ?? null;
  blog.nextFetchAt = record.nextFetchAt;
  blog.failureCount = record.failureCount;
  blog.failingSince = record.status === "error" ? (blog.failingSince ?? record.at) : null;
  blog.deadEndSince = record.deadEnd ? (blog.deadEndSince ?? record.at) : null;
  if (record.schedule) Object.assign(blog, scheduleFields(blog, record.schedule));
  if (record.etag !== undefined) blog.etag = record.etag;
  if (record.lastModified !== undefined) blog.lastModified = record.lastModified;
  if (record.iconUrl !== undefined) blog.iconUrl = record.iconUrl;
  if (newFeedUrl) {
    blog.movedFrom = blog.feedUrl;
    blog.movedAt = record.at;
    blog.feedUrl = newFeedUrl;
  }
  for (const field of METADATA_FIELDS) {
    const value = record.metadata?.[field];
    if (value === undefined || isOwnerEdited(blog, field)) continue;
    (blog as unknown as Record<string, unknown>)[field] = value;
  }
  blog.updatedAt = now;
  return { blog, resumeStatus };
}

/** The schedule fields a fetch sets; the newest post date only ever moves forward. */
export function scheduleFields(blog: Pick<Blog, "lastPostAt">, schedule: NonNullable<FetchRecord["schedule"]>): Partial<Blog> {
  const recentPosts = [...schedule.recentPosts].sort((a, b) => b.getTime() - a.getTime());
  const newest = recentPosts[0] ?? null;
  return {
    recentPosts,
    lastPostAt: blog.lastPostAt && (!newest || blog.lastPostAt > newest) ? blog.lastPostAt : newest,
    fetchInterval: schedule.fetchInterval,
    fetchReason: schedule.fetchReason,
    waitUntil: schedule.waitUntil,
  };
}

/** The blog without `sourceId` among its sources; the next one becomes primary. */
export function withoutSource(stored: StoredBlog, sourceId: string, now: Date): StoredBlog {
  const sourceIds = stored.blog.sourceIds.filter((id) => id !== sourceId);
  const primary = stored.blog.sourceId === sourceId ? (sourceIds[0] ?? null) : stored.blog.sourceId;
  // A blog no source lists any more is the owner's own: a manual blog.
  const source = sourceIds.length === 0 && primary === null ? "manual" : stored.blog.source;
  return { blog: { ...stored.blog, sourceIds, sourceId: primary, source, updatedAt: now }, resumeStatus: stored.resumeStatus };
}

/** No source lists the blog any more: hide it until one does, remembering its status. */
export function markInactive(stored: StoredBlog, now: Date): StoredBlog {
  return { blog: { ...stored.blog, status: "inactive", updatedAt: now }, resumeStatus: stored.blog.status };
}

/** Soft delete: hidden, never re-created by a source (its feed URL key stays taken). */
export function markDeleted(stored: StoredBlog, at: Date, now: Date): StoredBlog {
  return { blog: { ...stored.blog, status: "deleted", hidden: true, deletedAt: at, updatedAt: now }, resumeStatus: null };
}
