import type { Collection, Db, Document, Filter, ObjectId } from "mongodb";
import { PAGE_FIELDS } from "../live-log.js";
import type { BlogChange, LiveEvent, LiveEventStore } from "../types.js";
import { publicBlogFilter } from "./blog-queries.js";
import type { MongoCollections } from "./collections.js";
import { dateOrNull, hexId, toBlog, toItem } from "./documents.js";
import { giveSortKeys, lacksSortKeys } from "./sort-keys.js";
import { guard } from "./errors.js";
import type { ObjectIds } from "./object-ids.js";
import { countValue, dateValue } from "./values.js";

/*
 * The live event log on MongoDB. MongoDB has no triggers, and change streams
 * need a replica set; so every write to the blogs and items collections goes
 * through a watch here (the collections the stores are given are wrapped),
 * which compares what the public saw of the blogs it touched before and after,
 * and records the events right after the write. Seqs come from a counter
 * document: two writers may take 5 and 6 and store 6 first, which readers
 * allow for (see lib/live/hub.ts).
 */

/** The meta document whose `seq` counts events. */
const SEQ_KEY = "liveEvents.seq";

/** Collection methods that write documents. */
const WRITES = new Set([
  "insertOne",
  "insertMany",
  "updateOne",
  "updateMany",
  "replaceOne",
  "bulkWrite",
  "findOneAndUpdate",
  "findOneAndReplace",
  "findOneAndDelete",
  "deleteOne",
  "deleteMany",
]);

type NewEvent = { kind: "post"; blogId: string; itemId: string } | { kind: "blog"; blogId: string; change: BlogChange };

/** What the public saw of one blog: whether it was visible, the fields the page shows, and whether its sort keys lag its title. */
interface PublicView {
  _id: ObjectId;
  visible: boolean;
  page: string;
  unkeyed: boolean;
}

const PAGE_PROJECTION: Document = Object.fromEntries(
  [...PAGE_FIELDS, "lastPostAt", "titleSort", "pinned"].map((field) => [field, 1]),
);

/** The page's fields as one comparable text; a blog's first posts count too. */
const pageText = (doc: Document): string =>
  JSON.stringify([...PAGE_FIELDS.map((field) => doc[field] ?? null), doc.lastPostAt != null]);

/** The filter a write selects its documents by (bulk writes: any of their operations'); null when it only inserts. */
function writeFilter(method: string, args: unknown[]): Filter<Document> | null {
  if (method === "insertOne" || method === "insertMany") return null;
  if (method !== "bulkWrite") return (args[0] as Filter<Document>) ?? {};
  const filters = (args[0] as Document[]).flatMap((operation) => {
    const spec = Object.values(operation)[0] as Document | undefined;
    return spec?.filter ? [spec.filter as Filter<Document>] : [];
  });
  return filters.length === 0 ? null : { $or: filters };
}

/** Ids of documents a write created (inserted, or upserted). */
function createdIds(method: string, result: unknown): ObjectId[] {
  if (result === null || typeof result !== "object") return [];
  const outcome = result as Document;
  switch (method) {
    case "insertOne":
      return [outcome.insertedId];
    case "insertMany":
    case "bulkWrite":
      return [...Object.values(outcome.insertedIds ?? {}), ...Object.values(outcome.upsertedIds ?? {})] as ObjectId[];
    case "findOneAndUpdate":
    case "findOneAndReplace": {
      // The document itself, or { value, ok } when the caller asked for the result's metadata.
      const doc = "ok" in outcome && "value" in outcome ? (outcome.value as Document | null) : outcome;
      return doc?._id ? [doc._id] : [];
    }
    default:
      return outcome.upsertedId ? [outcome.upsertedId] : [];
  }
}

/** `collection` with every write passed to `watch`, which runs it and may look before and after. */
function watched(
  collection: Collection,
  watch: (method: string, args: unknown[], write: () => Promise<unknown>) => Promise<unknown>,
): Collection {
  return new Proxy(collection, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (typeof key !== "string" || !WRITES.has(key)) return value.bind(target);
      return (...args: unknown[]) => watch(key, args, () => value.apply(target, args) as Promise<unknown>);
    },
  });
}

/**
 * The collections with live events recorded for every write to blogs and
 * items made through them. The stores use these; setting up (migrations of old
 * documents) uses the plain ones.
 */
export function recordingLiveEvents(collections: MongoCollections): MongoCollections {
  const { blogs, items, events, meta } = collections;

  async function record(list: NewEvent[]): Promise<void> {
    if (list.length === 0) return;
    const counter = await meta.findOneAndUpdate(
      { key: SEQ_KEY },
      { $inc: { seq: list.length } },
      { upsert: true, returnDocument: "after" },
    );
    const last = Number(counter?.seq);
    const at = new Date();
    await events.insertMany(
      list.map((event, index) => ({ seq: last - list.length + 1 + index, at, itemId: null, change: null, ...event })),
    );
  }

  /** What the public sees of the blogs a filter selects, by hex id. */
  async function publicViews(filter: Filter<Document>): Promise<Map<string, PublicView>> {
    const docs = await blogs.find(filter).project(PAGE_PROJECTION).toArray();
    if (docs.length === 0) return new Map();
    const shown = await blogs
      .find({ $and: [{ _id: { $in: docs.map((doc) => doc._id) } }, publicBlogFilter()] })
      .project({ _id: 1 })
      .toArray();
    const visible = new Set(shown.map((doc) => hexId(doc._id)));
    return new Map(
      docs.map((doc) => [
        hexId(doc._id),
        { _id: doc._id, visible: visible.has(hexId(doc._id)), page: pageText(doc), unkeyed: lacksSortKeys(doc) },
      ]),
    );
  }

  const watchedBlogs = watched(blogs, async (method, args, write) => {
    const filter = writeFilter(method, args);
    const before = filter ? await publicViews(filter) : new Map<string, PublicView>();
    const result = await write();
    const touched = new Map<string, ObjectId>([...before].map(([id, view]) => [id, view._id]));
    for (const _id of createdIds(method, result)) if (_id != null) touched.set(hexId(_id), _id);
    if (touched.size === 0) return result;
    const after = await publicViews({ _id: { $in: [...touched.values()] } });
    const changes: NewEvent[] = [];
    for (const id of touched.keys()) {
      const was = before.get(id);
      const now = after.get(id);
      const change: BlogChange | null =
        !was?.visible && now?.visible
          ? "added"
          : was?.visible && !now?.visible
            ? "removed"
            : was && now && was.page !== now.page && now.visible
              ? "updated"
              : null;
      if (change) changes.push({ kind: "blog", blogId: id, change });
    }
    await record(changes);
    // The Microsub plugin sets titles (a new one when a feed is followed again) without their sort keys.
    await giveSortKeys(
      blogs,
      [...after.values()].filter((view) => view.unkeyed).map((view) => view._id),
    );
    return result;
  });

  const watchedItems = watched(items, async (method, _args, write) => {
    const result = await write();
    const created = createdIds(method, result).filter((id) => id != null);
    if (created.length === 0) return result;
    const stored = await items
      .find({ _id: { $in: created } })
      .project({ _id: 1, blogId: 1, published: 1 })
      .toArray();
    const blogIds = [...new Set(stored.map((doc) => doc.blogId))];
    const newest = new Map(
      (
        await blogs
          .find({ _id: { $in: blogIds } })
          .project({ lastPostAt: 1 })
          .toArray()
      ).map((doc) => [hexId(doc._id), dateOrNull(doc.lastPostAt)]),
    );
    // A post newer than any its blog showed before (an undated one counts as new). A blog never read before has none.
    const posts = stored.filter((doc) => {
      const lastPost = newest.get(hexId(doc.blogId));
      const published = dateOrNull(doc.published);
      return lastPost != null && (published === null || published > lastPost);
    });
    await record(posts.map((doc) => ({ kind: "post", blogId: hexId(doc.blogId), itemId: hexId(doc._id) })));
    return result;
  });

  return { ...collections, blogs: watchedBlogs, items: watchedItems };
}

/** The live event log behind the LiveEventStore port. */
export function createMongoLiveEventStore(collections: MongoCollections, ids: ObjectIds): LiveEventStore {
  const { events, items, blogs, meta } = collections;
  return {
    after: (after, limit) =>
      guard("read live events", async () => {
        const max = countValue(limit);
        if (max === 0) return [];
        const docs = await events
          .find({ seq: { $gt: Number(after) } })
          .sort({ seq: 1 })
          .limit(max)
          .toArray();
        if (docs.length === 0) return [];
        const itemIds = ids.ofList(docs.flatMap((doc) => (typeof doc.itemId === "string" ? [doc.itemId] : [])));
        // Without the content, which may be long and which events never carry.
        const stored =
          itemIds.length === 0
            ? []
            : await items
                .find({ _id: { $in: itemIds } })
                .project({ content: 0 })
                .toArray();
        const byItem = new Map(
          stored.map((doc) => {
            const { content: _content, ...post } = toItem(doc);
            return [hexId(doc._id), post];
          }),
        );
        const blogIds = ids.ofList([...new Set(docs.map((doc) => String(doc.blogId)))]);
        const shown = await blogs.find({ $and: [{ _id: { $in: blogIds } }, publicBlogFilter()] }).toArray();
        const byBlog = new Map(shown.map((doc) => [hexId(doc._id), toBlog(doc)]));
        return docs.map((doc): LiveEvent => {
          const blogId = String(doc.blogId);
          const common = {
            seq: Number(doc.seq),
            at: dateOrNull(doc.at) ?? new Date(0),
            blogId,
            blog: byBlog.get(blogId) ?? null,
          };
          return doc.kind === "post"
            ? { kind: "post", ...common, item: byItem.get(String(doc.itemId)) ?? null }
            : { kind: "blog", ...common, change: doc.change as BlogChange };
        });
      }),

    bounds: () =>
      guard("read the live event log's ends", async () => {
        const counter = await meta.findOne({ key: SEQ_KEY });
        const [first] = await events.find({}).sort({ seq: 1 }).limit(1).project({ seq: 1 }).toArray();
        return { newest: Number(counter?.seq ?? 0), oldest: first ? Number(first.seq) : null };
      }),

    trimBefore: (cutoff) =>
      guard("trim the live event log", async () => {
        const [last] = await events
          .find({ at: { $lt: dateValue(cutoff, "cutoff") } })
          .sort({ seq: -1 })
          .limit(1)
          .project({ seq: 1 })
          .toArray();
        if (!last) return 0;
        const { deletedCount } = await events.deleteMany({ seq: { $lte: Number(last.seq) } });
        return deletedCount;
      }),
  };
}

/**
 * The database as the Microsub plugin is handed it: it writes its follows and
 * unfollows straight into the blogs collection, so `collection()` gives it
 * the blogs and items collections that record live events (what an unfollow
 * hides leaves the live page as any other removal); other names pass through.
 */
export function databaseRecordingLiveEvents(db: Db, collections: MongoCollections): Db {
  const recording = recordingLiveEvents(collections);
  const byName = new Map<string, Collection>([
    [collections.blogs.collectionName, recording.blogs],
    [collections.items.collectionName, recording.items],
  ]);
  return new Proxy(db, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key !== "collection" || typeof value !== "function")
        return typeof value === "function" ? value.bind(target) : value;
      return (name: string, ...rest: unknown[]) => byName.get(name) ?? value.apply(target, [name, ...rest]);
    },
  });
}
