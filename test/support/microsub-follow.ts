/**
 * The write the Microsub plugin makes straight into `blogrollBlogs` when a
 * feed is followed (docs/indiekit.md): an upsert by feed URL, with the
 * fields it sets on every follow and those it sets only on insert.
 */
export interface MicrosubFollow {
  feedUrl: string;
  title: string;
  siteUrl: string;
  /** The channel's name, which becomes the category. */
  channel: string;
  feedId: unknown;
  channelId: unknown;
}

export async function microsubFollow(
  blogs: { updateOne(filter: object, update: object, options?: object): Promise<unknown> },
  follow: MicrosubFollow,
): Promise<void> {
  const now = new Date();
  await blogs.updateOne(
    { feedUrl: follow.feedUrl },
    {
      $set: {
        title: follow.title,
        siteUrl: follow.siteUrl,
        feedType: "rss",
        category: follow.channel,
        source: "microsub",
        microsubFeedId: follow.feedId,
        microsubChannelId: follow.channelId,
        microsubChannelName: follow.channel,
        skipItemFetch: true,
        status: "active",
        updatedAt: now,
      },
      $setOnInsert: {
        description: null,
        tags: [],
        photo: null,
        author: null,
        lastFetchAt: null,
        lastError: null,
        itemCount: 0,
        pinned: false,
        hidden: false,
        notes: null,
        createdAt: now,
      },
    },
    { upsert: true },
  );
}
