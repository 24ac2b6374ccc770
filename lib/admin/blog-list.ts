import { blogOriginLabel } from "./view-helpers.js";
import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { BlogListQuery, BlogStatus, Source } from "../storage/types.js";

export const PAGE_SIZE = 50;
const SEARCH_MAX = 200;
/** Status filters offered on the blogs page ("hidden" is a flag, not a status). */
export const STATUS_FILTERS = ["active", "pending", "error", "gone", "inactive", "hidden"] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number];

/** The blogs page's filters, read from the query string; anything malformed is ignored. */
export interface BlogFilters {
  q: string;
  category: string;
  source: string;
  status: StatusFilter | "";
  page: number;
}

function queryText(query: Record<string, unknown>, name: string, max = SEARCH_MAX): string {
  const value = query[name];
  return typeof value === "string" ? value.trim().slice(0, max) : "";
}

export function readFilters(query: Record<string, unknown>, sourceIds: Set<string>): BlogFilters {
  const status = queryText(query, "status");
  const source = queryText(query, "source");
  const page = Number.parseInt(queryText(query, "page"), 10);
  return {
    q: queryText(query, "q"),
    category: queryText(query, "category"),
    source: sourceIds.has(source) ? source : "",
    status: (STATUS_FILTERS as readonly string[]).includes(status) ? (status as StatusFilter) : "",
    page: Number.isSafeInteger(page) && page > 0 ? page : 1,
  };
}

/** The storage query for the filters. */
export function listQuery(filters: BlogFilters): BlogListQuery {
  return {
    visibility: "admin",
    sort: "title",
    limit: PAGE_SIZE,
    offset: (filters.page - 1) * PAGE_SIZE,
    ...(filters.q ? { search: filters.q } : {}),
    ...(filters.category ? { category: filters.category } : {}),
    ...(filters.source ? { sourceId: filters.source } : {}),
    ...(filters.status ? { status: filters.status as BlogStatus | "hidden" } : {}),
  };
}

/** The page's address with the same filters on another page number. */
export function pageHref(base: string, filters: BlogFilters, page: number): string {
  const params = new URLSearchParams();
  for (const name of ["q", "category", "source", "status"] as const) if (filters[name]) params.set(name, filters[name]);
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
  for (let page = first; page <= last; page++) items.push({ text: String(page), href: pageHref(base, filters, page), current: page === filters.page });
  return {
    previous: filters.page > 1 ? { href: pageHref(base, filters, filters.page - 1) } : null,
    next: filters.page < pages ? { href: pageHref(base, filters, filters.page + 1) } : null,
    items,
  };
}

/** GET /blogs: paged list with search and filters (category, source, status). */
export function blogsListController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const __ = response.locals.__;
    const storage = await context.getStorage();
    const [sources, categories] = await Promise.all([storage.sources.list(), storage.blogs.categories()]);
    const filters = readFilters(request.query as Record<string, unknown>, new Set(sources.map((source) => source.id)));
    const page = await storage.blogs.list(listQuery(filters));
    const base = `${context.options.mountPath}/blogs`;
    const sourceNames = new Map(sources.map((source: Source) => [source.id, source.name]));
    const option = (value: string, text: string, current: string) => ({ value, text, selected: value === current });
    response.render("blogroll-blogs", {
      title: __("blogroll.blogs.title"),
      parent: { text: __("blogroll.title"), href: context.options.mountPath },
      actions: [{ href: `${base}/new`, text: __("blogroll.blogs.add"), icon: "createPost" }],
      filters,
      blogs: page.items.map((blog) => ({ blog, sourceName: (blog.sourceId ? sourceNames.get(blog.sourceId) : null) ?? blogOriginLabel(blog, __) })),
      total: page.total,
      from: page.total === 0 ? 0 : (filters.page - 1) * PAGE_SIZE + 1,
      to: (filters.page - 1) * PAGE_SIZE + page.items.length,
      filtered: Boolean(filters.q || filters.category || filters.source || filters.status),
      categoryItems: [option("", __("blogroll.blogs.filters.anyCategory"), filters.category), ...categories.map((entry) => option(entry.name, entry.name, filters.category))],
      sourceItems: [option("", __("blogroll.blogs.filters.anySource"), filters.source), ...sources.map((source) => option(source.id, source.name, filters.source))],
      statusItems: [option("", __("blogroll.blogs.filters.anyStatus"), filters.status), ...STATUS_FILTERS.map((status) => option(status, __(`blogroll.blogs.statuses.${status}`), filters.status))],
      pageLinks: paginationOf(base, filters, page.total),
    });
  };
}
