/**
 * Which index MongoDB could serve a query with, by the planner's main rule:
 * an index is used when its first field is bounded by the filter (an
 * equality, `$in`, a range, `$type`, `$exists`, a prefix regular expression,
 * or `$ne`/`$nin`, which the server turns into the intervals around the
 * excluded values); a query sorted to a limit needs the index's fields to
 * give its order (a walk that stops at the limit). A `$or` needs an index for
 * each branch. `$not` and case-insensitive or unanchored regular expressions
 * bound nothing. A partial index serves only queries that imply its filter.
 * Not the server's planner (no MongoDB runs here): a check that no query the
 * adapter makes is left without an index to use (a collection scan).
 */
import type { Document } from "mongodb";
import type { LoggedQuery } from "./fake-mongo.js";

export interface IndexSpec {
  name: string;
  key: Record<string, 1 | -1>;
  partialFilterExpression?: Document;
}

type Bound = "eq" | "range" | "none";

const isPlainObject = (value: unknown): value is Document =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  !("_bsontype" in (value as object));

/** How a filter's value for one field bounds an index on that field. */
function boundOf(value: unknown): Bound {
  if (value instanceof RegExp) return value.source.startsWith("^") && !value.flags.includes("i") ? "range" : "none";
  if (!isPlainObject(value)) return "eq";
  const operators = Object.keys(value);
  if (!operators.some((key) => key.startsWith("$"))) return "eq";
  if ("$eq" in value || "$in" in value) return "eq";
  if ("$exists" in value) return value.$exists === false ? "eq" : "range";
  if ("$regex" in value) {
    const source = String(value.$regex);
    return source.startsWith("^") && !String(value.$options ?? "").includes("i") ? "range" : "none";
  }
  if (["$gt", "$gte", "$lt", "$lte", "$type", "$ne", "$nin"].some((key) => key in value)) return "range";
  return "none";
}

/** The bounds a filter puts on its fields, top-level `$and` branches merged (a `$or` is planned branch by branch). */
function boundsOf(filter: Document): Map<string, Bound> {
  const bounds = new Map<string, Bound>();
  const add = (field: string, bound: Bound) => {
    const known = bounds.get(field);
    if (!known || known === "none" || (known === "range" && bound === "eq")) bounds.set(field, bound);
  };
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const branch of value as Document[]) for (const [field, bound] of boundsOf(branch)) add(field, bound);
    } else if (!key.startsWith("$")) add(key, boundOf(value));
  }
  return bounds;
}

/** The `$or` branches of a filter (top level or in a top-level `$and`), each with the rest of the filter. */
function orBranches(filter: Document): Document[] | null {
  const rest: Document = {};
  let branches: Document[] | null = null;
  const and: Document[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$or" && Array.isArray(value) && !branches) branches = value as Document[];
    else if (key === "$and" && Array.isArray(value)) {
      for (const part of value as Document[]) {
        if (!branches && Array.isArray(part.$or) && Object.keys(part).length === 1) branches = part.$or as Document[];
        else and.push(part);
      }
    } else rest[key] = value;
  }
  if (!branches) return null;
  return branches.map((branch) => ({ ...rest, $and: [...and, branch] }));
}

/** Whether the filter implies a partial index's filter (each of its fields bound the same way or by an equality). */
function implies(filter: Document, partial: Document | undefined): boolean {
  if (!partial) return true;
  const bounds = boundsOf(filter);
  return Object.entries(partial).every(([field, condition]) => {
    const value = (filter[field] as unknown) ?? null;
    if (JSON.stringify(value) === JSON.stringify(condition)) return true;
    // A value other than null for the field implies { $exists: true }.
    return (
      isPlainObject(condition) &&
      condition.$exists === true &&
      bounds.get(field) === "eq" &&
      value !== null &&
      !(isPlainObject(value) && "$exists" in value)
    );
  });
}

/** Whether an index's fields, after those bound by equality, give the sort's order (or its reverse). */
function sortsBy(index: IndexSpec, bounds: Map<string, Bound>, sort: Record<string, 1 | -1>): boolean {
  const fields = Object.entries(index.key);
  let start = 0;
  while (start < fields.length && bounds.get(fields[start][0]) === "eq" && !(fields[start][0] in sort)) start++;
  const wanted = Object.entries(sort);
  if (wanted.length === 0 || fields.length - start < wanted.length) return false;
  const same = wanted.every(([field, order], i) => fields[start + i][0] === field && fields[start + i][1] === order);
  const reverse = wanted.every(
    ([field, order], i) => fields[start + i][0] === field && fields[start + i][1] === -order,
  );
  return same || reverse;
}

/**
 * The index a query would use, or null for a collection scan. A query that
 * sorts to a limit needs an index giving that order, unless an equality
 * bounds its first field (then only the matching few are sorted); one that
 * sorts what it computed reads everything it matched.
 */
export function indexFor(
  query: Pick<LoggedQuery, "filter" | "sort" | "limit" | "sortsInMemory">,
  indexes: IndexSpec[],
): string | null {
  if (query.sortsInMemory) return null;
  if (query.sort && query.limit) {
    const bounds = boundsOf(query.filter);
    for (const index of indexes) {
      if (implies(query.filter, index.partialFilterExpression) && sortsBy(index, bounds, query.sort))
        return `${index.name} (in order, to the limit)`;
    }
    const selective = indexes.find(
      (index) => implies(query.filter, index.partialFilterExpression) && bounds.get(Object.keys(index.key)[0]) === "eq",
    );
    return selective ? `${selective.name} (the matching few sorted)` : null;
  }
  const branches = orBranches(query.filter);
  if (branches) {
    const each = branches.map((branch) => indexFor({ filter: branch }, indexes));
    if (each.every((name) => name !== null)) return [...new Set(each)].join(" | ");
    // A $or without an index for each branch may still be served by what the rest of the filter bounds.
  }
  const bounds = boundsOf(query.filter);
  for (const index of indexes) {
    if (!implies(query.filter, index.partialFilterExpression)) continue;
    const [first] = Object.keys(index.key);
    const bound = bounds.get(first);
    if (bound === "eq" || bound === "range") return index.name;
  }
  return null;
}
