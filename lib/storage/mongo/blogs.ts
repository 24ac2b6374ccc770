import type { Document, Filter, ObjectId } from "mongodb";
import { feedUrlKey, isHostTitle } from "../../url/normalise.js";
import { StorageError, type Blog, type BlogListQuery, type BlogStore, type FetchRecord, type NewBlog, type UpsertResult } from "../types.js";
import { editChanges, fetchChanges, newBlogDoc, sourceChanges } from "./blog-changes.js";
import { countHealth, healthFilter } from "./blog-health.js";
import { adminBlogFilter, findBlogDocByFeedUrl, publicBlogFilter, refreshBlogItemStats } from "./blog-queries.js";
import type { MongoCollections } from "./collections.js";
import { sourceIdsOf, toBlog } from "./documents.js";
import { guard, isDuplicateKey } from "./errors.js";
import { refHex, type ObjectIds } from "./object-ids.js";
import { blogStatusValue, countValue, dateValue, escapeRegex, textValue } from "./values.js";

function listFilter(query: BlogListQuery, ids: ObjectIds): Filter<Document> {
  const and: Filter<Document>[] = [query.visibility === "admin" ? adminBlogFilter() : publicBlogFilter()];
  if (query.category !== undefined) and.push({ category: textValue(query.category, "category") });
  if (query.source !== undefined) and.push({ source: textValue(query.source, "source") });
  if (query.sourceId !== undefined) and.push({ sourceIds: { $in: ids.refCandidates(textValue(query.sourceId, "sourceId")) } });
  if (query.search !== undefined && textValue(query.search, "search") !== "") {
    const pattern = escapeRegex(query.search);
    and.push({ $or: ["title", "feedUrl", "siteUrl"].map((field) => ({ [field]: { $regex: pattern, $options: "i" } })) });
  }
  if (query.status !== undefined) {
    and.push(query.status === "hidden" ? { hidden: true } : { status: blogStatusValue(query.status) });
  }
  if (query.health !== undefined) and.push(healthFilter(query.health.condition, query.health));
  return { $and: and };
}

/** Sort keys computed per query, so Microsub-written documents need no extra fields. */
function listSortStages(sort: BlogListQuery["sort"]): Document[] {
  const keys = {
    $addFields: {
      _pinnedKey: { $cond: [{ $eq: ["$pinned", true] }, 1, 0] },
      _titleKey: { $toLower: { $ifNull: ["$title", ""] } },
    },
  };
  const order =
    sort === "recent"
      ? { _pinnedKey: -1, lastItemAt: -1, lastFetchAt: -1, _titleKey: 1, _id: 1 }
      : { _pinnedKey: -1, _titleKey: 1, _id: 1 };
  return [keys, { $sort: order }];
}

/** BlogStore on the `blogrollBlogs` collection. */
export function createMongoBlogStore(collections: MongoCollections, ids: ObjectIds): BlogStore {
  const { blogs } = collections;

  async function docById(id: string): Promise<Document | null> {
    const _id = ids.of(id);
    return _id ? blogs.findOne({ _id }) : null;
  }

  async function addFromSource(input: NewBlog, feedUrl: string, now: Date): Promise<Blog | null> {
    const doc = newBlogDoc(ids, input, feedUrl, now);
    try {
      await blogs.insertOne(doc);
      return toBlog(doc);
    } catch (error) {
      if (isDuplicateKey(error)) return null; // lost a race: another writer added it first
      throw error;
    }
  }

  async function updateFromSource(doc: Document, input: NewBlog, feedUrl: string, now: Date): Promise<UpsertResult> {
    if (doc.status === "deleted") return { outcome: "skipped-deleted", blog: toBlog(doc) };
    const set = sourceChanges(ids, doc, input);
    const sourceId = ids.ref(input.sourceId);
    const listed = sourceIdsOf(doc);
    const newSource = sourceId !== null && !listed.includes(refHex(sourceId) as string);
    const changed = Object.keys(set).length > 0 || newSource;
    const update: Document = { $set: { ...set } };
    if (doc.feedKey === undefined) update.$set.feedKey = feedUrlKey(feedUrl);
    if (changed) update.$set.updatedAt = now;
    if (newSource) {
      // Legacy documents only have `sourceId`: keep it in the list as well.
      const legacy = Array.isArray(doc.sourceIds) || doc.sourceId == null ? [] : [doc.sourceId];
      update.$addToSet = { sourceIds: { $each: [...legacy, sourceId] } };
    }
    if (Object.keys(update.$set).length === 0 && !newSource) return { outcome: "unchanged", blog: toBlog(doc) };
    const after = await blogs.findOneAndUpdate({ _id: doc._id }, update, { returnDocument: "after" });
    const blog = toBlog(after ?? doc);
    if (!changed) return { outcome: "unchanged", blog };
    return { outcome: doc.status === "inactive" ? "reactivated" : "updated", blog };
  }

  return {
    list: (query) =>
      guard("list blogs", async () => {
        const filter = listFilter(query, ids);
        const limit = countValue(query.limit);
        const offset = countValue(query.offset);
        const total = await blogs.countDocuments(filter);
        if (limit === 0 || offset >= total) return { items: [], total };
        const pipeline: Document[] = [{ $match: filter }, ...listSortStages(query.sort)];
        if (offset > 0) pipeline.push({ $skip: offset });
        pipeline.push({ $limit: limit });
        const docs = await blogs.aggregate(pipeline).toArray();
        return { items: docs.map(toBlog), total };
      }),

    get: (id) =>
      guard("read a blog", async () => {
        const doc = await docById(id);
        return doc ? toBlog(doc) : null;
      }),

    getByFeedUrl: (feedUrl) =>
      guard("find a blog by feed URL", async () => {
        const doc = await findBlogDocByFeedUrl(blogs, textValue(feedUrl, "feed URL"));
        return doc ? toBlog(doc) : null;
      }),

    getMany: (blogIds) =>
      guard("read blogs", async () => {
        const objectIds = ids.ofList(blogIds);
        if (objectIds.length === 0) return [];
        const docs = await blogs.find({ _id: { $in: objectIds } }).toArray();
        return docs.map(toBlog);
      }),

    upsertFromSource: (input) =>
      guard("store a blog", async () => {
        const feedUrl = textValue(input.feedUrl, "feed URL");
        const now = new Date();
        let doc = await findBlogDocByFeedUrl(blogs, feedUrl);
        if (!doc) {
          const added = await addFromSource(input, feedUrl, now);
          if (added) return { outcome: "added", blog: added };
          doc = await findBlogDocByFeedUrl(blogs, feedUrl);
          if (!doc) throw new StorageError("MongoDB could not store a blog");
        }
        return updateFromSource(doc, input, feedUrl, now);
      }),

    edit: (id, edit) =>
      guard("edit a blog", async () => {
        const _id = ids.of(id);
        if (!_id) return null;
        const { set, fields } = editChanges(edit);
        const filter = { _id, status: { $ne: "deleted" } };
        if (Object.keys(set).length === 0) {
          const doc = await blogs.findOne(filter);
          return doc ? toBlog(doc) : null;
        }
        // A title that is only the host name is the placeholder, never the owner's: stored untyped.
        const current = edit.title === undefined ? null : await blogs.findOne(filter, { projection: { feedUrl: 1, movedFrom: 1 } });
        const placeholder = current !== null && isHostTitle(set.title, String(current.feedUrl), typeof current.movedFrom === "string" ? current.movedFrom : null);
        const typed = placeholder ? fields.filter((field) => field !== "title") : fields;
        const update: Document = { $set: { ...set, updatedAt: new Date() } };
        if (typed.length > 0) update.$addToSet = { ownerEdited: { $each: typed } };
        let doc = await blogs.findOneAndUpdate(filter, update, { returnDocument: "after" });
        if (doc && placeholder) doc = await blogs.findOneAndUpdate(filter, { $pull: { ownerEdited: "title" } as Document }, { returnDocument: "after" });
        return doc ? toBlog(doc) : null;
      }),

    softDelete: (id, at = new Date()) =>
      guard("delete a blog", async () => {
        const _id = ids.of(id);
        if (!_id) return false;
        const deletedAt = dateValue(at, "deletion date");
        const result = await blogs.updateOne(
          { _id, status: { $ne: "deleted" } },
          { $set: { status: "deleted", hidden: true, deletedAt, updatedAt: deletedAt } },
        );
        return result.matchedCount > 0;
      }),

    markMissingInactive: (sourceId, keepIds) =>
      guard("mark missing blogs inactive", async () => {
        const candidates = ids.refCandidates(textValue(sourceId, "sourceId"));
        const missing = { status: { $ne: "deleted" }, _id: { $nin: ids.ofList(keepIds) } };
        // Blogs this source alone listed go inactive (they keep the source, to come back).
        const result = await blogs.updateMany(
          {
            ...missing,
            status: { $nin: ["deleted", "inactive"] },
            $or: [
              { sourceIds: { $size: 1, $in: candidates } },
              { sourceIds: { $exists: false }, sourceId: { $in: candidates } },
            ],
          },
          { $set: { status: "inactive", updatedAt: new Date() } },
        );
        // Blogs another source still lists stay, and forget this one.
        await dropSource(blogs, { ...missing, sourceIds: { $in: candidates }, "sourceIds.1": { $exists: true } }, candidates);
        return result.modifiedCount;
      }),

    detachSource: (sourceId) =>
      guard("detach a source", async () => {
        const candidates = ids.refCandidates(textValue(sourceId, "sourceId"));
        const touched = await dropSource(blogs, { $or: [{ sourceIds: { $in: candidates } }, { sourceId: { $in: candidates } }] }, candidates);
        if (touched.length === 0) return [];
        const sourceless = { _id: { $in: touched }, $or: [{ sourceIds: { $size: 0 } }, { sourceIds: { $exists: false } }], sourceId: null };
        // A blog no source lists any more is the owner's own: a manual blog.
        await blogs.updateMany(sourceless, { $set: { source: "manual" } });
        const orphans = await blogs
          // Deleted blogs are not offered for purging: they keep their URL so sync never re-adds them.
          .find({ ...sourceless, status: { $ne: "deleted" } })
          .project({ _id: 1 })
          .toArray();
        return orphans.map((doc) => refHex(doc._id) as string);
      }),

    purge: (id) =>
      guard("remove a blog", async () => {
        const _id = ids.of(id);
        if (!_id) return;
        await collections.items.deleteMany({ blogId: _id });
        await collections.recommendations.deleteOne({ kind: "blogroll", blogId: id });
        await blogs.deleteOne({ _id });
      }),

    categories: () =>
      guard("list categories", async () => {
        const rows = await blogs
          .aggregate([
            { $match: { $and: [publicBlogFilter(), { category: { $type: "string", $ne: "" } }] } },
            { $group: { _id: "$category", count: { $sum: 1 } } },
            { $sort: { _id: 1 } },
          ])
          .toArray();
        return rows.map((row) => ({ name: String(row._id), count: Number(row.count) }));
      }),

    listDue: (now, limit, options = {}) =>
      guard("list blogs due for a fetch", async () => {
        const at = dateValue(now, "time");
        const max = countValue(limit);
        if (max === 0) return [];
        const dueNow = [{ nextFetchAt: null }, { nextFetchAt: { $lte: at } }];
        // "Sync now" asks everyone but blogs a server told to wait, and gone ones before their weekly check.
        const wanted = options.everyone
          ? [{ $or: [{ waitUntil: null }, { waitUntil: { $lte: at } }] }, { $or: [{ status: { $ne: "gone" } }, ...dueNow] }]
          : [{ $or: dueNow }];
        const docs = await blogs
          .find({
            status: { $nin: ["deleted", "inactive"] },
            skipItemFetch: { $ne: true },
            $and: wanted,
          })
          .sort({ nextFetchAt: 1, _id: 1 })
          .limit(max)
          .toArray();
        return docs.map(toBlog);
      }),

    recordFetch: (id, record) => guard("record a fetch", () => recordFetch(collections, ids, id, record)),

    setIcon: (id, iconUrl) =>
      guard("record a site icon", async () => {
        const _id = ids.of(id);
        if (!_id) return false;
        const result = await blogs.updateOne(
          { _id, status: { $ne: "deleted" } },
          { $set: { iconUrl: textValue(iconUrl, "icon URL"), updatedAt: new Date() } },
        );
        return result.matchedCount === 1;
      }),

    refreshItemStats: (id) =>
      guard("refresh blog statistics", async () => {
        const _id = ids.of(id);
        if (_id) await refreshBlogItemStats(collections, _id);
      }),

    count: (filter = {}) =>
      guard("count blogs", async () => {
        const query: Document = filter.status === undefined ? adminBlogFilter() : { status: blogStatusValue(filter.status) };
        if (filter.sourcePrefix !== undefined) {
          query.source = { $regex: `^${escapeRegex(textValue(filter.sourcePrefix, "source prefix"))}` };
        }
        return blogs.countDocuments(query);
      }),

    healthCounts: (query) => guard("count blogs by health", () => countHealth(blogs, query)),

    publicTotals: () =>
      guard("count public blogs", async () => {
        const [row] = await blogs
          .aggregate([{ $match: publicBlogFilter() }, { $group: { _id: null, blogs: { $sum: 1 }, items: { $sum: { $ifNull: ["$itemCount", 0] } } } }])
          .toArray();
        return { blogs: Number(row?.blogs ?? 0), items: Number(row?.items ?? 0) };
      }),
  };
}

/**
 * Removes a source from the blogs a filter selects; where it was the primary
 * source, the first one left takes its place (or none). Returns their ids.
 */
async function dropSource(blogs: MongoCollections["blogs"], filter: Filter<Document>, candidates: Array<ObjectId | string>): Promise<ObjectId[]> {
  // Fixed by id first: the filter may stop matching once the source is pulled.
  const ids: ObjectId[] = (await blogs.find(filter).project({ _id: 1 }).toArray()).map((doc) => doc._id);
  if (ids.length === 0) return ids;
  await blogs.updateMany({ _id: { $in: ids } }, { $pull: { sourceIds: { $in: candidates } } as Document, $set: { updatedAt: new Date() } });
  await blogs.updateMany({ _id: { $in: ids }, sourceId: { $in: candidates } }, [
    { $set: { sourceId: { $ifNull: [{ $arrayElemAt: ["$sourceIds", 0] }, null] } } },
  ]);
  return ids;
}

async function recordFetch(collections: MongoCollections, ids: ObjectIds, id: string, record: FetchRecord): Promise<Blog | null> {
  const { blogs } = collections;
  const _id = ids.of(id);
  if (!_id) return null;
  const doc = await blogs.findOne({ _id });
  if (!doc || doc.status === "deleted") return null;
  const set = fetchChanges(doc, record);
  const filter = { _id, status: { $ne: "deleted" } };
  if (record.feedUrl !== undefined && record.feedUrl !== doc.feedUrl) {
    // A permanent redirect moves the blog, unless another blog already has that feed.
    const feedUrl = textValue(record.feedUrl, "feed URL");
    const owner = await findBlogDocByFeedUrl(blogs, feedUrl);
    if (!owner || refHex(owner._id) === refHex(_id)) {
      try {
        const oldKey = typeof doc.feedKey === "string" ? doc.feedKey : feedUrlKey(String(doc.feedUrl ?? ""));
        const moved = await blogs.findOneAndUpdate(
          filter,
          // The old key is remembered, so lists that still name the old address find this blog.
          {
            $set: { ...set, feedUrl, feedKey: feedUrlKey(feedUrl), movedFrom: String(doc.feedUrl ?? ""), movedAt: set.lastFetchAt },
            $addToSet: { feedKeyAliases: oldKey },
          },
          { returnDocument: "after" },
        );
        return moved ? toBlog(moved) : null;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
  }
  const after = await blogs.findOneAndUpdate(filter, { $set: set }, { returnDocument: "after" });
  return after ? toBlog(after) : null;
}
