import { isAwaitingFetch, originNames } from "./blog-list.js";
import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { Blog, BlogEdit, Item } from "../storage/types.js";
import { checkboxField, idParam, notFound, parseTags, renderForm, textField, type FormErrors } from "./forms.js";
import { redirectWithNotice } from "./notices.js";
import { blogPushLines } from "./blog-push.js";
import { healthView } from "./blog-health.js";
import { blogrollOfBlog } from "../network/suggestions.js";
import { ownSiteOf } from "./suggestions.js";
import { LIMITS } from "./blog-limits.js";
import {
  ownerFieldChanges,
  ownerFieldValuesOf,
  readOwnerFields,
  relationshipGroups,
  validateOwnerFields,
  type OwnerFieldValues,
} from "./blog-owner-fields.js";

const RECENT_ITEMS = 20;

/** The edit form's fields: the blog's own, and what the owner says about it publicly. */
export interface BlogFormValues extends OwnerFieldValues {
  title: string;
  category: string;
  tags: string;
  pinned: boolean;
  hidden: boolean;
  notes: string;
}

export function valuesOfBlog(blog: Blog): BlogFormValues {
  return {
    title: blog.title,
    category: blog.category ?? "",
    tags: blog.tags.join(", "),
    pinned: blog.pinned,
    hidden: blog.hidden,
    notes: blog.notes ?? "",
    ...ownerFieldValuesOf(blog),
  };
}

export function readBlogForm(body: Record<string, unknown> | undefined): BlogFormValues {
  return {
    title: textField(body, "title"),
    category: textField(body, "category"),
    tags: textField(body, "tags"),
    pinned: checkboxField(body, "pinned"),
    hidden: checkboxField(body, "hidden"),
    notes: typeof body?.notes === "string" ? body.notes.trim() : "",
    ...readOwnerFields(body),
  };
}

/** Prefix of the hidden fields that hold what the form showed when it was loaded. */
const SHOWN = "shown_";

/** The fields a fetch or a source may change while the form is open: what the form showed of them. */
export type ShownValues = Pick<BlogFormValues, "title" | "category" | "tags" | "pinned" | "hidden" | "notes">;

/**
 * What the form showed when it was loaded (its `shown_*` fields), or null
 * when a request carries none (a script): the owner changed a field when what
 * it sends differs from what it was shown, not from what is stored now (a
 * fetch may have landed meanwhile).
 */
export function readShownValues(body: Record<string, unknown> | undefined): ShownValues | null {
  if (typeof body?.[`${SHOWN}title`] !== "string") return null;
  const shown = (name: keyof ShownValues) => body[`${SHOWN}${name}`];
  return {
    title: textField(body, `${SHOWN}title`),
    category: textField(body, `${SHOWN}category`),
    tags: textField(body, `${SHOWN}tags`),
    pinned: shown("pinned") === "true",
    hidden: shown("hidden") === "true",
    notes: typeof shown("notes") === "string" ? (shown("notes") as string).trim() : "",
  };
}

type Translate = (key: string, vars?: Record<string, unknown>) => string;

export function validateBlogForm(values: BlogFormValues, __: Translate): FormErrors {
  const errors: FormErrors = {};
  if (!values.title) errors.title = __("blogroll.blogs.errors.titleRequired");
  else if (values.title.length > LIMITS.title)
    errors.title = __("blogroll.blogs.errors.tooLong", { max: LIMITS.title });
  if (values.category.length > LIMITS.category)
    errors.category = __("blogroll.blogs.errors.tooLong", { max: LIMITS.category });
  const tags = parseTags(values.tags);
  if (tags.length > LIMITS.tags) errors.tags = __("blogroll.blogs.errors.tooManyTags", { max: LIMITS.tags });
  else if (tags.some((tag) => tag.length > LIMITS.tag))
    errors.tags = __("blogroll.blogs.errors.tagTooLong", { max: LIMITS.tag });
  Object.assign(errors, validateOwnerFields(values, __));
  if (values.notes.length > LIMITS.notes) errors.notes = __("blogroll.blogs.errors.tooLong", { max: LIMITS.notes });
  return errors;
}

/**
 * Only the fields the owner changed: an edit marks fields owner-edited (sync
 * stops updating them), so untouched ones stay sync-owned. A field is
 * changed when it differs from what the form showed (`shown`), or, for a
 * request without that, from the stored blog: a form loaded before the first
 * fetch and saved after it never turns the placeholder it showed into the
 * owner's title.
 */
export function changedFields(blog: Blog, values: ShownValues, shown: ShownValues | null = null): BlogEdit {
  const before = shown ?? valuesOfBlog(blog);
  const edit: BlogEdit = {};
  const tags = parseTags(values.tags);
  if (values.title !== before.title) edit.title = values.title;
  if (values.category !== before.category) edit.category = values.category || null;
  if (tags.join("\n") !== parseTags(before.tags).join("\n")) edit.tags = tags;
  if (values.pinned !== before.pinned) edit.pinned = values.pinned;
  if (values.hidden !== before.hidden) edit.hidden = values.hidden;
  if (values.notes !== before.notes) edit.notes = values.notes || null;
  return edit;
}

/** The `:id` blog unless it does not exist or was deleted. */
export async function liveBlog(context: BlogrollContext, request: Request): Promise<Blog | null> {
  const id = idParam(request.params.id);
  if (!id) return null;
  const blog = await (await context.getStorage()).blogs.get(id);
  return blog && blog.status !== "deleted" ? blog : null;
}

/** A blog's newest items: from Microsub for blogs mirrored from it, else our own. */
async function recentItems(context: BlogrollContext, blog: Blog): Promise<Item[]> {
  if (blog.skipItemFetch && blog.microsubFeedId) {
    const microsub = context.getMicrosub();
    return microsub ? microsub.listItems({ feedIds: [blog.microsubFeedId], limit: RECENT_ITEMS, offset: 0 }) : [];
  }
  return (await context.getStorage()).items.list({ blogId: blog.id, limit: RECENT_ITEMS, offset: 0 });
}

async function renderBlogPage(
  context: BlogrollContext,
  response: Response,
  blog: Blog,
  values: BlogFormValues,
  shown: ShownValues,
  errors: FormErrors = {},
) {
  const __ = response.locals.__;
  const storage = await context.getStorage();
  const [items, categories, sources, pushLines, blogroll] = await Promise.all([
    recentItems(context, blog),
    storage.blogs.categories(),
    storage.sources.list(),
    blogPushLines(context, response, blog),
    blogrollOfBlog(storage, blog.id, ownSiteOf(context)),
  ]);
  const listedBy = originNames(blog, new Map(sources.map((source) => [source.id, source.name])), __);
  renderForm(
    response,
    "blogroll-blog",
    {
      title: blog.title,
      parent: { text: __("blogroll.blogs.title"), href: `${context.options.mountPath}/blogs` },
      blog,
      values,
      shown,
      items,
      categories: categories.map((entry) => entry.name),
      listedBy,
      pushLines,
      health: healthView(blog, context.options, new Date()),
      pending: isAwaitingFetch(blog),
      ownBlogroll: blogroll,
      relationshipGroups: relationshipGroups(values, __, errors.relationship),
      limits: LIMITS,
    },
    errors,
  );
}

/** GET /blogs/:id: details, last error, recent items and the edit form. */
export function blogController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    await renderBlogPage(context, response, blog, valuesOfBlog(blog), valuesOfBlog(blog));
  };
}

/** POST /blogs/:id: saves the owner's edits (title, category, tags, relationship, public note, fediverse handle, pinned, hidden, notes). */
export function updateBlogController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    const values = readBlogForm(request.body);
    const shown = readShownValues(request.body);
    const errors = validateBlogForm(values, response.locals.__);
    // Shown again with the values typed; what the form first showed stays the reference.
    const shownBefore = shown ?? valuesOfBlog(blog);
    if (Object.keys(errors).length > 0) return renderBlogPage(context, response, blog, values, shownBefore, errors);
    // A browser that goes away stops the handle's lookup.
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    const owner = await ownerFieldChanges(blog, values, context.options, response.locals.__, abort.signal);
    if (!owner.ok) return renderBlogPage(context, response, blog, values, shownBefore, owner.errors);
    const edit = { ...changedFields(blog, values, shown), ...owner.edit };
    if (Object.keys(edit).length > 0) await (await context.getStorage()).blogs.edit(blog.id, edit);
    if (edit.hidden === true) context.push.release(blog.id);
    redirectWithNotice(response, `${context.options.mountPath}/blogs/${blog.id}`, "blogSaved");
  };
}

/** GET /blogs/:id/delete: confirmation. */
export function deleteBlogConfirmController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    const __ = response.locals.__;
    response.render("blogroll-blog-delete", {
      title: __("blogroll.blogs.delete.title", { title: blog.title }),
      parent: { text: blog.title, href: `${context.options.mountPath}/blogs/${blog.id}` },
      blog,
    });
  };
}

/** POST /blogs/:id/delete: soft delete (hidden for good; no source brings it back). */
export function deleteBlogController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    await (await context.getStorage()).blogs.softDelete(blog.id);
    context.push.release(blog.id);
    redirectWithNotice(response, `${context.options.mountPath}/blogs`, "blogDeleted");
  };
}
