import type { Document, Filter, ObjectId } from "mongodb";
import { feedUrlKey } from "../../url/normalise.js";
import type { MongoCollections } from "./collections.js";
import { escapeRegex } from "./values.js";
import { futureHorizon } from "../future.js";

/**
 * Blogs some origin lists. Documents without origins (the Microsub plugin's
 * own follows) count as listed: they are read with the owner as origin.
 */
export function listedBlogFilter(): Filter<Document> {
  return { origins: { $not: { $size: 0 } } };
}

/** The complement of listedBlogFilter. */
export function unlistedBlogFilter(): Filter<Document> {
  return { origins: { $size: 0 } };
}

/** Blogs anyone may see: listed, not hidden, not deleted, not gone. */
export function publicBlogFilter(): Filter<Document> {
  return { status: { $nin: ["deleted", "gone"] }, hidden: { $ne: true }, ...listedBlogFilter() };
}

/**
 * The complement of publicBlogFilter, each branch a range of an index (a
 * bare `hidden` or `origins: { $size: 0 }` would read every blog): the
 * {status, hidden} index, and {origins.id}, whose null entries are the blogs
 * with no origin id (an empty list keys as null; the empty lists are the
 * unlisted ones, the documents without origins are the Microsub plugin's).
 */
export function notPublicBlogFilter(): Filter<Document> {
  return {
    $or: [
      { status: { $in: ["deleted", "gone"] } },
      { status: { $nin: ["deleted", "gone"] }, hidden: true },
      { "origins.id": { $exists: false }, ...unlistedBlogFilter() },
    ],
  };
}

/** Blogs the admin sees: everything but soft-deleted ones. */
export function adminBlogFilter(): Filter<Document> {
  return { status: { $ne: "deleted" } };
}

/** The host part of a feed key (`host[:port]`), used to narrow a scan. */
function hostOfKey(key: string): string {
  const end = key.search(/[/?]/);
  return end === -1 ? key : key.slice(0, end);
}

/**
 * The blog document for a feed URL, matched by normalised key. Documents we
 * wrote carry `feedKey`; documents the Microsub plugin wrote only have
 * `feedUrl`, so those of the same host are read and compared by key here.
 * Last, a blog that a permanent redirect moved keeps its old keys in
 * `feedKeyAliases`: a list naming the old address finds it there.
 */
export async function findBlogDocByFeedUrl(
  blogs: MongoCollections["blogs"],
  feedUrl: string,
): Promise<Document | null> {
  const key = feedUrlKey(feedUrl);
  const keyed = await blogs.findOne({ feedKey: key }, { sort: { _id: 1 } });
  if (keyed) return keyed;
  const host = hostOfKey(key);
  const hostPattern = `^https?://${escapeRegex(host).replace(/:\d+$/, "")}(?::\\d+)?(?:[/?#]|$)`;
  // Only documents without a key are read (index feedKey_feedUrl), never every blog.
  const candidates = await blogs
    .find({ feedKey: { $exists: false }, feedUrl: { $regex: hostPattern, $options: "i" } })
    .sort({ _id: 1 })
    .toArray();
  const legacy = candidates.find((doc) => typeof doc.feedUrl === "string" && feedUrlKey(doc.feedUrl) === key);
  if (legacy) return legacy;
  // The blog a permanent redirect moved away from this address, if any.
  return blogs.findOne({ feedKeyAliases: key }, { sort: { _id: 1 } });
}

/** Recomputes a blog's itemCount and lastItemAt (newest published) from its items. */
export async function refreshBlogItemStats(collections: MongoCollections, blogId: ObjectId): Promise<void> {
  const itemCount = await collections.items.countDocuments({ blogId });
  const [newest] = await collections.items
    // A post dated more than a day ahead does not make the blog "recent" for months.
    .find({ blogId, published: { $type: "date", $lte: futureHorizon() } })
    .sort({ published: -1 })
    .limit(1)
    .project({ published: 1 })
    .toArray();
  await collections.blogs.updateOne({ _id: blogId }, { $set: { itemCount, lastItemAt: newest?.published ?? null } });
}
