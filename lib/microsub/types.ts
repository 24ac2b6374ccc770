import type { Item } from "../storage/types.js";

/** A Microsub channel as the sibling plugin stores it. */
export interface MicrosubChannel {
  id: string;
  uid: string;
  name: string;
  order: number;
}

/** A followed feed in a Microsub channel. */
export interface MicrosubFeed {
  id: string;
  channelId: string;
  url: string;
  title: string | null;
  photo: string | null;
}

/**
 * Read access to the Microsub plugin's collections. Items are read in place
 * (never copied), shaped like our own items so the API merges them.
 */
export interface MicrosubStore {
  listChannels(): Promise<MicrosubChannel[]>;
  listFeeds(channelId?: string): Promise<MicrosubFeed[]>;
  /** Newest first (published desc, undated last, then id desc). `blogId` of each item is the Microsub feed id. */
  listItems(query: { feedIds: string[]; limit: number; offset: number }): Promise<Item[]>;
}
