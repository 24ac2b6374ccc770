import type { AnyBulkWriteOperation, Document, Filter, ObjectId } from "mongodb";
import { StorageError, type Item, type ItemListQuery, type ItemStore, type NewItem } from "../types.js";
import { notPublicBlogFilter, publicBlogFilter, refreshBlogItemStats } from "./blog-queries.js";
import type { MongoCollections } from "./collections.js";
import { hexId, toItem } from "./documents.js";
import { guard } from "./errors.js";
import type { ObjectIds } from "./object-ids.js";
import { countValue, dateValue, optionalTextValue, textValue } from "./values.js";
import { futureHorizon } from "../future.js";

/** Newest first; undated items (null/missing) sort after dated ones in a descending sort. */
const NEWEST_FIRST = { published: -1, _id: -1 } as const;
/** Blogs whose latest items are read at once by latestByBlog. */
const READS_AT_ONCE = 50;
/** The index of each blog's items, newest first (setup.ts creates it). */
export const BLOG_NEWEST_INDEX = { blogId: 1, published: -1, _id: -1 } as const;

/** The stored fields of an item; `fetchedAt` is set on insert only (first seen). */
function itemFields(item: NewItem): Document {
  const published = item.published instanceof Date && !Number.isNaN(item.published.getTime()) ? item.published : null;
  return {
    url: optionalTextValue(item.url, "item url"),
    title: optionalTextValue(item.title, "item title"),
    summary: optionalTextValue(item.summary, "item summary"),
    content: optionalTextValue(item.content, "item content"),
    published,
    author: optionalTextValue(item.author, "item author"),
    photo: optionalTextValue(item.photo, "item photo"),
    categories: Array.isArray(item.categories)
      ? item.categories.map((category) => textValue(category, "item category"))
      : [],
  };
}

/** ItemStore on the `blogrollItems` collection. */
export function createMongoItemStore(collections: MongoCollections, ids: ObjectIds): ItemStore {
  const { items, blogs } = collections;

  function blogObjectId(blogId: unknown): ObjectId {
    const _id = ids.of(blogId);
    if (!_id) throw new StorageError("Invalid blog id");
    return _id;
  }

  /** Which blogs' items a list may show: one blog, or the publicly visible ones (of a category). */
  async function listScope(query: ItemListQuery): Promise<Filter<Document> | null> {
    const category = query.category === undefined ? undefined : textValue(query.category, "category");
    if (query.blogId !== undefined) {
      const blogId = ids.of(query.blogId);
      if (!blogId) return null;
      if (category !== undefined && !(await blogs.findOne({ _id: blogId, category }, { projection: { _id: 1 } })))
        return null;
      return { blogId };
    }
    if (category === undefined) {
      // Few blogs are not public (hidden, unlisted, gone, deleted): leaving those out keeps the query
      // small however many blogs there are, and the newest-first index walk stops at the page.
      const unseen = (await blogs.find(notPublicBlogFilter()).project({ _id: 1 }).toArray()).map((doc) => doc._id);
      return unseen.length === 0 ? {} : { blogId: { $nin: unseen } };
    }
    const shown = (
      await blogs
        .find({ $and: [publicBlogFilter(), { category }] })
        .project({ _id: 1 })
        .toArray()
    ).map((doc) => doc._id);
    return shown.length === 0 ? null : { blogId: { $in: shown } };
  }

  async function refreshStats(blogIds: Iterable<ObjectId>): Promise<void> {
    for (const blogId of blogIds) await refreshBlogItemStats(collections, blogId);
  }

  /** One blog's newest items in list order: dated up to a day ahead, then further ahead, then undated, each from its index. */
  async function blogNewest(blogId: ObjectId, wanted: number, horizon: Date): Promise<Document[]> {
    const docs: Document[] = [];
    for (const part of [{ published: { $lte: horizon } }, { published: { $gt: horizon } }, { published: null }]) {
      if (docs.length >= wanted) break;
      docs.push(
        ...(await items
          .find({ blogId, ...part }, { hint: BLOG_NEWEST_INDEX })
          .sort(NEWEST_FIRST)
          .limit(wanted - docs.length)
          .toArray()),
      );
    }
    return docs;
  }

  /** Upserts by (blog, uid) in one bulk write. */
  async function upsert(blogId: string, list: NewItem[], fetchedAt: Date): Promise<{ added: number; updated: number }> {
    const _id = blogObjectId(blogId);
    const firstSeen = dateValue(fetchedAt, "fetch time");
    // One operation per uid (the last copy wins), so the batch cannot collide with itself.
    const byUid = new Map<string, NewItem>();
    for (const item of list) byUid.set(textValue(item.uid, "item uid"), item);
    if (byUid.size === 0) return { added: 0, updated: 0 };
    const operations: AnyBulkWriteOperation[] = [...byUid].map(([uid, item]) => ({
      updateOne: {
        filter: { blogId: _id, uid },
        update: { $set: itemFields(item), $setOnInsert: { fetchedAt: firstSeen } },
        upsert: true,
      },
    }));
    const result = await items.bulkWrite(operations, { ordered: false });
    return { added: result.upsertedCount, updated: result.modifiedCount };
  }

  /** Deletes a blog's items past its newest `keep`, refreshing its stats when any go. */
  async function trim(blogId: string, keep: number): Promise<number> {
    const _id = blogObjectId(blogId);
    const surplus = await items
      .find({ blogId: _id })
      .sort(NEWEST_FIRST)
      .skip(countValue(keep))
      .project({ _id: 1 })
      .toArray();
    if (surplus.length === 0) return 0;
    const { deletedCount } = await items.deleteMany({ _id: { $in: surplus.map((doc) => doc._id) } });
    await refreshStats([_id]);
    return deletedCount;
  }

  return {
    upsertMany: (blogId, list, fetchedAt) => guard("store items", () => upsert(blogId, list, fetchedAt)),

    store: (blogId, list, fetchedAt, keep) =>
      guard("store items", async () => {
        const { added, updated } = await upsert(blogId, list, fetchedAt);
        const trimmed = await trim(blogId, keep);
        // A trim that deleted has refreshed the stats already.
        if (trimmed === 0) await refreshStats([blogObjectId(blogId)]);
        return { added, updated, trimmed };
      }),

    list: (query) =>
      guard("list items", async () => {
        const limit = countValue(query.limit);
        if (limit === 0) return [];
        const scope = await listScope(query);
        if (!scope) return [];
        // Dated up to a day ahead, then dated further ahead, then undated: each part in index order,
        // counted only when the page starts past it.
        let skip = countValue(query.offset);
        const horizon = futureHorizon();
        const parts: Filter<Document>[] = [
          { published: { $lte: horizon } },
          { published: { $gt: horizon } },
          { published: null },
        ];
        // A category is read from its blogs' newest-first index (a merge of one range per blog), never by walking every item.
        const findOptions = {
          ...(query.category !== undefined && query.blogId === undefined ? { hint: BLOG_NEWEST_INDEX } : {}),
          // Answers that never send the content do not read it (a post's largest field).
          ...(query.content === false ? { projection: { content: 0 } } : {}),
        };
        const docs: Document[] = [];
        for (const part of parts) {
          const wanted = limit - docs.length;
          if (wanted <= 0) break;
          const filter = { $and: [scope, part] };
          const found = await items.find(filter, findOptions).sort(NEWEST_FIRST).skip(skip).limit(wanted).toArray();
          docs.push(...found);
          if (found.length > 0) skip = 0;
          else if (skip > 0) skip = Math.max(0, skip - (await items.countDocuments(filter)));
        }
        return docs.map(toItem);
      }),

    latestByBlog: (blogIds, perBlog) =>
      guard("list blogs' latest items", async () => {
        const latest = new Map<string, Item[]>();
        const wanted = countValue(perBlog);
        const horizon = futureHorizon();
        const known = [...new Set(blogIds)].flatMap((id) => {
          const _id = ids.of(id);
          return _id ? [{ id, _id }] : [];
        });
        // A few reads in flight at a time: each is an indexed read of a few documents.
        for (let start = 0; wanted > 0 && start < known.length; start += READS_AT_ONCE) {
          const batch = known.slice(start, start + READS_AT_ONCE);
          const found = await Promise.all(batch.map(({ _id }) => blogNewest(_id, wanted, horizon)));
          batch.forEach(({ id }, index) => {
            if (found[index].length > 0) latest.set(id, found[index].map(toItem));
          });
        }
        return latest;
      }),

    pruneOlderThan: (cutoff) =>
      guard("remove old items", async () => {
        const before = dateValue(cutoff, "cutoff");
        // Undated items age by when they were first fetched; future-dated ones stay.
        const filter = { $or: [{ published: { $lt: before } }, { published: null, fetchedAt: { $lt: before } }] };
        const doomed = await items.find(filter).project({ _id: 1, blogId: 1 }).toArray();
        if (doomed.length === 0) return { deleted: 0, blogIds: [] };
        const { deletedCount } = await items.deleteMany({ _id: { $in: doomed.map((doc) => doc._id) } });
        const touched = new Map<string, ObjectId>();
        for (const doc of doomed) touched.set(hexId(doc.blogId), doc.blogId);
        await refreshStats(touched.values());
        return { deleted: deletedCount, blogIds: [...touched.keys()] };
      }),

    deleteAll: () =>
      guard("remove all items", async () => {
        const { deletedCount } = await items.deleteMany({});
        await blogs.updateMany({}, { $set: { itemCount: 0, lastItemAt: null } });
        return deletedCount;
      }),

    // From the collection's metadata: counting every document would read them all (the figure may lag a crash; it is a dashboard figure).
    count: () => guard("count items", () => items.estimatedDocumentCount()),
  };
}
