import type { MicrosubChannel, MicrosubStore } from "../microsub/types.js";
import type { Blog, Source, Storage } from "../storage/types.js";
import { hostTitle, parseHttpUrl } from "../url/normalise.js";
import { SourceError, type ImportReport, type SourceKind } from "./types.js";

const PAGE = 500;

/** Every blog that lists `sourceId` among its sources (deleted ones excluded). */
async function blogsOfSource(storage: Storage, sourceId: string): Promise<Blog[]> {
  const blogs: Blog[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.blogs.list({ sourceId, visibility: "admin", limit: PAGE, offset });
    blogs.push(...page.items);
    if (page.items.length < PAGE) return blogs;
  }
}

async function selectedChannels(microsub: MicrosubStore, channelUid: string | undefined): Promise<MicrosubChannel[]> {
  const channels = await microsub.listChannels();
  const uid = channelUid?.trim();
  if (!uid) return channels;
  const chosen = channels.filter((channel) => channel.uid === uid);
  // A vanished channel is an error, not an empty list: it must not soft-delete every blog.
  if (chosen.length === 0) throw new SourceError(`Microsub channel "${uid}" not found`);
  return chosen;
}

/**
 * Mirrors the Microsub plugin's channels (all, or `settings.channelUid`) and
 * their feeds as blogs. Their items stay in Microsub (`skipItemFetch`), so our
 * scheduler never fetches them. A feed that left Microsub is soft-deleted,
 * unless another source still lists the blog: then only this source lets go.
 */
export const microsubSource: SourceKind = {
  type: "microsub",
  async refresh(source: Source, { storage, microsub }) {
    if (!microsub) throw new SourceError("Microsub plugin not available");
    const prefix = source.settings.categoryPrefix ?? "";
    const report: ImportReport = { added: 0, updated: 0, unchanged: 0, skipped: 0, missing: 0, skippedFeeds: [] };
    const keptIds: string[] = [];

    for (const channel of await selectedChannels(microsub, source.settings.channelUid)) {
      for (const feed of await microsub.listFeeds(channel.id)) {
        const url = parseHttpUrl(feed.url);
        if (!url) {
          report.skippedFeeds.push({ xmlUrl: feed.url, reason: "not an http(s) address" });
          continue;
        }
        const { outcome, blog } = await storage.blogs.upsertFromSource({
          feedUrl: url.href,
          title: feed.title?.trim() || hostTitle(url.href),
          siteUrl: `${url.origin}/`,
          photo: feed.photo,
          category: `${prefix}${channel.name}`,
          source: "microsub",
          sourceId: source.id,
          microsubFeedId: feed.id,
          microsubChannelId: channel.id,
          microsubChannelName: channel.name,
          skipItemFetch: true,
        });
        keptIds.push(blog.id);
        if (outcome === "added") report.added++;
        else if (outcome === "updated" || outcome === "reactivated") report.updated++;
        else if (outcome === "unchanged") report.unchanged++;
        else report.skippedFeeds.push({ xmlUrl: url.href, reason: "deleted by the owner" });
      }
    }

    const kept = new Set(keptIds);
    for (const blog of await blogsOfSource(storage, source.id)) {
      if (kept.has(blog.id) || blog.sourceIds.some((id) => id !== source.id)) continue;
      if (await storage.blogs.softDelete(blog.id)) report.missing++;
      kept.add(blog.id);
    }
    // Blogs other sources still list just forget this one (they stay visible).
    await storage.blogs.markMissingInactive(source.id, [...kept]);
    report.skipped = report.skippedFeeds.length;
    return { report };
  },
};
