import type { Document, Filter, ObjectId } from "mongodb";
import { feedUrlKey } from "../../url/normalise.js";
import { applyEdit } from "../owner-edits.js";
import {
  isListed,
  listedBlog,
  withFeedMetadata,
  withListing,
  withoutOrigin,
  withoutSourceKept,
} from "../provenance.js";
import {
  StorageError,
  type Blog,
  type BlogListQuery,
  type BlogSelection,
  type BlogStore,
  type FetchRecord,
  type Page,
  type UpsertOutcome,
} from "../types.js";
import { checkedEdit, checkedListing, checkedMetadata, fetchChanges } from "./blog-changes.js";
import { countHealth, healthFilter } from "./blog-health.js";
import { sortKeyBackfill } from "./sort-keys.js";
import {
  adminBlogFilter,
  findBlogDocByFeedUrl,
  listedBlogFilter,
  publicBlogFilter,
  refreshBlogItemStats,
  unlistedBlogFilter,
} from "./blog-queries.js";
import type { MongoCollections } from "./collections.js";
import { blogChanges, blogDoc, PUBLIC_BLOG_PROJECTION, toBlog, toPublicBlog } from "./documents.js";
import { guard, isDuplicateKey } from "./errors.js";
import { refHex, type ObjectIds } from "./object-ids.js";
import { blogStatusValue, countValue, dateValue, escapeRegex, textValue } from "./values.js";

/** Attempts of a read-modify-write before it gives up: each retry means another write changed the blog meanwhile. */
const REWRITE_ATTEMPTS = 8;

function listFilter(query: BlogListQuery, ids: ObjectIds): Filter<Document> {
  const and: Filter<Document>[] = [query.visibility === "admin" ? adminBlogFilter() : publicBlogFilter()];
  if (query.category !== undefined) and.push({ category: textValue(query.category, "category") });
  if (query.source !== undefined) and.push({ source: textValue(query.source, "source") });
  if (query.origin !== undefined) {
    and.push({ "origins.id": { $in: ids.refCandidates(textValue(query.origin.id, "origin")) } });
    if (query.origin.shared === true) and.push({ "origins.1": { $exists: true } });
    if (query.origin.shared === false) and.push({ origins: { $size: 1 } });
  }
  if (query.search !== undefined && textValue(query.search, "search") !== "") {
    const pattern = escapeRegex(query.search);
    and.push({
      $or: ["title", "feedUrl", "siteUrl"].map((field) => ({ [field]: { $regex: pattern, $options: "i" } })),
    });
  }
  if (query.status !== undefined) {
    and.push(
      query.status === "hidden"
        ? { hidden: true }
        : query.status === "unlisted"
          ? unlistedBlogFilter()
          : { status: blogStatusValue(query.status) },
    );
  }
  if (query.health !== undefined) and.push(healthFilter(query.health.condition, query.health));
  return { $and: and };
}

/** A bulk action's blogs: by id, or the admin list's filters; never a deleted blog. */
function selectionFilter(selection: BlogSelection, ids: ObjectIds): Filter<Document> {
  if ("ids" in selection) return { $and: [adminBlogFilter(), { _id: { $in: ids.ofList(selection.ids) } }] };
  return listFilter({ ...selection.matching, visibility: "admin" }, ids);
}

/**
 * The blogs list's order, on stored keys (see blogDoc) that the indexes
 * blogs_by_title and blogs_by_recent hold: a page is a walk of the index to
 * its limit, not a sort of every blog.
 */
export function listSort(sort: BlogListQuery["sort"]): Record<string, 1 | -1> {
  return sort === "recent"
    ? { pinned: -1, lastItemAt: -1, lastFetchAt: -1, titleSort: 1, _id: 1 }
    : { pinned: -1, titleSort: 1, _id: 1 };
}

/** BlogStore on the `blogrollBlogs` collection. */
export function createMongoBlogStore(collections: MongoCollections, ids: ObjectIds): BlogStore {
  const { blogs } = collections;
  const sortKeys = sortKeyBackfill(blogs);

  /** A page of blogs.list: the count, then the page's documents (with `projection`: only those fields) decoded by `decode`. */
  async function page<T>(
    query: BlogListQuery,
    projection: Document | null,
    decode: (doc: Document) => T,
  ): Promise<Page<T>> {
    const filter = listFilter(query, ids);
    const limit = countValue(query.limit);
    const offset = countValue(query.offset);
    await sortKeys.backfillSoon();
    const total = await blogs.countDocuments(filter);
    if (limit === 0 || offset >= total) return { items: [], total };
    const docs = await blogs
      .find(filter, projection ? { projection } : {})
      .sort(listSort(query.sort))
      .skip(offset)
      .limit(limit)
      .toArray();
    return { items: docs.map(decode), total };
  }

  async function docById(id: string): Promise<Document | null> {
    const _id = ids.of(id);
    return _id ? blogs.findOne({ _id }) : null;
  }

  /** Gives a document the Microsub plugin wrote its normalised feed key, unless a twin holds it. */
  async function keyLegacyDoc(doc: Document): Promise<void> {
    try {
      await blogs.updateOne(
        { _id: doc._id, feedKey: { $exists: false } },
        { $set: { feedKey: feedUrlKey(String(doc.feedUrl ?? "")) } },
      );
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /**
   * Reads a blog, lets `change` make the new blog of it, and writes the
   * fields that differ, unless another write changed the document meanwhile
   * (each write of ours raises its `rev`): then it reads again and retries.
   * Null when there is no such blog; `change` returning null leaves it as is.
   */
  async function rewrite(_id: ObjectId, change: (blog: Blog, doc: Document) => Blog | null): Promise<Blog | null> {
    for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
      const doc = await blogs.findOne({ _id });
      if (!doc) return null;
      const before = toBlog(doc);
      const after = change(before, doc);
      if (!after) return before;
      const set = blogChanges(before, after, ids);
      if (Object.keys(set).length === 0) return after;
      const result = await blogs.updateOne(
        { _id, rev: typeof doc.rev === "number" ? doc.rev : null },
        { $set: set, $inc: { rev: 1 } },
      );
      if (result.matchedCount === 1) return after;
    }
    throw new StorageError("MongoDB could not store a blog: it kept changing meanwhile");
  }

  async function selectedIds(filter: Filter<Document>): Promise<ObjectId[]> {
    return (await blogs.find(filter).project({ _id: 1 }).toArray()).map((doc) => doc._id);
  }

  /** Rewrites each blog of a filter with `change`; returns the ids of those no origin lists afterwards (deleted ones aside). */
  async function rewriteEach(filter: Filter<Document>, change: (blog: Blog) => Blog): Promise<string[]> {
    const targets: ObjectId[] = (await blogs.find(filter).project({ _id: 1 }).toArray()).map((doc) => doc._id);
    const unlisted: string[] = [];
    for (const _id of targets) {
      const after = await rewrite(_id, change);
      if (after && !isListed(after) && after.status !== "deleted") unlisted.push(after.id);
    }
    return unlisted;
  }

  return {
    list: (query) => guard("list blogs", () => page(query, null, toBlog)),

    listPublic: (query) =>
      guard("list blogs", () => page({ ...query, visibility: "public" }, PUBLIC_BLOG_PROJECTION, toPublicBlog)),

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

    getManyPublic: (blogIds) =>
      guard("read blogs", async () => {
        const objectIds = ids.ofList(blogIds);
        if (objectIds.length === 0) return [];
        const docs = await blogs.find({ _id: { $in: objectIds } }, { projection: PUBLIC_BLOG_PROJECTION }).toArray();
        return docs.map(toPublicBlog);
      }),

    upsertFromSource: (input) =>
      guard("store a blog", async () => {
        const listing = checkedListing(input);
        const now = new Date();
        let doc = await findBlogDocByFeedUrl(blogs, listing.feedUrl);
        if (!doc) {
          const blog = listedBlog(listing, refHex(ids.create()) as string, now);
          try {
            await blogs.insertOne({ ...blogDoc(blog, ids), feedKey: feedUrlKey(blog.feedUrl), rev: 0 });
            return { outcome: "added", blog };
          } catch (error) {
            if (!isDuplicateKey(error)) throw error; // lost a race: another writer added it first
          }
          doc = await findBlogDocByFeedUrl(blogs, listing.feedUrl);
          if (!doc) throw new StorageError("MongoDB could not store a blog");
        }
        if (doc.feedKey === undefined) await keyLegacyDoc(doc);
        let outcome: Exclude<UpsertOutcome, "added"> = "unchanged";
        const blog = await rewrite(doc._id, (before) => {
          const merged = withListing(before, listing, now);
          outcome = merged.outcome;
          return merged.blog;
        });
        if (!blog) throw new StorageError("MongoDB could not store a blog");
        return { outcome, blog };
      }),

    edit: (id, edit) =>
      guard("edit a blog", async () => {
        const _id = ids.of(id);
        if (!_id) return null;
        const checked = checkedEdit(edit);
        let live = true;
        const blog = await rewrite(_id, (before) => {
          live = before.status !== "deleted";
          return live ? applyEdit(before, checked, new Date()) : null;
        });
        return blog && live ? blog : null;
      }),

    softDelete: (id, at = new Date()) =>
      guard("delete a blog", async () => {
        const _id = ids.of(id);
        if (!_id) return false;
        const deletedAt = dateValue(at, "deletion date");
        const result = await blogs.updateOne(
          { _id, status: { $ne: "deleted" } },
          { $set: { status: "deleted", hidden: true, deletedAt, updatedAt: deletedAt }, $inc: { rev: 1 } },
        );
        return result.matchedCount > 0;
      }),

    hideMany: (selection) =>
      guard("hide blogs", async () => {
        // The ids first (for the caller's push subscriptions), then one write; as applyEdit with { hidden: true }.
        const targets = await selectedIds({ $and: [selectionFilter(selection, ids), { hidden: { $ne: true } }] });
        if (targets.length === 0) return [];
        await blogs.updateMany(
          { _id: { $in: targets }, status: { $ne: "deleted" }, hidden: { $ne: true } },
          { $set: { hidden: true, updatedAt: new Date() }, $addToSet: { ownerEdited: "hidden" }, $inc: { rev: 1 } },
        );
        return targets.map((_id) => refHex(_id) as string);
      }),

    softDeleteMany: (selection, at = new Date()) =>
      guard("delete blogs", async () => {
        const deletedAt = dateValue(at, "deletion date");
        const targets = await selectedIds(selectionFilter(selection, ids));
        if (targets.length === 0) return [];
        await blogs.updateMany(
          { _id: { $in: targets }, status: { $ne: "deleted" } },
          { $set: { status: "deleted", hidden: true, deletedAt, updatedAt: new Date() }, $inc: { rev: 1 } },
        );
        return targets.map((_id) => refHex(_id) as string);
      }),

    unlist: (originId, which) =>
      guard("unlist blogs", async () => {
        const now = new Date();
        const origin = textValue(originId, "origin");
        const filter =
          "only" in which
            ? { _id: { $in: ids.ofList(which.only) } }
            : { "origins.id": { $in: ids.refCandidates(origin) }, _id: { $nin: ids.ofList(which.except) } };
        return rewriteEach(filter, (blog) => withoutOrigin(blog, origin, now));
      }),

    detachSource: (sourceId, keep) =>
      guard("detach a source", async () => {
        const now = new Date();
        const source = textValue(sourceId, "sourceId");
        return rewriteEach({ "origins.id": { $in: ids.refCandidates(source) } }, (blog) =>
          // Deleted blogs only forget it: purging them would free their URL for re-creation.
          keep && blog.status !== "deleted" ? withoutSourceKept(blog, source, now) : withoutOrigin(blog, source, now),
        );
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
        const fetchable = { status: { $ne: "deleted" }, skipItemFetch: { $ne: true }, ...listedBlogFilter() };
        const after = options.after;
        const afterId = after ? ids.of(after.id) : null;
        const page = (filter: Filter<Document>, sort: Record<string, 1>, count: number) =>
          blogs
            .find({ ...fetchable, ...filter })
            .sort(sort)
            .limit(count)
            .toArray();
        if (options.everyone) {
          // "Sync now" asks everyone but blogs a server told to wait, and gone ones before their weekly check, by id from the cursor.
          const wanted: Filter<Document> = {
            $and: [
              { $or: [{ waitUntil: null }, { waitUntil: { $lte: at } }] },
              { $or: [{ status: { $ne: "gone" } }, { nextFetchAt: null }, { nextFetchAt: { $lte: at } }] },
            ],
          };
          return (await page(afterId ? { ...wanted, _id: { $gt: afterId } } : wanted, { _id: 1 }, max)).map(toBlog);
        }
        // Never-scheduled blogs first, then those due (a gone blog's weekly check too), each an index range of {nextFetchAt, _id}.
        const docs: Document[] = [];
        if (!after || after.nextFetchAt === null) {
          docs.push(
            ...(await page(
              afterId ? { nextFetchAt: null, _id: { $gt: afterId } } : { nextFetchAt: null },
              { nextFetchAt: 1, _id: 1 },
              max,
            )),
          );
        }
        if (docs.length < max) {
          const afterAt = after?.nextFetchAt ?? null;
          const scheduled: Filter<Document> =
            afterAt && afterId
              ? { $or: [{ nextFetchAt: { $gt: afterAt, $lte: at } }, { nextFetchAt: afterAt, _id: { $gt: afterId } }] }
              : { nextFetchAt: { $lte: at } };
          docs.push(...(await page(scheduled, { nextFetchAt: 1, _id: 1 }, max - docs.length)));
        }
        return docs.map(toBlog);
      }),

    listUnfetchedWithHandle: (afterId, limit) =>
      guard("list unfetched blogs with a fediverse handle", async () => {
        const max = countValue(limit);
        if (max === 0) return [];
        const after = afterId ? ids.of(afterId) : null;
        // The partial index blogs_unfetched_handles: {skipItemFetch, _id} over the blogs with a handle.
        const filter: Filter<Document> = {
          skipItemFetch: true,
          fediverse: { $type: "string" },
          status: { $ne: "deleted" },
          ...listedBlogFilter(),
          ...(after ? { _id: { $gt: after } } : {}),
        };
        return (await blogs.find(filter).sort({ _id: 1 }).limit(max).toArray()).map(toBlog);
      }),

    recordFetch: (id, record) =>
      guard("record a fetch", () => recordFetch(collections, ids, id, checkedMetadata(record))),

    recordHint: (id, hint) =>
      guard("record a push notification's hint", async () => {
        const _id = ids.of(id);
        if (!_id) return;
        await blogs.updateOne({ _id }, { $set: { hintBudgetAt: hint.budgetAt } });
        // Only ever earlier: a blog due sooner (or now, null) keeps its time.
        if (hint.nextFetchAt)
          await blogs.updateOne(
            { _id, nextFetchAt: { $gt: hint.nextFetchAt } },
            { $set: { nextFetchAt: hint.nextFetchAt } },
          );
      }),

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
        const query: Document =
          filter.status === undefined ? adminBlogFilter() : { status: blogStatusValue(filter.status) };
        if (filter.sourcePrefix !== undefined) {
          query.source = { $regex: `^${escapeRegex(textValue(filter.sourcePrefix, "source prefix"))}` };
        }
        return blogs.countDocuments(query);
      }),

    healthCounts: (query) => guard("count blogs by health", () => countHealth(blogs, query)),

    publicTotals: () =>
      guard("count public blogs", async () => {
        const [row] = await blogs
          .aggregate([
            { $match: publicBlogFilter() },
            { $group: { _id: null, blogs: { $sum: 1 }, items: { $sum: { $ifNull: ["$itemCount", 0] } } } },
          ])
          .toArray();
        return { blogs: Number(row?.blogs ?? 0), items: Number(row?.items ?? 0) };
      }),
  };
}

/**
 * Writes a fetch's outcome and what the feed said of itself, unless another
 * write changed the blog meanwhile (then again, from a fresh read). A
 * permanent redirect moves the blog, unless another blog already has that feed.
 */
async function recordFetch(
  collections: MongoCollections,
  ids: ObjectIds,
  id: string,
  record: FetchRecord,
): Promise<Blog | null> {
  const { blogs } = collections;
  const _id = ids.of(id);
  if (!_id) return null;
  let mayMove = record.feedUrl !== undefined;
  for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
    const doc = await blogs.findOne({ _id });
    if (!doc || doc.status === "deleted") return null;
    const filter = { _id, status: { $ne: "deleted" }, rev: typeof doc.rev === "number" ? doc.rev : null };
    let moveTo: string | null = null;
    if (mayMove && record.feedUrl !== doc.feedUrl) {
      const feedUrl = textValue(record.feedUrl, "feed URL");
      const holder = await findBlogDocByFeedUrl(blogs, feedUrl);
      if (!holder || refHex(holder._id) === refHex(_id)) moveTo = feedUrl;
    }
    const before = toBlog(doc);
    const fetched = withFeedMetadata(moveTo ? { ...before, feedUrl: moveTo } : before, record.metadata);
    const { feedUrl: _moved, ...shown } = blogChanges(before, fetched, ids);
    const set = { ...shown, ...fetchChanges(doc, record) };
    let update: Document = { $set: set, $inc: { rev: 1 } };
    if (moveTo) {
      const oldKey = typeof doc.feedKey === "string" ? doc.feedKey : feedUrlKey(String(doc.feedUrl ?? ""));
      update = {
        // The old key is remembered, so lists that still name the old address find this blog.
        $set: {
          ...set,
          feedUrl: moveTo,
          feedKey: feedUrlKey(moveTo),
          movedFrom: String(doc.feedUrl ?? ""),
          movedAt: set.lastFetchAt,
        },
        $addToSet: { feedKeyAliases: oldKey },
        $inc: { rev: 1 },
      };
    }
    try {
      const after = await blogs.findOneAndUpdate(filter, update, { returnDocument: "after" });
      if (after) return toBlog(after);
    } catch (error) {
      if (!moveTo || !isDuplicateKey(error)) throw error;
      mayMove = false; // another blog took that address meanwhile: stay
    }
  }
  throw new StorageError("MongoDB could not record a fetch: the blog kept changing meanwhile");
}
