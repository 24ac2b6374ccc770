import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { listSuggestions, type Suggestion } from "../network/suggestions.js";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";
import { isBearerRequest } from "./csrf.js";
import { textField } from "./forms.js";
import { LIMITS } from "./blog-limits.js";
import { redirectWithNotice } from "./notices.js";
import { wantsJson } from "./triggers.js";

/**
 * The owner's own site, never suggested and looked for in others' blogrolls:
 * Indiekit's publication URL, else the `publicUrl` option (lib/owner.ts).
 */
export function ownSiteOf(context: BlogrollContext): string | null {
  return context.owner().url;
}

async function suggestionsOf(context: BlogrollContext): Promise<Suggestion[]> {
  const storage = await context.getStorage();
  return listSuggestions(storage, { minRecommenders: context.options.minRecommenders, ownSite: ownSiteOf(context) });
}

/**
 * GET /suggestions: the feeds the owner's blogs recommend, most recommended
 * first. JSON for scripts (Accept: application/json, or a Bearer token without Accept: text/html):
 * `{ items: [{ feedUrl, siteUrl, title, count, recommendedBy: [{ id, title }] }] }`.
 */
export function suggestionsController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const suggestions = await suggestionsOf(context);
    // Scripts get JSON: they ask for it, or come with a token and do not ask for HTML.
    if (wantsJson(request) || (isBearerRequest(request) && !/text\/html/.test(request.get("accept") ?? ""))) {
      response.json({
        items: suggestions.map(({ feedUrl, siteUrl, title, count, recommendedBy }) => ({
          feedUrl,
          siteUrl,
          title,
          count,
          recommendedBy,
        })),
      });
      return;
    }
    const __ = response.locals.__;
    const storage = await context.getStorage();
    response.render("blogroll-suggestions", {
      title: __("blogroll.suggestions.title"),
      parent: { text: __("blogroll.title"), href: context.options.mountPath },
      suggestions,
      categories: (await storage.blogs.categories()).map((entry) => entry.name),
      minRecommenders: context.options.minRecommenders,
      limits: LIMITS,
    });
  };
}

/** The current suggestion a form names (only those can be added or dismissed here). */
async function chosenSuggestion(context: BlogrollContext, request: Request): Promise<Suggestion | null> {
  const feedUrl = textField(request.body, "feedUrl");
  if (!parseHttpUrl(feedUrl)) return null;
  const key = feedUrlKey(feedUrl);
  return (await suggestionsOf(context)).find((suggestion) => feedUrlKey(suggestion.feedUrl) === key) ?? null;
}

/**
 * POST /suggestions/add: the owner follows a suggested feed (the owner lists
 * it), in the category chosen (the owner's own choice, like an edit), fetched
 * at once in the background. The suggestion's outline stands for the feed
 * until that first fetch brings the feed's own title and link.
 */
export function addSuggestionController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const back = `${context.options.mountPath}/suggestions`;
    const suggestion = await chosenSuggestion(context, request);
    if (!suggestion) return redirectWithNotice(response, back, "suggestionGone");
    const category = textField(request.body, "category").slice(0, LIMITS.category) || null;
    const storage = await context.getStorage();
    const added = await storage.blogs.upsertFromSource({
      feedUrl: suggestion.feedUrl,
      source: "manual",
      feed: {
        title: suggestion.outline.title ?? undefined,
        siteUrl: suggestion.outline.siteUrl ?? undefined,
        description: suggestion.outline.description ?? undefined,
      },
    });
    const blog = (category && (await storage.blogs.edit(added.blog.id, { category }))) || added.blog;
    if (added.outcome === "added") context.scheduler.fetchNewBlogs();
    if (wantsJson(request)) {
      response.status(201).json({ id: blog.id, feedUrl: blog.feedUrl });
      return;
    }
    redirectWithNotice(response, back, "suggestionAdded");
  };
}

/** POST /suggestions/dismiss: never suggests this feed again. */
export function dismissSuggestionController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const back = `${context.options.mountPath}/suggestions`;
    const suggestion = await chosenSuggestion(context, request);
    if (!suggestion) return redirectWithNotice(response, back, "suggestionGone");
    await (await context.getStorage()).recommendations.dismiss(suggestion.feedUrl);
    if (wantsJson(request)) {
      response.status(204).end();
      return;
    }
    redirectWithNotice(response, back, "suggestionDismissed");
  };
}
