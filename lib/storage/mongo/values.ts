import { ObjectId } from "mongodb";
import { isValidId } from "../id.js";
import { StorageError, type BlogStatus } from "../types.js";

/*
 * Values that reach a MongoDB filter are built here, from plain strings,
 * numbers and Dates only. A caller's object (`{ $ne: null }` from a parsed
 * query string) is refused instead of being passed on: this is the NoSQL
 * injection defence of the adapter.
 */

export const BLOG_STATUSES: readonly BlogStatus[] = ["pending", "active", "error", "gone", "inactive", "deleted"];

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
  return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
}

/** The ObjectId for a port id, or null for anything that is not one. */
export function objectIdOf(id: unknown): ObjectId | null {
  return isValidId(id) ? new ObjectId(id) : null;
}

/** ObjectIds for the valid ids of a list; the rest are dropped. */
export function objectIdsOf(ids: unknown): ObjectId[] {
  if (!Array.isArray(ids)) return [];
  return ids.map(objectIdOf).filter((id): id is ObjectId => id !== null);
}

/**
 * How a reference to another record (source, Microsub feed) is stored: an
 * ObjectId when it is an id, the text otherwise (the port allows any string).
 */
export function refValue(id: unknown): ObjectId | string | null {
  if (typeof id !== "string" || id === "") return null;
  return objectIdOf(id) ?? id;
}

/**
 * Both forms a stored reference may take (ObjectId, or text written by older
 * code), for `$in` filters.
 */
export function refCandidates(id: string): Array<ObjectId | string> {
  const objectId = objectIdOf(id);
  return objectId ? [objectId, id] : [id];
}

/** A stored reference (ObjectId or text) as the port's hex string. */
export function refHex(value: unknown): string | null {
  if (value instanceof ObjectId) return value.toHexString();
  if (typeof value === "string" && value !== "") return value;
  return null;
}
