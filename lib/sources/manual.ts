import { checkFeed, discoverSite, type DiscoveredFeed, type UnreadableFeed } from "../discovery/discover.js";
import { writeIconRecord } from "../discovery/icon-records.js";
import type { FetchResult } from "../http/fetch.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, BlogEdit, NewBlog, Storage, UpsertOutcome } from "../storage/types.js";
import { findAccount } from "../fediverse/webfinger.js";
import type { SourceKind } from "./types.js";

export interface ManualBlogInput {
  /** A feed address, or a site address whose feed discovery finds. Scheme optional. */
  url: string;
  title?: string | null;
  category?: string | null;
  /**
   * The fediverse handle the blog was found by, when `url` is a feed picked
   * from its discovery: looked up again for its profile page. (A handle
   * given as `url` is found by the discovery itself.)
   */
  fediverse?: string | null;
}

/** What the owner typed that differs from a blog already there: changed only when the owner confirms. */
export type ProposedChanges = Partial<Record<"title" | "category", { from: string | null; to: string }>>;

export type ManualBlogResult =
  /** `read`: the feed's response as discovery read it (the new blog's first fetch can be that read), null when not read. */
  | {
      ok: true;
      outcome: UpsertOutcome;
      blog: Blog;
      feedUrl: string;
      proposed: ProposedChanges;
      read: FetchResult | null;
    }
  /**
   * `noFeed`: the address answered, but neither is nor names a feed;
   * `unreadable`: the feeds it names, each with what its address answered, none readable.
   */
  | { ok: false; error: string; noFeed?: boolean; unreadable?: UnreadableFeed[] };

/** Advertised feeds read, best first, until one answers as a feed: a site rarely names more than a few. */
export const MAX_CHECKED_FEEDS = 5;

/**
 * The owner adds one blog: the address is run through feed discovery, which
 * accepts a feed address as it is and finds the best feed of a site address.
 * The owner becomes one of its origins. A new blog takes what the owner typed
 * (kept as the owner's, like an edit) and, until its first fetch, what
 * discovery learned of the feed (its own title, never a `<link>`'s). A blog
 * already there changes nothing it shows: what the owner typed differently
 * comes back as `proposed`, for the owner to confirm. An owner-deleted blog
 * is not brought back (`skipped-deleted`). The icon the site's page declares
 * is recorded, so the sync does not fetch that page again to look for it.
 * A blog found by a fediverse handle keeps the handle and its profile page,
 * as the owner's (on a blog already there, only where it has no handle yet).
 */
export async function addManualBlog(
  storage: Storage,
  options: BlogrollOptions,
  input: ManualBlogInput,
  signal?: AbortSignal,
): Promise<ManualBlogResult> {
  const { result: found, page } = await discoverSite(input.url, options, signal);
  if (!found.success) return { ok: false, error: found.error };
  if (found.feeds.length === 0) return { ok: false, error: "No feed found at this address", noFeed: true };
  const readable = await firstReadableFeed(found.feeds, options, signal);
  if ("unreadable" in readable)
    return { ok: false, error: "None of the feeds this site names could be read", unreadable: readable.unreadable };
  const { feed } = readable;
  let account = found.fediverse ? { handle: found.fediverse, profileUrl: found.fediverseUrl ?? null } : null;
  if (!account && input.fediverse) {
    const looked = await findAccount(input.fediverse, options, signal);
    if (!looked.ok) return { ok: false, error: looked.error };
    account = looked;
  }
  const listing: NewBlog = {
    feedUrl: feed.url,
    source: "manual",
    feed: { title: feed.ownTitle?.trim() || undefined, siteUrl: found.siteUrl ?? undefined },
    feedType: feed.type,
  };
  const upserted = await storage.blogs.upsertFromSource(listing);
  const outcome = upserted.outcome;
  let blog = upserted.blog;
  const typed = typedFields(input);
  const handle: BlogEdit = account ? { fediverse: account.handle, fediverseUrl: account.profileUrl } : {};
  const proposed: ProposedChanges = {};
  if (outcome === "added") {
    if (Object.keys(typed).length > 0 || account)
      blog = (await storage.blogs.edit(blog.id, { ...typed, ...handle })) ?? blog;
  } else if (outcome !== "skipped-deleted") {
    if (typed.title !== undefined && typed.title !== blog.title) proposed.title = { from: blog.title, to: typed.title };
    if (typed.category !== undefined && typed.category !== blog.category)
      proposed.category = { from: blog.category, to: typed.category };
    if (account && blog.fediverse === null) blog = (await storage.blogs.edit(blog.id, handle)) ?? blog;
  }
  if (page)
    await writeIconRecord(
      storage.meta,
      "page",
      page.url,
      { icon: page.icon, reachable: true, url: page.url, blogrolls: page.blogrolls },
      new Date(),
    );
  return { ok: true, outcome, blog, feedUrl: feed.url, proposed, read: feed.response ?? null };
}

/**
 * The best feed that answers as a feed: one discovery already read, or an
 * advertised one read now (a site whose feeds all fail is not added, so a
 * broken blog is never recommended). Stops at the first that reads.
 */
async function firstReadableFeed(
  feeds: DiscoveredFeed[],
  options: BlogrollOptions,
  signal?: AbortSignal,
): Promise<{ feed: DiscoveredFeed } | { unreadable: UnreadableFeed[] }> {
  const unreadable: UnreadableFeed[] = [];
  for (const feed of feeds.slice(0, MAX_CHECKED_FEEDS)) {
    if (feed.checked) return { feed };
    const checked = await checkFeed(feed, options, signal);
    if ("feed" in checked) return checked;
    unreadable.push({ url: feed.url, problem: checked.problem });
  }
  return { unreadable };
}

/** The title and category the owner typed (blank means "not typed"). */
function typedFields(input: ManualBlogInput): { title?: string; category?: string } {
  const typed: { title?: string; category?: string } = {};
  const title = input.title?.trim();
  const category = input.category?.trim();
  if (title) typed.title = title;
  if (category) typed.category = category;
  return typed;
}

/** Manual sources list nothing by themselves: their blogs are added one by one. */
export const manualSource: SourceKind = {
  type: "manual",
  async refresh() {
    return { report: null };
  },
};
