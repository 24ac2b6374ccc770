import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { discoverFeeds, type DiscoveredFeed } from "../discovery/discover.js";
import { addManualBlog, type ProposedChanges } from "../sources/manual.js";
import type { Blog, BlogEdit } from "../storage/types.js";
import { liveBlog } from "./blog-edit.js";
import { LIMITS } from "./blog-limits.js";
import { httpUrl } from "../url/http-url.js";
import { escapeHtml, notFound, renderForm, textField, type FormErrors } from "./forms.js";
import { redirectWithNotice } from "./notices.js";
import { looksLikeHandle } from "../fediverse/handle.js";

interface NewBlogValues {
  url: string;
  feedUrl: string;
  title: string;
  category: string;
}

function readNewBlogForm(body: Record<string, unknown> | undefined): NewBlogValues {
  return {
    url: textField(body, "url"),
    feedUrl: textField(body, "feedUrl"),
    title: textField(body, "title"),
    category: textField(body, "category"),
  };
}

/** "Title (RSS)"; a feed whose title is only its format ("RSS") is not named twice. */
export function feedLabel(feed: { title: string | null; url: string }, typeLabel: string): string {
  const title = feed.title?.trim() || feed.url;
  return title.toLowerCase() === typeLabel.toLowerCase() ? title : `${title} (${typeLabel})`;
}

async function renderNewBlog(
  context: BlogrollContext,
  response: Response,
  values: NewBlogValues,
  feeds: DiscoveredFeed[] | null,
  errors: FormErrors = {},
) {
  const __ = response.locals.__;
  const storage = await context.getStorage();
  const chosen = values.feedUrl || feeds?.[0]?.url || "";
  renderForm(
    response,
    "blogroll-blog-new",
    {
      title: __("blogroll.blogs.new.title"),
      parent: { text: __("blogroll.blogs.title"), href: `${context.options.mountPath}/blogs` },
      values,
      feedItems:
        feeds?.map((feed) => ({
          value: feed.url,
          // Item labels are escaped by the macros (Indiekit's label component); hints are output as given.
          label: feedLabel(feed, __(`blogroll.feedTypes.${feed.type}`)),
          hint: escapeHtml(feed.url),
          checked: feed.url === chosen,
        })) ?? null,
      categories: (await storage.blogs.categories()).map((entry) => entry.name),
      limits: LIMITS,
    },
    errors,
  );
}

/** GET /blogs/new: the add-a-blog form. */
export function newBlogController(context: BlogrollContext) {
  return async (_request: Request, response: Response) => {
    await renderNewBlog(context, response, { url: "", feedUrl: "", title: "", category: "" }, null);
  };
}

/**
 * POST /blogs: `discover` lists the feeds found at the address (or at the
 * profile page of a fediverse handle) to pick from; `add` adds the picked
 * feed (or the best feed found) as a manual blog, with the handle if one was typed.
 */
export function createBlogController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const __ = response.locals.__;
    const values = readNewBlogForm(request.body);
    const errors: FormErrors = {};
    if (!values.url && !values.feedUrl) errors.url = __("blogroll.blogs.errors.urlRequired");
    if (values.title.length > LIMITS.title) errors.title = __("blogroll.blogs.errors.tooLong", { max: LIMITS.title });
    if (values.category.length > LIMITS.category)
      errors.category = __("blogroll.blogs.errors.tooLong", { max: LIMITS.category });
    if (values.feedUrl && !httpUrl(values.feedUrl)) errors.feedUrl = __("blogroll.blogs.errors.urlInvalid");
    if (Object.keys(errors).length > 0) return renderNewBlog(context, response, values, null, errors);

    // A browser that goes away stops the fetches its discovery started.
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    if (request.body?.action === "discover") {
      const found = await discoverFeeds(values.url, context.options, abort.signal);
      if (!found.success)
        return renderNewBlog(context, response, values, null, {
          url: __("blogroll.blogs.errors.discoveryFailed", { reason: found.error }),
        });
      if (found.feeds.length === 0)
        return renderNewBlog(context, response, values, null, { url: __("blogroll.blogs.errors.noFeeds") });
      return renderNewBlog(
        context,
        response,
        { ...values, feedUrl: "", title: values.title || found.pageTitle || "" },
        found.feeds,
      );
    }

    const storage = await context.getStorage();
    // A feed picked from a handle's discovery keeps the handle: it is the author's, as the owner typed it.
    const fediverse = values.feedUrl && looksLikeHandle(values.url) ? values.url : null;
    const input = {
      url: values.feedUrl || values.url,
      title: values.title || null,
      category: values.category || null,
      fediverse,
    };
    const result = await addManualBlog(storage, context.options, input, abort.signal);
    if (!result.ok) {
      const message = result.noFeed
        ? __("blogroll.blogs.errors.noFeeds")
        : result.unreadable
          ? __("blogroll.blogs.errors.feedsUnreadable", {
              feeds: result.unreadable.map((feed) => `${feed.url}: ${feed.problem}`).join("; "),
            })
          : __("blogroll.blogs.errors.discoveryFailed", { reason: result.error });
      return renderNewBlog(context, response, values, null, { url: message });
    }
    if (result.outcome === "skipped-deleted")
      return renderNewBlog(context, response, values, null, { url: __("blogroll.blogs.errors.deletedBefore") });
    if (result.outcome === "added") {
      // Its feed was just read to know it is one: that read is its first fetch (one request, not two).
      if (result.read) context.firstReads.remember(result.feedUrl, result.read);
      context.scheduler.fetchNewBlogs();
    }
    if (Object.keys(result.proposed).length > 0) return renderReAdd(context, response, result.blog, result.proposed);
    redirectWithNotice(
      response,
      `${context.options.mountPath}/blogs/${result.blog.id}`,
      result.outcome === "added" ? "blogAdded" : "blogExists",
    );
  };
}

/** A blog added again with another title or category: what would change, for the owner to confirm. */
function renderReAdd(context: BlogrollContext, response: Response, blog: Blog, proposed: ProposedChanges) {
  const __ = response.locals.__;
  const none = __("blogroll.blogs.reAdd.none");
  renderForm(response, "blogroll-blog-readd", {
    title: __("blogroll.blogs.reAdd.title"),
    parent: { text: __("blogroll.blogs.title"), href: `${context.options.mountPath}/blogs` },
    blog,
    changes: (["title", "category"] as const).flatMap((field) => {
      const change = proposed[field];
      return change
        ? [
            {
              field,
              text: __(`blogroll.blogs.reAdd.${field}Change`, { from: change.from ?? none, to: change.to }),
              value: change.to,
            },
          ]
        : [];
    }),
  });
}

/**
 * POST /blogs/:id/readd: the owner confirms the title and category typed
 * when adding a blog that was already there; they become the owner's.
 */
export function confirmReAddController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const blog = await liveBlog(context, request);
    if (!blog) return notFound(response);
    const edit: BlogEdit = {};
    const title = textField(request.body, "title").slice(0, LIMITS.title);
    const category = textField(request.body, "category").slice(0, LIMITS.category);
    if (title) edit.title = title;
    if (category) edit.category = category;
    if (Object.keys(edit).length > 0) await (await context.getStorage()).blogs.edit(blog.id, edit);
    redirectWithNotice(response, `${context.options.mountPath}/blogs/${blog.id}`, "blogSaved");
  };
}
