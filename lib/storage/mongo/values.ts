import { StorageError, type BlogStatus } from "../types.js";

/*
 * Values that reach a MongoDB filter are built here, from plain strings,
 * numbers and Dates only. A caller's object (`{ $ne: null }` from a parsed
 * query string) is refused instead of being passed on: this is the NoSQL
 * injection defence of the adapter.
 */

export const BLOG_STATUSES: readonly BlogStatus[] = ["pending", "active", "error", "gone", "deleted"];

/** The string a filter expects, or a StorageError when the caller gave anything else. */
export function textValue(value: unknown, what: string): string {
  if (typeof value !== "string") throw new StorageError(`Invalid ${what}: text expected`);
  return value;
}

/** Text or null (null/undefined both mean "none"); anything else is refused. */
export function optionalTextValue(value: unknown, what: string): string | null {
  return value === null || value === undefined ? null : textValue(value, what);
}

/** A known blog status, or a StorageError. */
export function blogStatusValue(value: unknown): BlogStatus {
  if (typeof value === "string" && (BLOG_STATUSES as readonly string[]).includes(value)) return value as BlogStatus;
  throw new StorageError("Invalid blog status");
}

/** A whole number >= 0 (limit, offset, keep); anything else counts as 0. */
export function countValue(value: unknown): number {
  const number = typeof value === "number" ? value : Number.NaN;
  return Number.isFinite(number) && number > 0 ? Math.floor(number) : 0;
}

/** A real, valid Date or a StorageError. */
export function dateValue(value: unknown, what: string): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return new Date(value.getTime());
  throw new StorageError(`Invalid ${what}: date expected`);
}

/** Escapes regular-expression metacharacters so user text matches literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
