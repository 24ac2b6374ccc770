import type { Collection } from "mongodb";
import { createMongoMicrosubStore } from "../storage/microsub/mongo.js";
import type { MicrosubStore } from "./types.js";

export const MICROSUB_COLLECTIONS = {
  channels: "microsub_channels",
  feeds: "microsub_feeds",
  items: "microsub_items",
} as const;

const stores = new WeakMap<Map<string, unknown>, { channels: unknown; store: MicrosubStore }>();

/**
 * The Microsub integration is available when the host's collection Map holds
 * the Microsub plugin's channels and feeds. Checked per call, because the
 * Microsub plugin may be initialised after this one.
 */
export function detectMicrosub(collections: Map<string, unknown> | null): MicrosubStore | null {
  if (!collections) return null;
  const channels = collections.get(MICROSUB_COLLECTIONS.channels) as Collection | undefined;
  const feeds = collections.get(MICROSUB_COLLECTIONS.feeds) as Collection | undefined;
  if (!channels || !feeds) return null;
  const cached = stores.get(collections);
  if (cached && cached.channels === channels) return cached.store;
  const items = (collections.get(MICROSUB_COLLECTIONS.items) as Collection | undefined) ?? null;
  const store = createMongoMicrosubStore({ channels, feeds, items });
  stores.set(collections, { channels, store });
  return store;
}
