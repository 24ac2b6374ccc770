import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Collection, Db } from "mongodb";
import { countingChanges } from "./change-count.js";
import type { Storage } from "./types.js";
import { createSqliteStorage } from "./sqlite/index.js";
import { databaseRecordingLiveEvents } from "./mongo/live-events.js";

export const COLLECTION_NAMES = {
  sources: "blogrollSources",
  blogs: "blogrollBlogs",
  items: "blogrollItems",
  meta: "blogrollMeta",
  push: "blogrollPush",
  recommendations: "blogrollRecommendations",
  events: "blogrollEvents",
} as const;

export interface StorageChoice {
  /** The host's collection Map (Indiekit's `collections`), when it has a database. */
  hostCollections?: Map<string, unknown> | null;
  mongodbUrl: string | null;
  databasePath: string;
}

/** Which adapter a choice leads to, for start-up messages and tests. */
export function describeStorageChoice(choice: StorageChoice): string {
  if (hostCollections(choice)) return "MongoDB (host collections)";
  if (choice.mongodbUrl) return "MongoDB (own connection)";
  return `SQLite (${path.resolve(choice.databasePath)})`;
}

function hostCollections(choice: Pick<StorageChoice, "hostCollections">) {
  const map = choice.hostCollections;
  if (!map) return null;
  const get = (name: string) => map.get(name) as Collection | undefined;
  const sources = get(COLLECTION_NAMES.sources);
  const blogs = get(COLLECTION_NAMES.blogs);
  const items = get(COLLECTION_NAMES.items);
  const meta = get(COLLECTION_NAMES.meta);
  const push = get(COLLECTION_NAMES.push);
  const recommendations = get(COLLECTION_NAMES.recommendations);
  const events = get(COLLECTION_NAMES.events);
  return sources && blogs && items && meta && push && recommendations && events
    ? { sources, blogs, items, meta, push, recommendations, events }
    : null;
}

/**
 * The host's database as the Microsub plugin may write into it (see
 * databaseRecordingLiveEvents), or null while the host has not given us our
 * collections.
 */
export function databaseForMicrosub(db: Db | null | undefined, map: Map<string, unknown> | null): Db | null {
  const collections = hostCollections({ hostCollections: map });
  return db && collections ? databaseRecordingLiveEvents(db, collections) : null;
}

/**
 * Opens storage: the host's MongoDB collections when present, else a MongoDB
 * URL (option or MONGODB_URL), else the embedded SQLite file (folder created).
 * The MongoDB adapter and its driver are loaded only when chosen: on SQLite
 * they would cost some 15 MB of memory for nothing (docs/sync.md, Memory).
 */
export async function openStorage(choice: StorageChoice): Promise<Storage> {
  const collections = hostCollections(choice);
  let storage: Storage;
  if (collections) {
    const { createMongoStorage } = await import("./mongo/index.js");
    storage = createMongoStorage(collections);
  } else if (choice.mongodbUrl) {
    const { connectMongoStorage } = await import("./mongo/index.js");
    storage = await connectMongoStorage(choice.mongodbUrl);
  } else {
    if (choice.databasePath !== ":memory:")
      mkdirSync(path.dirname(path.resolve(choice.databasePath)), { recursive: true });
    storage = createSqliteStorage(choice.databasePath);
  }
  await storage.init();
  return countingChanges(storage);
}
