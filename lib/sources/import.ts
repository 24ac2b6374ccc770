import { setImmediate as nextTurn } from "node:timers/promises";
import { originKind } from "../storage/provenance.js";
import type { FeedType, NewBlog, Source, Storage } from "../storage/types.js";
import { httpUrl, parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey, hostTitle } from "../url/normalise.js";
import { SourceError, type ImportReport, type ListedFeed, type SkippedFeed } from "./types.js";

/** What an OPML-like source (OPML URL, OPML file, FeedLand) gave: feeds plus the parser's rejects. */
export interface FeedList {
  feeds: ListedFeed[];
  skipped?: SkippedFeed[];
  /** Part of the list could not be read (an include): blogs it no longer shows stay listed by it. */
  partial?: boolean;
}

/** Outline `type` attributes that name a feed format we know. */
function feedTypeOf(type: string | null): FeedType | null {
  const value = type?.trim().toLowerCase();
  if (value === "atom") return "atom";
  if (value === "json" || value === "jsonfeed") return "json";
  if (value === "hfeed" || value === "h-feed") return "hfeed";
  // "rss" is what most OPML writers put on every outline, whatever the format: learn it from the feed.
  return null;
}

/** Feeds handled between two turns of the event loop. */
const FEEDS_PER_TURN = 100;

/**
 * Lets the event loop serve requests every FEEDS_PER_TURN feeds: SQLite
 * answers synchronously, so a 20 000-outline list would otherwise hold the
 * loop (and the public API) for seconds.
 */
async function pauseEvery(index: number): Promise<void> {
  if (index > 0 && index % FEEDS_PER_TURN === 0) await nextTurn();
}

interface Plan {
  accepted: ListedFeed[];
  skipped: SkippedFeed[];
}

/** Drops invalid addresses and repeats (the same feed under two categories: the first wins). */
function plan(list: FeedList): Plan {
  const skipped: SkippedFeed[] = [...(list.skipped ?? [])];
  const seen = new Set<string>();
  const accepted: ListedFeed[] = [];
  for (const feed of list.feeds) {
    const url = parseHttpUrl(feed.xmlUrl);
    if (!url) {
      skipped.push({ xmlUrl: feed.xmlUrl, reason: "not an http(s) address" });
      continue;
    }
    const key = feedUrlKey(url.href);
    if (seen.has(key)) {
      skipped.push({ xmlUrl: feed.xmlUrl, reason: "listed more than once" });
      continue;
    }
    seen.add(key);
    accepted.push({ ...feed, xmlUrl: url.href });
  }
  return { accepted, skipped };
}

/** The blog as this source lists it: the values its outline gives (none where it names none). */
function toNewBlog(feed: ListedFeed, source: Source, category: string | null): NewBlog {
  return {
    feedUrl: feed.xmlUrl,
    title: feed.title?.trim() || null,
    description: feed.description?.trim() || null,
    siteUrl: httpUrl(feed.htmlUrl),
    feedType: feedTypeOf(feed.type) ?? undefined,
    category,
    source: originKind(source.type),
    sourceId: source.id,
  };
}

/**
 * Applies a source's feed list to the blogroll: the source lists every feed
 * it names, with the values its outlines give (owner edits and soft deletes
 * win; a blog several origins list is kept once and remembers each), and no
 * longer lists the blogs it dropped. Those no other origin lists are
 * unlisted (counted as `missing`), never deleted.
 *
 * A `partial` list (an include could not be read) drops nothing.
 * An empty list is refused (SourceError "OPML lists no feeds") before anything
 * is written: a remote that answers with a broken or emptied document must
 * never empty the blogroll.
 *
 * @param categoryOf picks the blog category for a feed (default: the outline's category).
 */
export async function importFeeds(
  storage: Storage,
  source: Source,
  list: FeedList,
  categoryOf: (feed: ListedFeed) => string | null = (feed) => feed.category?.trim() || null,
): Promise<ImportReport> {
  if (list.feeds.length === 0) throw new SourceError("OPML lists no feeds");
  const { accepted, skipped } = plan(list);
  if (accepted.length === 0) throw new SourceError("OPML lists no feeds");

  const report: ImportReport = { added: 0, updated: 0, unchanged: 0, skipped: 0, missing: 0, skippedFeeds: skipped };
  const keptIds = new Set<string>();
  for (const [index, feed] of accepted.entries()) {
    await pauseEvery(index);
    const { outcome, blog } = await storage.blogs.upsertFromSource(toNewBlog(feed, source, categoryOf(feed)));
    // Two addresses of one blog (the old one of a permanent redirect, and the new one): the first wins.
    if (keptIds.has(blog.id)) {
      skipped.push({ xmlUrl: feed.xmlUrl, reason: "listed more than once" });
      continue;
    }
    keptIds.add(blog.id);
    switch (outcome) {
      case "added":
        report.added++;
        break;
      case "updated":
      case "reactivated":
        report.updated++;
        break;
      case "unchanged":
        report.unchanged++;
        break;
      case "skipped-deleted":
        skipped.push({ xmlUrl: feed.xmlUrl, reason: "deleted by the owner" });
        break;
    }
  }
  report.skipped = skipped.length;
  // A list read only in part says nothing of the blogs it does not show.
  report.missing = list.partial ? 0 : (await storage.blogs.unlist(source.id, { except: [...keptIds] })).length;
  return report;
}

/** One row of an import preview. */
export interface PreviewEntry {
  xmlUrl: string;
  title: string;
  category: string | null;
  outcome: "add" | "update" | "skip";
  reason?: string;
}

export interface ImportPreview {
  added: number;
  updated: number;
  skipped: number;
  entries: PreviewEntry[];
}

/**
 * What importing `feeds` would do, without writing anything: new feeds are
 * added, known ones updated, deleted ones, repeats and invalid addresses skipped.
 */
export async function previewImport(
  storage: Storage,
  feeds: ListedFeed[],
  parserSkipped: SkippedFeed[] = [],
): Promise<ImportPreview> {
  const { accepted, skipped } = plan({ feeds, skipped: parserSkipped });
  const entries: PreviewEntry[] = [];
  for (const [index, feed] of accepted.entries()) {
    await pauseEvery(index);
    const existing = await storage.blogs.getByFeedUrl(feed.xmlUrl);
    const row = {
      xmlUrl: feed.xmlUrl,
      title: feed.title?.trim() || hostTitle(feed.xmlUrl),
      category: feed.category?.trim() || null,
    };
    if (!existing) entries.push({ ...row, outcome: "add" });
    else if (existing.status === "deleted") entries.push({ ...row, outcome: "skip", reason: "deleted by the owner" });
    else entries.push({ ...row, outcome: "update" });
  }
  for (const skip of skipped)
    entries.push({
      xmlUrl: skip.xmlUrl,
      title: hostTitle(skip.xmlUrl),
      category: null,
      outcome: "skip",
      reason: skip.reason,
    });
  const count = (outcome: PreviewEntry["outcome"]) => entries.filter((entry) => entry.outcome === outcome).length;
  return { added: count("add"), updated: count("update"), skipped: count("skip"), entries };
}
