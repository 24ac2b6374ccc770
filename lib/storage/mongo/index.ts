import { MongoClient } from "mongodb";
import { StorageError, type Storage } from "../types.js";
import { createMongoBlogStore } from "./blogs.js";
import type { MongoCollections } from "./collections.js";
import { guard } from "./errors.js";
import { createMongoItemStore } from "./items.js";
import { createMongoMetaStore } from "./meta.js";
import { objectIdsFor } from "./object-ids.js";
import { createMongoPushStore } from "./push.js";
import { setUpCollections } from "./setup.js";
import { createMongoSourceStore } from "./sources.js";
import { createMongoRecommendationStore } from "./recommendations.js";
import { createMongoLiveEventStore, recordingLiveEvents } from "./live-events.js";

export type { MongoCollections } from "./collections.js";

/** Collection names, shared with the earlier plugin and the Microsub plugin. */
export const MONGO_COLLECTION_NAMES = {
  sources: "blogrollSources",
  blogs: "blogrollBlogs",
  items: "blogrollItems",
  meta: "blogrollMeta",
  push: "blogrollPush",
  recommendations: "blogrollRecommendations",
  events: "blogrollEvents",
} as const;

const DEFAULT_DATABASE = "blogroll";

/**
 * The Storage port on MongoDB collections (the host's, or our own client's).
 * Ids are made with the ObjectId class of the driver that owns them.
 * `close` is called by `storage.close()`; host collections need none.
 */
export function createMongoStorage(
  collections: MongoCollections,
  options: { close?: () => Promise<void> } = {},
): Storage {
  const ids = objectIdsFor(collections.blogs);
  // Every store writes through collections that record live events; setting up uses the plain ones.
  const recording = recordingLiveEvents(collections);
  return {
    kind: "mongodb",
    blogs: createMongoBlogStore(recording, ids),
    items: createMongoItemStore(recording, ids),
    sources: createMongoSourceStore(recording, ids),
    meta: createMongoMetaStore(recording),
    push: createMongoPushStore(recording),
    recommendations: createMongoRecommendationStore(recording, ids),
    events: createMongoLiveEventStore(recording, ids),
    init: () => guard("prepare its collections", () => setUpCollections(collections)),
    close: async () => {
      await options.close?.();
    },
  };
}

/**
 * The database named in a connection string (`mongodb://host/name?...`),
 * or "blogroll" when it names none.
 */
export function databaseNameFromUrl(url: string): string {
  const rest = url.replace(/^mongodb(?:\+srv)?:\/\//i, "");
  const afterCredentials = rest.slice(rest.lastIndexOf("@", rest.search(/[/?]|$/)) + 1);
  const slash = afterCredentials.indexOf("/");
  if (slash === -1) return DEFAULT_DATABASE;
  const name = afterCredentials.slice(slash + 1).split("?")[0];
  return name ? decodeURIComponent(name) : DEFAULT_DATABASE;
}

/** Opens a MongoClient of our own; `close()` on the storage closes it. */
export async function connectMongoStorage(url: string): Promise<Storage> {
  const client = new MongoClient(url);
  try {
    await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new StorageError("Could not connect to MongoDB", { cause: error });
  }
  const db = client.db(databaseNameFromUrl(url));
  const collections: MongoCollections = {
    sources: db.collection(MONGO_COLLECTION_NAMES.sources),
    blogs: db.collection(MONGO_COLLECTION_NAMES.blogs),
    items: db.collection(MONGO_COLLECTION_NAMES.items),
    meta: db.collection(MONGO_COLLECTION_NAMES.meta),
    push: db.collection(MONGO_COLLECTION_NAMES.push),
    recommendations: db.collection(MONGO_COLLECTION_NAMES.recommendations),
    events: db.collection(MONGO_COLLECTION_NAMES.events),
  };
  return createMongoStorage(collections, { close: () => client.close() });
}
