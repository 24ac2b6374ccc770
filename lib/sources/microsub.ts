import type { MicrosubChannel, MicrosubStore } from "../microsub/types.js";
import type { Source } from "../storage/types.js";
import { parseHttpUrl } from "../url/http-url.js";
import { SourceError, type ImportReport, type SourceKind } from "./types.js";

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
 * scheduler never fetches them. A feed that left Microsub is soft-deleted
 * (the owner unfollowed it), unless another origin still lists the blog:
 * then only this source lets go.
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
          title: feed.title?.trim() || null,
          photo: feed.photo,
          // Microsub knows no site address: the feed's host stands in until someone names one.
          feed: { siteUrl: `${url.origin}/` },
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

    // Blogs other origins still list just forget this one (they stay visible).
    for (const id of await storage.blogs.unlist(source.id, { except: keptIds })) {
      if (await storage.blogs.softDelete(id)) report.missing++;
    }
    report.skipped = report.skippedFeeds.length;
    return { report };
  },
};
