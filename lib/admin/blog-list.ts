import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import {
  OWNER_ORIGIN,
  type Blog,
  type BlogHealthQuery,
  type BlogListQuery,
  type BlogStatus,
  type Source,
} from "../storage/types.js";
import { healthQuery, healthState } from "../schedule/health.js";

export const PAGE_SIZE = 50;
const SEARCH_MAX = 200;
/** Status filters offered on the blogs page ("hidden" is a flag, "unlisted" means no origin lists it: neither is a status). */
export const STATUS_FILTERS = ["active", "pending", "error", "gone", "unlisted", "hidden"] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number];
/** Health filters: dormant (no post for dormantAfterDays), failing (errors for a week or more), gone (410), moved (a permanent redirect). */
export const HEALTH_FILTERS = ["dormant", "failing", "gone", "moved"] as const;
type HealthFilter = (typeof HEALTH_FILTERS)[number];

/** The source filter's value for blogs the owner lists (source ids are 24 hex digits). */
export const MANUAL_FILTER = "manual";

/** The blogs page's filters, read from the query string; anything malformed is ignored. */
export interface BlogFilters {
  q: string;
  category: string;
  source: string;
  status: StatusFilter | "";
  health: HealthFilter | "";
  page: number;
}

function queryText(query: Record<string, unknown>, name: string, max = SEARCH_MAX): string {
  const value = query[name];
  return typeof value === "string" ? value.trim().slice(0, max) : "";
}

export function readFilters(query: Record<string, unknown>, sourceIds: Set<string>): BlogFilters {
  const status = queryText(query, "status");
  const health = queryText(query, "health");
  const source = queryText(query, "source");
  const page = Number.parseInt(queryText(query, "page"), 10);
  return {
    q: queryText(query, "q"),
    category: queryText(query, "category"),
    source: sourceIds.has(source) || source === MANUAL_FILTER ? source : "",
    status: (STATUS_FILTERS as readonly string[]).includes(status) ? (status as StatusFilter) : "",
    health: (HEALTH_FILTERS as readonly string[]).includes(health) ? (health as HealthFilter) : "",
    page: Number.isSafeInteger(page) && page > 0 ? page : 1,
  };
}

/** The storage query for the filters; `health` says where dormant and failing begin. */
export function listQuery(filters: BlogFilters, health: BlogHealthQuery): BlogListQuery {
  const condition = filters.health === "gone" ? null : filters.health;
  return {
    visibility: "admin",
    sort: "title",
    limit: PAGE_SIZE,
    offset: (filters.page - 1) * PAGE_SIZE,
    ...(filters.q ? { search: filters.q } : {}),
    ...(filters.category ? { category: filters.category } : {}),
    ...(filters.source ? { origin: { id: filters.source === MANUAL_FILTER ? OWNER_ORIGIN : filters.source } } : {}),
    ...(filters.status ? { status: filters.status as BlogStatus | "hidden" | "unlisted" } : {}),
    // Gone is a status; a status filter chosen too narrows it further (never to nothing silently: both apply).
    ...(filters.health === "gone" && !filters.status ? { status: "gone" as const } : {}),
    ...(condition ? { health: { condition, ...health } } : {}),
  };
}

/** The page's address with the same filters on another page number. */
export function pageHref(base: string, filters: BlogFilters, page: number): string {
  const params = new URLSearchParams();
  for (const name of ["q", "category", "source", "status", "health"] as const)
    if (filters[name]) params.set(name, filters[name]);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
}

/** Options for the host's pagination macro: previous/next and up to seven numbered pages around the current one. */
export function paginationOf(base: string, filters: BlogFilters, total: number) {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (pages === 1) return null;
  const first = Math.max(1, Math.min(filters.page - 3, pages - 6));
  const last = Math.min(pages, first + 6);
  const items = [];
  for (let page = first; page <= last; page++)
    items.push({ text: String(page), href: pageHref(base, filters, page), current: page === filters.page });
  return {
    previous: filters.page > 1 ? { href: pageHref(base, filters, filters.page - 1) } : null,
    next: filters.page < pages ? { href: pageHref(base, filters, filters.page + 1) } : null,
    items,
  };
}

/** Who lists the blog, first first: its sources by name and the owner as "You"; says so when no one does. */
export function originNames(blog: Blog, names: Map<string, string>, __: (key: string) => string): string[] {
  if (blog.origins.length === 0) return [__("blogroll.origins.none")];
  return blog.origins.map((origin) => {
    if (origin.id !== OWNER_ORIGIN) return names.get(origin.id) ?? __("blogroll.origins.deletedSource");
    return __(origin.kind === "microsub" ? "blogroll.origins.ownerMicrosub" : "blogroll.origins.owner");
  });
}

/** A blog added but not fetched yet: the page watches it until its posts arrive. */
export function isAwaitingFetch(blog: Blog): boolean {
  return blog.status === "pending" && blog.lastFetchAt === null && !blog.skipItemFetch;
}

/** GET /blogs: paged list with search and filters (category, source, status). */
export function blogsListController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const __ = response.locals.__;
    const storage = await context.getStorage();
    const [sources, categories] = await Promise.all([storage.sources.list(), storage.blogs.categories()]);
    const filters = readFilters(request.query as Record<string, unknown>, new Set(sources.map((source) => source.id)));
    const health = healthQuery(context.options, new Date());
    const page = await storage.blogs.list(listQuery(filters, health));
    // Each blog's latest post: one small query per row of a 50-row page.
    const latest = await Promise.all(
      page.items.map((blog) =>
        blog.skipItemFetch ? Promise.resolve([]) : storage.items.list({ blogId: blog.id, limit: 1, offset: 0 }),
      ),
    );
    const base = `${context.options.mountPath}/blogs`;
    const sourceNames = new Map(sources.map((source: Source) => [source.id, source.name]));
    const option = (value: string, text: string, current: string) => ({ value, text, selected: value === current });
    response.render("blogroll-blogs", {
      title: __("blogroll.blogs.title"),
      parent: { text: __("blogroll.title"), href: context.options.mountPath },
      actions: [{ href: `${base}/new`, text: __("blogroll.blogs.add"), icon: "createPost" }],
      filters,
      blogs: page.items.map((blog, index) => ({
        blog,
        sources: originNames(blog, sourceNames, __),
        latest: latest[index][0] ?? null,
        health: healthState(blog, health),
      })),
      here: pageHref(base, filters, filters.page),
      pending: page.items.some((blog) => isAwaitingFetch(blog)),
      total: page.total,
      from: page.total === 0 ? 0 : (filters.page - 1) * PAGE_SIZE + 1,
      to: (filters.page - 1) * PAGE_SIZE + page.items.length,
      filtered: Boolean(filters.q || filters.category || filters.source || filters.status || filters.health),
      categoryItems: [
        option("", __("blogroll.blogs.filters.anyCategory"), filters.category),
        ...categories.map((entry) => option(entry.name, entry.name, filters.category)),
      ],
      sourceItems: [
        option("", __("blogroll.blogs.filters.anySource"), filters.source),
        ...sources
          .filter((source) => source.type !== "manual")
          .map((source) => option(source.id, source.name, filters.source)),
        option(MANUAL_FILTER, __("blogroll.origins.owner"), filters.source),
      ],
      statusItems: [
        option("", __("blogroll.blogs.filters.anyStatus"), filters.status),
        ...STATUS_FILTERS.map((status) => option(status, __(`blogroll.blogs.statuses.${status}`), filters.status)),
      ],
      healthItems: [
        option("", __("blogroll.blogs.healthFilters.any"), filters.health),
        ...HEALTH_FILTERS.map((health) => option(health, __(`blogroll.blogs.healthFilters.${health}`), filters.health)),
      ],
      pageLinks: paginationOf(base, filters, page.total),
    });
  };
}
