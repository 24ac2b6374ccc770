/**
 * Every query the MongoDB adapter makes during syncs, API requests and the
 * admin's blogs pages, recorded by the stand-in and planned against the
 * indexes the adapter creates (test/support/mongo-plans.ts): each one has an
 * index to use, so none scans a collection of 10 000 blogs or 500 000 items.
 * (The stand-in is not MongoDB: this checks the shapes of the queries
 * against the index list, not the server's choices.)
 */
import { makeEveryQuery } from "./every-query.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Collection } from "mongodb";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { startFeedFixture, type FeedFixture } from "../../bench/support/fixture-server.js";
import type { LoggedQuery } from "../support/fake-mongo.js";
import { indexFor, type IndexSpec } from "../support/mongo-plans.js";
import { startTestServer, type TestServer } from "../support/server.js";

const BLOGS = 30;

/** Queries that may scan, with why. */
const SCANS: Array<{ matches: (query: LoggedQuery) => boolean; why: string }> = [
  {
    matches: (query) =>
      query.collection === "blogrollBlogs" &&
      JSON.stringify(query.filter).includes('"$options":"i"') &&
      JSON.stringify(query.filter).includes('"title"'),
    why: "the admin's substring search reads every title (a case-insensitive regular expression can use no index)",
  },
  {
    matches: (query) => query.collection === "blogrollSources" && query.op === "find",
    why: "the sources: the owner's few lists, read whole",
  },
];

/** A query's shape: its collection, operation, fields and operators, without the values. */
function shapeOf(query: LoggedQuery): string {
  const shape = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shape);
    if (value && typeof value === "object" && !(value instanceof Date) && !("_bsontype" in value)) {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          key.startsWith("$") || typeof inner === "object" ? shape(inner) : "?",
        ]),
      );
    }
    return "?";
  };
  return `${query.collection}.${query.op} ${JSON.stringify(shape(query.filter))}${query.sort ? ` sort ${JSON.stringify(query.sort)}` : ""}${query.limit ? " limit" : ""}`;
}

describe("MongoDB query shapes: every query of a sync, the API and the admin has an index (mingo stand-in, not a real MongoDB)", () => {
  let fixture: FeedFixture;
  let server: TestServer;
  const queries: LoggedQuery[] = [];

  before(async () => {
    fixture = await startFeedFixture({ feeds: BLOGS, hosts: 3, delayMs: 0, homePages: true });
    server = await startTestServer("mongo-standin", {}, undefined, { onMongoQuery: (query) => queries.push(query) });
    // What set-up did at start (indexes, one-time conversions of older documents) runs once per process: not counted.
    queries.length = 0;
    await makeEveryQuery(server, fixture, BLOGS);
  });

  after(async () => {
    await server.close();
    await fixture.close();
    await closeParsePool();
  });

  it("the planner tells the shapes apart: a list in index order passes; one sorted on computed keys, or a lone $ne, scans", async () => {
    const indexes = (await (server.collections.get("blogrollBlogs") as Collection).indexes()) as IndexSpec[];
    const publicBlogs = { status: { $nin: ["deleted", "inactive", "gone"] }, hidden: { $ne: true } };
    assert.match(
      String(indexFor({ filter: publicBlogs, sort: { pinned: -1, titleSort: 1, _id: 1 }, limit: 100 }, indexes)),
      /blogs_by_title/,
    );
    // How the list was read before stored sort keys: $addFields, then a $sort of every blog matched.
    assert.equal(indexFor({ filter: publicBlogs, sortsInMemory: true }, indexes), null);
    assert.equal(
      indexFor({ filter: publicBlogs, sort: { _pinnedKey: -1, _titleKey: 1, _id: 1 }, limit: 100 }, indexes),
      null,
    );
    assert.equal(indexFor({ filter: { hidden: true } }, indexes), null, "no index begins with hidden");
    assert.equal(indexFor({ filter: { feedUrl: { $regex: "^https?://a", $options: "i" } } }, indexes), null);
  });

  it("plans every query recorded and finds an index for each but the listed scans", async () => {
    const indexes = new Map<string, IndexSpec[]>();
    for (const name of new Set(queries.map((query) => query.collection))) {
      indexes.set(name, (await (server.collections.get(name) as Collection).indexes()) as IndexSpec[]);
    }
    const scans = new Set<string>();
    for (const query of queries) {
      if (!query.collection.startsWith("blogroll")) continue;
      if (indexFor(query, indexes.get(query.collection) ?? []) !== null) continue;
      if (SCANS.some((scan) => scan.matches(query))) continue;
      scans.add(shapeOf(query));
    }
    assert.ok(queries.length > 100, `queries seen: ${queries.length}`);
    assert.deepEqual([...scans].sort(), []);
  });
});
