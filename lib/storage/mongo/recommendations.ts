import type { Document } from "mongodb";
import { feedUrlKey } from "../../url/normalise.js";
import { keptEntries } from "../recommended.js";
import type { BlogBlogroll, BlogrollVia, Recommendation, RecommendationStore, SuggestionCandidate } from "../types.js";
import type { MongoCollections } from "./collections.js";
import { guard } from "./errors.js";
import type { ObjectIds } from "./object-ids.js";
import { dateValue, textValue } from "./values.js";

const toEntry = (doc: Document): Recommendation => ({
  feedUrl: String(doc.feedUrl),
  siteUrl: doc.siteUrl ?? null,
  title: doc.title ?? null,
  description: doc.description ?? null,
});

/**
 * RecommendationStore on the `blogrollRecommendations` collection: one
 * `{ kind: "blogroll", blogId, …, entries: […] }` document per followed blog
 * (entries capped, so a document stays far below MongoDB's 16 MB) and one
 * `{ kind: "dismissed", feedKey }` document per dismissed suggestion.
 */
export function createMongoRecommendationStore(
  { recommendations, blogs }: MongoCollections,
  ids: ObjectIds,
): RecommendationStore {
  return {
    getBlogroll: (blogId) =>
      guard("read a blog's blogroll", async () => {
        const doc = await recommendations.findOne(
          { kind: "blogroll", blogId: textValue(blogId, "blog id") },
          { projection: { entries: 0 } },
        );
        if (!doc) return null;
        return {
          blogId: doc.blogId,
          url: doc.url ?? null,
          via: (doc.via ?? null) as BlogrollVia | null,
          checkedAt: new Date(doc.checkedAt),
          etag: doc.etag ?? null,
          lastModified: doc.lastModified ?? null,
          count: Number(doc.count) || 0,
        } satisfies BlogBlogroll;
      }),

    saveBlogroll: (record, entries) =>
      guard("store a blog's blogroll", async () => {
        const blogId = textValue(record.blogId, "blog id");
        // A blog gone meanwhile (purged) has nothing to record.
        const _id = ids.of(blogId);
        if (!_id || !(await blogs.findOne({ _id }, { projection: { _id: 1 } }))) return;
        const set: Document = {
          url: record.url,
          via: record.via,
          checkedAt: dateValue(record.checkedAt, "check time"),
          etag: record.etag,
          lastModified: record.lastModified,
          count: record.count,
        };
        if (entries) {
          set.entries = keptEntries(entries).map((entry) => ({
            feedKey: entry.key,
            feedUrl: entry.feedUrl,
            siteUrl: entry.siteUrl,
            title: entry.title,
            description: entry.description,
          }));
        }
        await recommendations.updateOne(
          { kind: "blogroll", blogId },
          { $set: set, $setOnInsert: entries ? {} : { entries: [] } },
          { upsert: true },
        );
      }),

    entries: (blogId) =>
      guard("read a blog's recommendations", async () => {
        const doc = await recommendations.findOne(
          { kind: "blogroll", blogId: textValue(blogId, "blog id") },
          { projection: { entries: 1 } },
        );
        return Array.isArray(doc?.entries) ? doc.entries.map(toEntry) : [];
      }),

    candidates: ({ minRecommenders, limit }) =>
      guard("list suggestions", async () => {
        // Feed keys the owner has (aliases of moved feeds too) or dismissed are never candidates.
        const excluded = new Set<string>();
        for await (const blog of blogs.find({}, { projection: { feedKey: 1, feedKeyAliases: 1 } })) {
          if (typeof blog.feedKey === "string") excluded.add(blog.feedKey);
          for (const alias of Array.isArray(blog.feedKeyAliases) ? blog.feedKeyAliases : []) excluded.add(alias);
        }
        for await (const doc of recommendations.find({ kind: "dismissed" }, { projection: { feedKey: 1 } }))
          excluded.add(doc.feedKey);
        const groups = await recommendations
          .aggregate([
            { $match: { kind: "blogroll" } },
            { $unwind: "$entries" },
            { $match: { "entries.feedKey": { $nin: [...excluded] } } },
            {
              $group: {
                _id: "$entries.feedKey",
                // One entry per blog and feed key (saveBlogroll drops repeats): one outline per recommender.
                outlines: {
                  $push: {
                    blogId: "$blogId",
                    feedUrl: "$entries.feedUrl",
                    siteUrl: "$entries.siteUrl",
                    title: "$entries.title",
                    description: "$entries.description",
                  },
                },
              },
            },
            { $addFields: { count: { $size: "$outlines" } } },
            { $match: { count: { $gte: Math.max(1, Math.floor(minRecommenders)) } } },
            { $sort: { count: -1, _id: 1 } },
            { $limit: Math.max(1, Math.floor(limit)) },
          ])
          .toArray();
        return groups.map((group): SuggestionCandidate => ({
          outlines: (group.outlines as Document[])
            .map((outline) => ({ ...toEntry(outline), blogId: String(outline.blogId) }))
            .sort((a, b) => (a.blogId < b.blogId ? -1 : a.blogId > b.blogId ? 1 : 0)),
        }));
      }),

    dismiss: (feedUrl, at = new Date()) =>
      guard("dismiss a suggestion", async () => {
        const feedKey = feedUrlKey(textValue(feedUrl, "feed address"));
        await recommendations.updateOne(
          { kind: "dismissed", feedKey },
          { $setOnInsert: { feedUrl, dismissedAt: dateValue(at, "time") } },
          { upsert: true },
        );
      }),
  };
}
