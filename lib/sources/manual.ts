import { discoverSite } from "../discovery/discover.js";
import { writeIconRecord } from "../discovery/icon-records.js";
import type { BlogrollOptions } from "../options.js";
import type { Blog, Storage, UpsertOutcome } from "../storage/types.js";
import type { SourceKind } from "./types.js";
import { hostTitle } from "../url/normalise.js";

export interface ManualBlogInput {
  /** A feed address, or a site address whose feed discovery finds. Scheme optional. */
  url: string;
  title?: string | null;
  category?: string | null;
  /** The manual source record to attach the blog to, if any. */
  sourceId?: string | null;
}

export type ManualBlogResult =
  | { ok: true; outcome: UpsertOutcome; blog: Blog; feedUrl: string }
  /** `noFeed`: the address answered, but neither is nor names a feed. */
  | { ok: false; error: string; noFeed?: boolean };

/**
 * Adds one blog by hand (source "manual"): the address is run through feed
 * discovery, which accepts a feed address as it is and finds the best feed of
 * a site address. An owner-deleted blog is not brought back (`skipped-deleted`).
 * The icon the site's page declares is recorded, so the sync does not fetch
 * that page again to look for it.
 */
export async function addManualBlog(
  storage: Storage,
  options: BlogrollOptions,
  input: ManualBlogInput,
  signal?: AbortSignal,
): Promise<ManualBlogResult> {
  const { result: found, page } = await discoverSite(input.url, options, signal);
  if (!found.success) return { ok: false, error: found.error };
  const feed = found.feeds[0];
  if (!feed) return { ok: false, error: "No feed found at this address", noFeed: true };
  const { outcome, blog } = await storage.blogs.upsertFromSource({
    feedUrl: feed.url,
    title: input.title?.trim() || feed.title || found.pageTitle || hostTitle(feed.url),
    siteUrl: found.siteUrl,
    feedType: feed.type,
    category: input.category?.trim() || null,
    source: "manual",
    sourceId: input.sourceId ?? null,
  });
  if (page) await writeIconRecord(storage.meta, "page", page.url, { icon: page.icon, reachable: true, url: page.url, blogrolls: page.blogrolls }, new Date());
  return { ok: true, outcome, blog, feedUrl: feed.url };
}

/** Manual sources list nothing by themselves: their blogs are added one by one. */
export const manualSource: SourceKind = {
  type: "manual",
  async refresh() {
    return { report: null };
  },
};
