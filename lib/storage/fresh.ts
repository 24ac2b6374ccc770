import type { Blog, Source } from "./types.js";

/*
 * The state a new record starts in, shared by both adapters (and the import
 * preview's draft source) so a new blog or source is the same everywhere.
 */

type FreshSourceState = Pick<Source, "status" | "lastError" | "lastSyncAt" | "lastImport" | "etag" | "lastModified">;
type FreshFetchState = Pick<
  Blog,
  | "lastFetchAt"
  | "lastItemAt"
  | "lastError"
  | "nextFetchAt"
  | "failureCount"
  | "failingSince"
  | "deadEndSince"
  | "recentPosts"
  | "lastPostAt"
  | "fetchInterval"
  | "fetchReason"
  | "waitUntil"
  | "hintBudgetAt"
  | "movedFrom"
  | "movedAt"
  | "etag"
  | "lastModified"
  | "iconUrl"
  | "ownerEdited"
>;

/** A source never synced: nothing imported, no validators. */
export function freshSourceState(): FreshSourceState {
  return { status: "pending", lastError: null, lastSyncAt: null, lastImport: null, etag: null, lastModified: null };
}

/** A blog never fetched, with nothing edited by its owner yet. */
export function freshFetchState(): FreshFetchState {
  return {
    lastFetchAt: null,
    lastItemAt: null,
    lastError: null,
    nextFetchAt: null,
    failureCount: 0,
    failingSince: null,
    deadEndSince: null,
    recentPosts: [],
    lastPostAt: null,
    fetchInterval: null,
    fetchReason: null,
    waitUntil: null,
    hintBudgetAt: null,
    movedFrom: null,
    movedAt: null,
    etag: null,
    lastModified: null,
    iconUrl: null,
    ownerEdited: [],
  };
}
