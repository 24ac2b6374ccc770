import { withFeedMetadata } from "../provenance.js";
import type { Blog, FetchRecord } from "../types.js";

/*
 * The blog rules as pure functions over a stored blog: what a fetch or a
 * delete changes (what origins and edits change is lib/storage/provenance.ts
 * and lib/storage/owner-edits.ts).
 * blogs.ts reads a row, applies one of these and writes the row back inside
 * one transaction.
 */

/**
 * The outcome of a fetch. A deleted blog keeps that status (a fetch that
 * raced a delete must not bring it back). `newFeedUrl` is the redirect
 * target the caller found free, if any.
 */
export function applyFetch(stored: Blog, record: FetchRecord, newFeedUrl: string | null, now: Date): Blog {
  const blog: Blog = { ...stored };
  if (blog.status !== "deleted") blog.status = record.status;
  blog.lastFetchAt = record.at;
  blog.lastError = record.error ?? null;
  blog.nextFetchAt = record.nextFetchAt;
  blog.failureCount = record.failureCount;
  blog.failingSince = record.status === "error" ? (blog.failingSince ?? record.at) : null;
  blog.deadEndSince = record.deadEnd ? (blog.deadEndSince ?? record.at) : null;
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
  return { ...withFeedMetadata(blog, record.metadata), updatedAt: now };
}

/** The schedule fields a fetch sets; the newest post date only ever moves forward. */
export function scheduleFields(
  blog: Pick<Blog, "lastPostAt">,
  schedule: NonNullable<FetchRecord["schedule"]>,
): Partial<Blog> {
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

/** Soft delete: hidden, never re-created by a source (its feed URL key stays taken). */
export function markDeleted(stored: Blog, at: Date, now: Date): Blog {
  return { ...stored, status: "deleted", hidden: true, deletedAt: at, updatedAt: now };
}
