import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { Blog } from "../storage/types.js";
import { redirectWithNotice } from "./notices.js";

/** Blogs one bulk action may name (a page of the list holds 50). */
const MAX_BULK = 500;
const HEX24 = /^[0-9a-f]{24}$/;

/** The selected blog ids of a bulk form: `ids` once or many times, well-formed ids only, at most MAX_BULK. */
export function selectedIds(body: Record<string, unknown> | undefined): string[] {
  const raw = body?.ids;
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return [...new Set(values.filter((value): value is string => typeof value === "string" && HEX24.test(value)))].slice(
    0,
    MAX_BULK,
  );
}

/**
 * POST /blogs/bulk: the blogs list's actions on the ticked blogs. `hide`
 * hides them at once (it is undone on each blog's page); `delete` asks for
 * confirmation first, then soft-deletes them like the blog page's Delete.
 * Deleted and unknown blogs are skipped. `back` (a blogs list address)
 * is where the owner returns.
 */
export function bulkBlogsController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const base = `${context.options.mountPath}/blogs`;
    const body = request.body as Record<string, unknown> | undefined;
    const back = typeof body?.back === "string" && body.back.startsWith(`${base}?`) ? body.back : base;
    const storage = await context.getStorage();
    const blogs = (await storage.blogs.getMany(selectedIds(body))).filter((blog) => blog.status !== "deleted");
    if (blogs.length === 0) return redirectWithNotice(response, back, "bulkNone");
    if (body?.action === "hide") {
      for (const blog of blogs) if (!blog.hidden) await storage.blogs.edit(blog.id, { hidden: true });
      return redirectWithNotice(response, back, "blogsHidden");
    }
    if (body?.action === "delete" && body.confirm === "yes") {
      for (const blog of blogs) await storage.blogs.softDelete(blog.id);
      return redirectWithNotice(response, base, "blogsDeleted");
    }
    if (body?.action === "delete") return renderConfirm(response, context, blogs, back);
    redirectWithNotice(response, back, "bulkNone");
  };
}

function renderConfirm(response: Response, context: BlogrollContext, blogs: Blog[], back: string): void {
  const __ = response.locals.__;
  const plural = response.locals.plural as (key: string, count: number) => string;
  response.render("blogroll-blogs-bulk-delete", {
    title: plural("blogroll.blogs.bulk.deleteTitle", blogs.length),
    parent: { text: __("blogroll.blogs.title"), href: `${context.options.mountPath}/blogs` },
    blogs,
    back,
  });
}
