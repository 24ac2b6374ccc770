import { StorageError } from "../types.js";

/** True for MongoDB's duplicate-key error (a unique index refused a write). */
export function isDuplicateKey(error: unknown): boolean {
  return codeOf(error) === 11000;
}

/** The server error code, when there is one. */
export function codeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/**
 * Runs one storage operation and turns driver failures into a StorageError
 * whose message names the operation only: no query text, no stack, no URL.
 */
export async function guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw new StorageError(`MongoDB could not ${operation}`, { cause: error });
  }
}
