import type { Collection } from "mongodb";

/** The collections the adapter works on (the host's, or our own client's). */
export interface MongoCollections {
  sources: Collection;
  blogs: Collection;
  items: Collection;
  meta: Collection;
  /** Push subscriptions (WebSub, rssCloud). */
  push: Collection;
  recommendations: Collection;
  /** The live event log (see live-events.ts). */
  events: Collection;
}
