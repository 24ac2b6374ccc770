import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { refreshSource } from "../sources/refresh.js";
import type { Source } from "../storage/types.js";
import { idParam, notFound, renderForm, type FormErrors } from "./forms.js";
import { redirectWithNotice } from "./notices.js";
import { isFormType } from "./source-settings.js";
import { accepted } from "./triggers.js";

/** Blogs (deleted ones aside) the source lists; with `status`, only those in it. */
async function blogCount(context: BlogrollContext, sourceId: string, status?: "pending"): Promise<number> {
  const storage = await context.getStorage();
  return (
    await storage.blogs.list({
      origin: { id: sourceId },
      visibility: "admin",
      limit: 0,
      offset: 0,
      ...(status ? { status } : {}),
    })
  ).total;
}

/** Blogs named on the delete confirmation as staying with their other origins; the rest are counted. */
const STAYING_NAMED = 10;

/** GET /sources: every source with its type, status, last sync and last import counts. */
export function sourcesListController(context: BlogrollContext) {
  return async (_request: Request, response: Response) => {
    const __ = response.locals.__;
    const storage = await context.getStorage();
    const sources = await storage.sources.list();
    const rows = await Promise.all(
      sources.map(async (source) => ({
        source,
        blogs: await blogCount(context, source.id),
        // Blogs listed but not fetched yet (fetched in the background right after an import).
        pending: await blogCount(context, source.id, "pending"),
        editable: isFormType(source.type),
      })),
    );
    response.render("blogroll-sources", {
      title: __("blogroll.sources.title"),
      parent: { text: __("blogroll.title"), href: context.options.mountPath },
      actions: [
        { href: `${context.options.mountPath}/sources/new`, text: __("blogroll.sources.add"), icon: "createPost" },
      ],
      rows,
      pending: rows.some((row) => row.pending > 0),
      microsubAvailable: context.getMicrosub() !== null,
    });
  };
}

async function sourceOf(context: BlogrollContext, request: Request): Promise<Source | null> {
  const id = idParam(request.params.id);
  return id ? (await context.getStorage()).sources.get(id) : null;
}

/** POST /sources/:id/toggle: enables or disables a source (`enabled` = "true" | "false"). */
export function toggleSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await sourceOf(context, request);
    if (!source) return notFound(response);
    const enabled = request.body?.enabled === "true";
    await (await context.getStorage()).sources.update(source.id, { enabled });
    redirectWithNotice(response, `${context.options.mountPath}/sources`, enabled ? "sourceEnabled" : "sourceDisabled");
  };
}

/**
 * POST /sources/:id/sync: re-reads one source's blog list now; blogs it
 * newly lists are fetched at once in the background. 202 with the status
 * record, or a redirect.
 */
export function syncSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await sourceOf(context, request);
    if (!source) return notFound(response);
    const storage = await context.getStorage();
    const outcome = await refreshSource(source, { storage, options: context.options, microsub: context.getMicrosub() });
    if (outcome.status !== "error") context.scheduler.fetchNewBlogs();
    await accepted(
      context,
      request,
      response,
      `${context.options.mountPath}/sources`,
      outcome.status === "error" ? "sourceSyncFailed" : "sourceSynced",
    );
  };
}

/**
 * The delete confirmation counts the blogs only this source lists (the ones
 * the owner decides about) and names those other origins list too (they stay).
 */
async function renderDeleteConfirm(
  context: BlogrollContext,
  response: Response,
  source: Source,
  errors: FormErrors = {},
) {
  const __ = response.locals.__;
  const storage = await context.getStorage();
  const [only, shared] = await Promise.all([
    storage.blogs.list({ origin: { id: source.id, shared: false }, visibility: "admin", limit: 0, offset: 0 }),
    storage.blogs.list({
      origin: { id: source.id, shared: true },
      visibility: "admin",
      limit: STAYING_NAMED,
      offset: 0,
    }),
  ]);
  renderForm(
    response,
    "blogroll-source-delete",
    {
      title: __("blogroll.sources.delete.title", { name: source.name }),
      parent: { text: __("blogroll.sources.title"), href: `${context.options.mountPath}/sources` },
      source,
      blogs: only.total,
      staying: {
        titles: shared.items.map((blog) => blog.title),
        more: shared.total - shared.items.length,
        total: shared.total,
      },
    },
    errors,
  );
}

/** GET /sources/:id/delete: asks what becomes of the source's blogs. */
export function deleteSourceConfirmController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await sourceOf(context, request);
    if (!source) return notFound(response);
    await renderDeleteConfirm(context, response, source);
  };
}

/**
 * POST /sources/:id/delete: deletes the source. Blogs other origins list
 * stay with them; those only it lists are kept (the owner lists them from
 * now on, as they are) or removed with their items, as the owner chose
 * (`blogs` = "keep" | "remove"; needed only when there are such blogs).
 */
export function deleteSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await sourceOf(context, request);
    if (!source) return notFound(response);
    const choice = request.body?.blogs;
    const storage = await context.getStorage();
    if (choice !== "keep" && choice !== "remove") {
      const decide =
        (
          await storage.blogs.list({
            origin: { id: source.id, shared: false },
            visibility: "admin",
            limit: 0,
            offset: 0,
          })
        ).total > 0;
      if (decide) {
        await renderDeleteConfirm(context, response, source, {
          blogs: response.locals.__("blogroll.sources.delete.choiceRequired"),
        });
        return;
      }
    }
    const orphans = await storage.blogs.detachSource(source.id, choice !== "remove");
    for (const id of orphans) await storage.blogs.purge(id);
    await storage.sources.delete(source.id);
    redirectWithNotice(response, `${context.options.mountPath}/sources`, "sourceDeleted");
  };
}
