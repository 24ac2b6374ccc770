import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { readOwnerStatus } from "../api/status.js";
import { clearItemsForResync } from "./clear-items.js";
import { isBearerRequest } from "./csrf.js";
import { renderForm } from "./forms.js";
import { SYNCED_BEFORE } from "./dashboard.js";
import { redirectWithNotice, type NoticeKey } from "./notices.js";

/** Scripts and `fetch` callers ask for JSON; forms get a redirect back. */
export function wantsJson(request: Request): boolean {
  return request.is("application/json") === "application/json" || request.accepts(["html", "json"]) === "json";
}

/** Answers a manual trigger: 202 with the owner's status record for JSON clients, a redirect with a notice for forms. */
export async function accepted(
  context: BlogrollContext,
  request: Request,
  response: Response,
  back: string,
  notice: NoticeKey,
): Promise<void> {
  if (wantsJson(request)) response.status(202).json(await readOwnerStatus(context));
  else redirectWithNotice(response, back, notice);
}

/**
 * The dashboard a run was started from, told when the last run before it ended: a run that ends before the
 * page has loaded is still seen to have finished (the page compares that time with the status it polls).
 */
async function dashboardSince(context: BlogrollContext): Promise<string> {
  const { lastSync } = await readOwnerStatus(context);
  return `${context.options.mountPath}?${SYNCED_BEFORE}=${encodeURIComponent(lastSync ?? "")}`;
}

/** POST /sync: starts a sync run (or joins the one going on). */
export function syncNow(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const back = await dashboardSince(context);
    void context.scheduler.syncNow();
    await accepted(context, request, response, back, "syncStarted");
  };
}

function renderClearConfirm(response: Response, context: BlogrollContext, errors = {}) {
  const __ = response.locals.__;
  renderForm(
    response,
    "blogroll-clear-resync",
    { title: __("blogroll.clear.title"), parent: { text: __("blogroll.title"), href: context.options.mountPath } },
    errors,
  );
}

/** GET /clear-resync: the confirmation form. */
export function clearResyncConfirm(context: BlogrollContext) {
  return (_request: Request, response: Response) => renderClearConfirm(response, context);
}

/**
 * POST /clear-resync: stops a sync going on, deletes every stored item and starts a full sync. A form
 * must carry the ticked confirmation; scripts (JSON, Bearer) need none.
 */
export function clearResync(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const confirmed = wantsJson(request) || isBearerRequest(request) || request.body?.confirm === "yes";
    if (!confirmed) {
      renderClearConfirm(response, context, { confirm: response.locals.__("blogroll.clear.confirmRequired") });
      return;
    }
    const back = await dashboardSince(context);
    // A run going on is stopped first: its fetches in flight would write validators after the clear.
    await context.scheduler.resetAndSync(async (storage) => void (await clearItemsForResync(storage)));
    await accepted(context, request, response, back, "itemsCleared");
  };
}
