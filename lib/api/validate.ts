/**
 * Query validation for the public API. Query values are text; anything else
 * (a repeated parameter arrives as an array, a bracketed one may arrive as an
 * object) is rejected here, so no operator object can ever reach a query.
 */

export class QueryError extends Error {
  constructor(readonly body: { error: string }) {
    super(body.error);
    this.name = "QueryError";
  }
}

/** Upper bounds of `limit`; larger values are clamped (documented in the README). */
export const MAX_LIMIT = { blogs: 1000, items: 200 } as const;

/**
 * Largest `offset` of `/api/items`: merging Microsub's items means reading
 * `offset + limit + 1` rows from both stores, so the offset bounds the work
 * of one anonymous request. Deeper pages are `400 Invalid offset`.
 */
export const MAX_ITEMS_OFFSET = 10_000;

type Query = Record<string, unknown>;

/** An optional text parameter: absent or empty → undefined; not a single string → 400. */
export function optionalText(query: Query, name: string, maxLength = 1000): string | undefined {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string" || value.length > maxLength) throw new QueryError({ error: `Invalid ${name}` });
  return value;
}

/**
 * A non-negative integer parameter given as decimal digits, with a default;
 * values above `max` are clamped to it, or refused when `refuseAbove` is set.
 */
export function integerParam(
  query: Query,
  name: "limit" | "offset",
  fallback: number,
  max?: number,
  refuseAbove = false,
): number {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) throw new QueryError({ error: `Invalid ${name}` });
  const number = Number(value);
  if (!Number.isSafeInteger(number) || (refuseAbove && max !== undefined && number > max))
    throw new QueryError({ error: `Invalid ${name}` });
  return max === undefined ? number : Math.min(number, max);
}
