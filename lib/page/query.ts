import { QueryError, optionalText } from "../api/validate.js";

/** How the blogroll page, its fragment and its JSON are asked for (the same parameters for all three). */
export interface PageQuery {
  /** Only this category. */
  category: string | undefined;
  /** `category`: one list per category under its heading; `none`: one list. */
  group: "category" | "none";
  /** `title`: natural title order; `recent`: the blog with the newest post first. Pinned blogs lead either way. */
  sort: "title" | "recent";
  /** Latest posts shown per blog, 0 to MAX_LATEST. */
  latest: number;
  /** Leave out blogs without a post in this many days; null keeps every blog. */
  activeWithin: number | null;
  /** Level of the category headings in the fragment (the page's are h2 under its h1). */
  headingLevel: number;
  /** The id of the last live event the client saw: the answer includes that change (null: any kept answer will do). */
  lastEventId: number | null;
}

export const MAX_LATEST = 5;
const DEFAULT_LATEST = 1;
/** A century: anything longer keeps every blog anyway. */
const MAX_ACTIVE_WITHIN = 36_500;

/** Digits only, as the API reads `limit`; anything else is `400 {"error":"Invalid <name>"}`. */
function digits(query: Record<string, unknown>, name: string): number | undefined {
  const value = optionalText(query, name, 15);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new QueryError({ error: `Invalid ${name}` });
  return Number(value);
}

function oneOf<T extends string>(query: Record<string, unknown>, name: string, values: readonly T[]): T {
  const value = optionalText(query, name);
  if (value === undefined) return values[0];
  if (!(values as readonly string[]).includes(value)) throw new QueryError({ error: `Invalid ${name}` });
  return value as T;
}

/**
 * Reads the page's query as the API reads its own: unknown values and
 * repeated parameters are `400 {"error":"Invalid <name>"}`, numbers above
 * their maximum are clamped (`latest` to 5, `activeWithin` to a century).
 */
export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const latest = digits(query, "latest");
  const activeWithin = digits(query, "activeWithin");
  if (activeWithin === 0) throw new QueryError({ error: "Invalid activeWithin" });
  const headingLevel = digits(query, "headingLevel");
  if (headingLevel !== undefined && (headingLevel < 1 || headingLevel > 6))
    throw new QueryError({ error: "Invalid headingLevel" });
  return {
    category: optionalText(query, "category"),
    group: oneOf(query, "group", ["category", "none"] as const),
    sort: oneOf(query, "sort", ["title", "recent"] as const),
    latest: Math.min(latest ?? DEFAULT_LATEST, MAX_LATEST),
    activeWithin: activeWithin === undefined ? null : Math.min(activeWithin, MAX_ACTIVE_WITHIN),
    headingLevel: headingLevel ?? 2,
    lastEventId: digits(query, "lastEventId") ?? null,
  };
}

/** What the data depends on (not the heading level, which only the markup uses). */
export function dataKey(query: PageQuery): string {
  return JSON.stringify([query.category ?? null, query.group, query.sort, query.latest, query.activeWithin]);
}

/** The query written back as a search string, defaults left out: the JSON's links to the page and fragment of the same blogs. */
export function pageSearch(query: PageQuery): string {
  const search = new URLSearchParams();
  if (query.category !== undefined) search.set("category", query.category);
  if (query.group !== "category") search.set("group", query.group);
  if (query.sort !== "title") search.set("sort", query.sort);
  if (query.latest !== DEFAULT_LATEST) search.set("latest", String(query.latest));
  if (query.activeWithin !== null) search.set("activeWithin", String(query.activeWithin));
  const text = search.toString();
  return text ? `?${text}` : "";
}
