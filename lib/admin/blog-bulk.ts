import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { healthQuery } from "../schedule/health.js";
import type { Blog, BlogListQuery, BlogSelection, Page, Storage } from "../storage/types.js";
import { listQuery, readFilters } from "./blog-list.js";
import { redirectWithNotice } from "./notices.js";

/** Blogs one bulk action may name by id (a page of the list holds 50; "all that match" has no such cap). */
const MAX_BULK = 500;
const HEX24 = /^[0-9a-f]{24}$/;
/** Blogs the delete confirmation names; the rest are counted. */
const CONFIRM_NAMED = 50;

/** The selected blog ids of a bulk form: `ids` once or many times, well-formed ids only, at most MAX_BULK. */
export function selectedIds(body: Record<string, unknown> | undefined): string[] {
  const raw = body?.ids;
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return [...new Set(values.filter((value): value is string => typeof value === "string" && HEX24.test(value)))].slice(
    0,
    MAX_BULK,
  );
}

/** The admin list's query for the filters of `back` (a blogs list address). */
async function backQuery(context: BlogrollContext, storage: Storage, back: string): Promise<BlogListQuery> {
  const sources = await storage.sources.list();
  const params = Object.fromEntries(new URL(back, "http://admin.invalid").searchParams);
  return listQuery(
    readFilters(params, new Set(sources.map((source) => source.id))),
    healthQuery(context.options, new Date()),
  );
}

/**
 * POST /blogs/bulk: the blogs list's actions on the ticked blogs, or with
 * `all` on every blog that matches the list's filters (those of `back`, a
 * blogs list address, which is also where the owner returns). `hide` hides
 * them at once (it is undone on each blog's page); `delete` asks for
 * confirmation first, then soft-deletes them like the blog page's Delete.
 * Each is one storage write however many blogs (the filters resolved by
 * storage, not here); deleted and unknown blogs are skipped.
 */
export function bulkBlogsController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const base = `${context.options.mountPath}/blogs`;
    const body = request.body as Record<string, unknown> | undefined;
    const back = typeof body?.back === "string" && body.back.startsWith(`${base}?`) ? body.back : base;
    const all = body?.all === "1";
    const storage = await context.getStorage();
    // "All that match": the filters themselves go to storage, which acts on them in one statement.
    const query = all ? await backQuery(context, storage, back) : null;
    const selection: BlogSelection = query ? { matching: query } : { ids: selectedIds(body) };
    if ("ids" in selection && selection.ids.length === 0) return redirectWithNotice(response, back, "bulkNone");
    if (body?.action === "hide") {
      const hidden = await storage.blogs.hideMany(selection);
      for (const id of hidden) context.push.release(id);
      return redirectWithNotice(response, back, "blogsHidden");
    }
    if (body?.action === "delete" && body.confirm === "yes") {
      const deleted = await storage.blogs.softDeleteMany(selection);
      for (const id of deleted) context.push.release(id);
      return redirectWithNotice(response, base, "blogsDeleted");
    }
    if (body?.action === "delete") {
      const named = query
        ? await storage.blogs.list({ ...query, limit: CONFIRM_NAMED, offset: 0 })
        : await namedById(storage, selectedIds(body));
      if (named.items.length === 0) return redirectWithNotice(response, back, "bulkNone");
      return renderConfirm(response, context, { blogs: named.items, total: named.total, all, back });
    }
    redirectWithNotice(response, back, "bulkNone");
  };
}

/** The ticked blogs that are not deleted, all named. */
async function namedById(storage: Storage, ids: string[]): Promise<Page<Blog>> {
  const blogs = (await storage.blogs.getMany(ids)).filter((blog) => blog.status !== "deleted");
  return { items: blogs, total: blogs.length };
}

function renderConfirm(
  response: Response,
  context: BlogrollContext,
  selection: { blogs: Blog[]; total: number; all: boolean; back: string },
): void {
  const __ = response.locals.__;
  const plural = response.locals.plural as (key: string, count: number) => string;
  response.render("blogroll-blogs-bulk-delete", {
    title: plural("blogroll.blogs.bulk.deleteTitle", selection.total),
    parent: { text: __("blogroll.blogs.title"), href: `${context.options.mountPath}/blogs` },
    ...selection,
    more: selection.total - selection.blogs.length,
  });
}
