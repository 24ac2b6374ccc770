import type { Collection, CreateIndexesOptions, Document, IndexSpecification, ObjectId } from "mongodb";
import { feedUrlKey, isHostTitle } from "../../url/normalise.js";
import { legacyFeedValues, legacyOrigins } from "../legacy-origins.js";
import { originKind } from "../provenance.js";
import type { SourceType } from "../types.js";
import type { MongoCollections } from "./collections.js";
import { legacyBlogOf, originDocs } from "./documents.js";
import { codeOf, isDuplicateKey } from "./errors.js";
import { BLOG_NEWEST_INDEX } from "./items.js";
import { objectIdsFor, refHex } from "./object-ids.js";
import { backfillSortKeys } from "./sort-keys.js";

/** An existing index with the same keys but other options (85) or the same name (86) is kept as it is. */
const INDEX_CONFLICT_CODES = new Set([85, 86]);

async function ensureIndex(
  collection: Collection,
  keys: IndexSpecification,
  options: CreateIndexesOptions = {},
): Promise<void> {
  try {
    await collection.createIndex(keys, options);
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined || !INDEX_CONFLICT_CODES.has(code)) throw error;
  }
}

/** Date fields the earlier plugin wrote as ISO text, per collection. */
const DATE_FIELDS: Array<[keyof MongoCollections, string[]]> = [
  ["blogs", ["lastFetchAt", "lastItemAt", "nextFetchAt", "createdAt", "updatedAt", "deletedAt"]],
  ["items", ["published", "fetchedAt"]],
  ["sources", ["lastSyncAt", "createdAt", "updatedAt"]],
];

/**
 * Rewrites ISO-text dates as BSON Dates (unparseable text becomes null):
 * compared with Dates, text never matched, so retention deleted nothing.
 */
async function convertTextDates(collections: MongoCollections): Promise<void> {
  for (const [name, fields] of DATE_FIELDS) {
    for (const field of fields) {
      await collections[name].updateMany({ [field]: { $type: "string" } }, [
        { $set: { [field]: { $convert: { input: `$${field}`, to: "date", onError: null, onNull: null } } } },
      ]);
    }
  }
}

/** Gives documents without a normalised key (Microsub's, older ones) their key, unless a twin holds it. */
async function backfillFeedKeys(blogs: Collection): Promise<void> {
  const docs = await blogs
    .find({ feedKey: { $exists: false }, feedUrl: { $type: "string" } })
    .project({ feedUrl: 1 })
    .toArray();
  for (const doc of docs) {
    try {
      await blogs.updateOne(
        { _id: doc._id, feedKey: { $exists: false } },
        { $set: { feedKey: feedUrlKey(doc.feedUrl) } },
      );
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
}

/**
 * Blogs from before schedules: the newest stored post stands for the newest
 * post, and a failing blog's last failure for the start of its failures.
 */
async function backfillSchedules(blogs: Collection): Promise<void> {
  await blogs.updateMany({ lastPostAt: { $exists: false } }, [
    { $set: { lastPostAt: { $ifNull: ["$lastItemAt", null] } } },
  ]);
  await blogs.updateMany({ failingSince: { $exists: false }, status: "error" }, [
    { $set: { failingSince: { $ifNull: ["$lastFetchAt", null] } } },
  ]);
}

/**
 * Blogs from before the owner could say who a blog is to them: no
 * relationship, note or handle yet. The four are always written together,
 * so one missing field stands for all of them (one pass over the blogs).
 */
async function backfillOwnerFields(blogs: Collection): Promise<void> {
  await blogs.updateMany(
    { relationship: { $exists: false } },
    { $set: { relationship: [], note: null, fediverse: null, fediverseUrl: null } },
  );
}

/**
 * A title stored as the owner's that is only the host name (a placeholder
 * saved with the edit form) is untyped again, its validators dropped so the
 * next fetch reads the feed's own title. Idempotent: once done, none match.
 */
async function untypeHostTitles(blogs: Collection): Promise<void> {
  const typed = await blogs.find({ ownerEdited: "title" }).project({ title: 1, feedUrl: 1, movedFrom: 1 }).toArray();
  for (const doc of typed) {
    if (typeof doc.title !== "string" || typeof doc.feedUrl !== "string") continue;
    if (!isHostTitle(doc.title, doc.feedUrl, typeof doc.movedFrom === "string" ? doc.movedFrom : null)) continue;
    await blogs.updateOne(
      { _id: doc._id },
      { $pull: { ownerEdited: "title" } as Document, $set: { etag: null, lastModified: null } },
    );
  }
}

/** Index names replaced by later ones: dropped when found (index 27: there is none by that name). */
async function dropIndex(collection: Collection, name: string): Promise<void> {
  try {
    await collection.dropIndex(name);
  } catch (error) {
    if (codeOf(error) !== 27) throw error;
  }
}

/**
 * Blogs stored with source ids (and an `inactive` status) get their origins
 * and what their feed said (lib/storage/legacy-origins.ts); so do the
 * Microsub plugin's own follows, which never carry origins. When any blog
 * had source ids, each source's list is read in full once more, to record
 * the values it gives.
 */
async function backfillOrigins(collections: MongoCollections): Promise<void> {
  const { blogs, sources } = collections;
  const ids = objectIdsFor(blogs);
  const kinds = new Map<string, string>();
  for await (const source of sources.find({}, { projection: { type: 1 } }))
    kinds.set(refHex(source._id) ?? "", originKind(source.type as SourceType));
  let hadSources = false;
  for await (const doc of blogs.find({ origins: { $exists: false } })) {
    const legacy = legacyBlogOf(doc);
    hadSources ||= legacy.sourceIds.length > 0;
    const origins = legacyOrigins(legacy, (id) => kinds.get(id));
    const set: Document = {
      origins: originDocs(origins, ids),
      feedValues: legacyFeedValues(legacy),
      source: origins[0]?.kind ?? null,
    };
    // A blog no longer listed is one without origins; its status is its feed's again.
    if (doc.status === "inactive") set.status = doc.lastFetchAt ? "active" : "pending";
    await blogs.updateOne(
      { _id: doc._id, origins: { $exists: false } },
      { $set: set, $unset: { sourceId: "", sourceIds: "" } },
    );
  }
  if (hadSources) await sources.updateMany({}, { $set: { etag: null, lastModified: null } });
}

/** Keeps the first copy of items stored twice by older code, so the unique index can be built. */
async function removeDuplicateItems(items: Collection): Promise<void> {
  const groups = await items
    .aggregate([
      { $sort: { _id: 1 } },
      { $group: { _id: { blogId: "$blogId", uid: "$uid" }, ids: { $push: "$_id" }, count: { $sum: 1 } } },
      { $match: { count: { $gt: 1 } } },
    ])
    .toArray();
  const extra = groups.flatMap((group) => (group.ids as ObjectId[]).slice(1));
  if (extra.length > 0) await items.deleteMany({ _id: { $in: extra } });
}

/** Creates the indexes the queries need and migrates older data. Idempotent. */
export async function setUpCollections(collections: MongoCollections): Promise<void> {
  const { blogs, items, meta, push } = collections;
  await convertTextDates(collections);

  await ensureIndex(
    blogs,
    { feedKey: 1 },
    { unique: true, partialFilterExpression: { feedKey: { $exists: true } }, name: "feedKey_unique" },
  );
  await ensureIndex(blogs, { feedUrl: 1 });
  // Documents without a normalised key (the Microsub plugin's) are found by address among themselves alone.
  await ensureIndex(blogs, { feedKey: 1, feedUrl: 1 });
  await ensureIndex(blogs, { source: 1, status: 1 });
  await ensureIndex(blogs, { status: 1, hidden: 1, category: 1 });
  await dropIndex(blogs, "sourceIds_1");
  await ensureIndex(blogs, { "origins.id": 1 });
  await ensureIndex(blogs, { feedKeyAliases: 1 }, { sparse: true });
  await ensureIndex(blogs, { nextFetchAt: 1, _id: 1 });
  await ensureIndex(blogs, { lastPostAt: 1 });
  // Blogs never fetched here that have a fediverse handle (the sync looks their handles up again), by id.
  await ensureIndex(
    blogs,
    { skipItemFetch: 1, _id: 1 },
    { partialFilterExpression: { fediverse: { $type: "string" } }, name: "blogs_unfetched_handles" },
  );
  // The blogs list walks these in its order (stored keys: see blogDoc) to a page's limit.
  await ensureIndex(blogs, { pinned: -1, titleSort: 1, _id: 1 }, { name: "blogs_by_title" });
  await ensureIndex(
    blogs,
    { pinned: -1, lastItemAt: -1, lastFetchAt: -1, titleSort: 1, _id: 1 },
    { name: "blogs_by_recent" },
  );
  await backfillFeedKeys(blogs);
  await backfillSchedules(blogs);
  await backfillSortKeys(blogs, true);
  await backfillOwnerFields(blogs);
  await untypeHostTitles(blogs);
  await backfillOrigins(collections);

  const itemKey = { blogId: 1, uid: 1 } as const;
  try {
    await ensureIndex(items, itemKey, { unique: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    await removeDuplicateItems(items);
    await ensureIndex(items, itemKey, { unique: true });
  }
  await ensureIndex(items, { published: -1, _id: -1 });
  await ensureIndex(items, BLOG_NEWEST_INDEX);

  await ensureIndex(meta, { key: 1 }, { unique: true });

  await ensureIndex(push, { id: 1 }, { unique: true });
  await ensureIndex(push, { callbackToken: 1 }, { unique: true });
  await ensureIndex(push, { blogId: 1, kind: 1 });
  await ensureIndex(push, { kind: 1, topic: 1 });
  await ensureIndex(
    collections.recommendations,
    { kind: 1, blogId: 1 },
    { unique: true, partialFilterExpression: { kind: "blogroll" }, name: "blogroll_unique" },
  );
  await ensureIndex(collections.events, { seq: 1 }, { unique: true });
  await ensureIndex(collections.events, { at: 1 });
  await ensureIndex(
    collections.recommendations,
    { kind: 1, feedKey: 1 },
    { unique: true, partialFilterExpression: { kind: "dismissed" }, name: "dismissed_unique" },
  );
}
