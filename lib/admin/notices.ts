import type { Response } from "express";

/**
 * Messages shown after a redirect, by key. Only these keys are accepted from
 * the query string, so a crafted link cannot put arbitrary text in a banner.
 */
const NOTICES = {
  syncStarted: "success",
  itemsCleared: "success",
  sourceCreated: "success",
  sourceSaved: "success",
  sourceImportFailed: "error",
  sourceSynced: "success",
  sourceSyncFailed: "error",
  sourceEnabled: "success",
  sourceDisabled: "success",
  sourceDeleted: "success",
  blogAdded: "success",
  blogExists: "success",
  blogSaved: "success",
  blogRefreshed: "success",
  blogRefreshFailed: "error",
  blogRefreshSkipped: "error",
  blogDeleted: "success",
  blogsHidden: "success",
  blogsDeleted: "success",
  bulkNone: "error",
  suggestionAdded: "success",
  suggestionDismissed: "success",
  suggestionGone: "error",
} as const satisfies Record<string, "success" | "error">;

export type NoticeKey = keyof typeof NOTICES;

/** Every notice key, for the locale completeness test. */
export const NOTICE_KEYS = Object.keys(NOTICES) as NoticeKey[];

/** The notice named by `?notice=` if it is a known one. */
export function noticeFromQuery(query: unknown): { key: NoticeKey; type: "success" | "error" } | null {
  const key = query && typeof query === "object" ? (query as Record<string, unknown>).notice : undefined;
  if (typeof key !== "string" || !Object.hasOwn(NOTICES, key)) return null;
  return { key: key as NoticeKey, type: NOTICES[key as NoticeKey] };
}

/** Redirects (303, so the browser GETs) to `path` with a notice for the next page. */
export function redirectWithNotice(response: Response, path: string, key: NoticeKey): void {
  const separator = path.includes("?") ? "&" : "?";
  response.redirect(303, `${path}${separator}notice=${key}`);
}
