import { checkFeed, discoverSite, type DiscoveredFeed, type UnreadableFeed } from "../discovery/discover.js";
import { writeIconRecord } from "../discovery/icon-records.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, BlogEdit, NewBlog, Storage, UpsertOutcome } from "../storage/types.js";
import { findAccount } from "../fediverse/webfinger.js";
import type { SourceKind } from "./types.js";
import { hostTitle } from "../url/normalise.js";

export interface ManualBlogInput {
  /** A feed address, or a site address whose feed discovery finds. Scheme optional. */
  url: string;
  title?: string | null;
  category?: string | null;
  /** The manual source record to attach the blog to, if any. */
  sourceId?: string | null;
  /**
   * The fediverse handle the blog was found by, when `url` is a feed picked
   * from its discovery: looked up again for its profile page. (A handle
   * given as `url` is found by the discovery itself.)
   */
  fediverse?: string | null;
}

export type ManualBlogResult =
  | { ok: true; outcome: UpsertOutcome; blog: Blog; feedUrl: string }
  /**
   * `noFeed`: the address answered, but neither is nor names a feed;
   * `unreadable`: the feeds it names, each with what its address answered, none readable.
   */
  | { ok: false; error: string; noFeed?: boolean; unreadable?: UnreadableFeed[] };

/** Advertised feeds read, best first, until one answers as a feed: a site rarely names more than a few. */
export const MAX_CHECKED_FEEDS = 5;

/**
 * Adds one blog by hand (source "manual"): the address is run through feed
 * discovery, which accepts a feed address as it is and finds the best feed of
 * a site address. An owner-deleted blog is not brought back (`skipped-deleted`).
 * A blog already in the blogroll keeps everything the owner did not type now.
 * With no title typed, a new blog is named after its feed (the feed's own
 * title, known now or after the first fetch), never after a `<link>`'s title.
 * A title or category typed here is the owner's, like an edit: syncs keep it.
 * The icon the site's page declares is recorded, so the sync does not fetch
 * that page again to look for it. A blog found by a fediverse handle keeps
 * the handle and its profile page, as the owner's.
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
  if ("unreadable" in readable) return { ok: false, error: "None of the feeds this site names could be read", unreadable: readable.unreadable };
  const { feed } = readable;
  let account = found.fediverse ? { handle: found.fediverse, profileUrl: found.fediverseUrl ?? null } : null;
  if (!account && input.fediverse) {
    const looked = await findAccount(input.fediverse, options, signal);
    if (!looked.ok) return { ok: false, error: looked.error };
    account = looked;
  }
  const existing = await storage.blogs.getByFeedUrl(feed.url);
  // For a blog already there only who lists it is recorded (the host title is the "no title" marker of a listing).
  const listing: NewBlog = existing
    ? { feedUrl: feed.url, title: hostTitle(feed.url), source: "manual", sourceId: input.sourceId ?? null }
    : {
        feedUrl: feed.url,
        title: feed.ownTitle?.trim() || hostTitle(feed.url),
        siteUrl: found.siteUrl,
        feedType: feed.type,
        category: null,
        source: "manual",
        sourceId: input.sourceId ?? null,
      };
  let { outcome, blog } = await storage.blogs.upsertFromSource(listing);
  const typed: BlogEdit = { ...typedFields(input), ...(account ? { fediverse: account.handle, fediverseUrl: account.profileUrl } : {}) };
  if (outcome !== "skipped-deleted" && Object.keys(typed).length > 0) {
    const changes = (Object.keys(typed) as (keyof typeof typed)[]).some((field) => blog[field] !== typed[field]);
    const edited = await storage.blogs.edit(blog.id, typed);
    if (edited) {
      blog = edited;
      if (changes && outcome === "unchanged") outcome = "updated";
    }
  }
  if (page) await writeIconRecord(storage.meta, "page", page.url, { icon: page.icon, reachable: true, url: page.url, blogrolls: page.blogrolls }, new Date());
  return { ok: true, outcome, blog, feedUrl: feed.url };
}

/**
 * The best feed that answers as a feed: one discovery already read, or an
 * advertised one read now (a site whose feeds all fail is not added, so a
 * broken blog is never recommended). Stops at the first that reads.
 */
async function firstReadableFeed(feeds: DiscoveredFeed[], options: BlogrollOptions, signal?: AbortSignal): Promise<{ feed: DiscoveredFeed } | { unreadable: UnreadableFeed[] }> {
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
