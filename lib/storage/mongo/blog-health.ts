import type { Collection, Document, Filter } from "mongodb";
import type { BlogHealthCounts, BlogHealthQuery } from "../types.js";
import { listedBlogFilter, unlistedBlogFilter } from "./blog-queries.js";
import { dateValue } from "./values.js";

/** Blogs whose health conditions mean something: listed and not deleted. */
const WATCHED: Filter<Document> = { status: { $ne: "deleted" }, ...listedBlogFilter() };

/** The filter of a health condition, shared by the list filter and the counts. */
export function healthFilter(condition: "dormant" | "failing" | "moved", query: BlogHealthQuery): Filter<Document> {
  switch (condition) {
    case "dormant":
      return {
        $and: [WATCHED, { lastPostAt: { $type: "date", $lt: dateValue(query.dormantBefore, "dormant cutoff") } }],
      };
    case "failing":
      return {
        $and: [
          WATCHED,
          { status: "error", failingSince: { $type: "date", $lte: dateValue(query.failingSince, "failing cutoff") } },
        ],
      };
    case "moved":
      return { $and: [WATCHED, { movedFrom: { $type: "string" } }] };
  }
}

/** BlogHealthCounts, one count per figure (the status endpoint caches them; see lib/api/status.ts). */
export async function countHealth(blogs: Collection, query: BlogHealthQuery): Promise<BlogHealthCounts> {
  const fetched: Filter<Document> = { $and: [WATCHED, { skipItemFetch: { $ne: true } }, { status: { $ne: "gone" } }] };
  const active = (reason: Filter<Document>): Filter<Document> => ({ $and: [fetched, { status: "active" }, reason] });
  const count = (filter: Filter<Document>) => blogs.countDocuments(filter);
  const dormant = healthFilter("dormant", query);
  const [
    off,
    external,
    pending,
    backoff,
    push,
    server,
    schedule,
    dormantCount,
    failing,
    erroring,
    gone,
    moved,
    healthy,
  ] = await Promise.all([
    count({
      skipItemFetch: { $ne: true },
      status: { $ne: "deleted" },
      $or: [{ status: "gone" }, unlistedBlogFilter()],
    }),
    count({ $and: [WATCHED, { skipItemFetch: true }] }),
    count({ $and: [fetched, { status: "pending" }] }),
    count({ $and: [fetched, { status: "error" }] }),
    count(active({ fetchReason: "push" })),
    count(active({ fetchReason: "server" })),
    count(active({ fetchReason: { $nin: ["push", "server"] } })),
    count(dormant),
    count(healthFilter("failing", query)),
    count({ $and: [WATCHED, { status: "error" }] }),
    count({ status: "gone" }),
    count(healthFilter("moved", query)),
    count({ $and: [WATCHED, { status: "active" }, { $nor: [dormant] }] }),
  ]);
  return {
    freshness: { schedule, server, push, backoff, pending, external, off },
    health: { healthy, dormant: dormantCount, failing, erroring, gone, moved },
  };
}
