import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { BSON, MongoClient, ObjectId, type Collection, type Document } from "mongodb";
import {
  connectMongoStorage,
  createMongoStorage,
  databaseNameFromUrl,
  MONGO_COLLECTION_NAMES,
  type MongoCollections,
} from "../../lib/storage/mongo/index.js";
import { OWNER_ORIGIN, StorageError, type Storage } from "../../lib/storage/types.js";
import { BSON6, createFakeDb, type BsonLibrary } from "../support/fake-mongo.js";
import { microsubFollow } from "../support/microsub-follow.js";
import { runStorageContract } from "./contract.js";
import { runLiveEventContract } from "./live-events-contract.js";
import { checkMigrated, LEGACY_CASES, legacyFeedUrl, type LegacySourceName } from "./legacy-blogs.js";

const FAKE = "mongodb adapter on mingo in-memory stand-in (not a real MongoDB server)";
const REAL = "mongodb adapter on a real MongoDB server (MONGODB_URL)";
const mongodbUrl = process.env.MONGODB_URL;

/** An ObjectId class of one BSON library (bson 7 of the plugin's and Indiekit's driver, or bson 6 of older Indiekit's). */
type ObjectIdClass = new (hex?: string) => ObjectId;

/** One set of collections, the ObjectId class of the driver that owns them, and a way to throw them away. */
interface Backend {
  collections: MongoCollections;
  ObjectId: ObjectIdClass;
  dispose(): Promise<void>;
}

function collectionsOf(db: { collection(name: string): Collection }): MongoCollections {
  return {
    sources: db.collection(MONGO_COLLECTION_NAMES.sources),
    blogs: db.collection(MONGO_COLLECTION_NAMES.blogs),
    items: db.collection(MONGO_COLLECTION_NAMES.items),
    meta: db.collection(MONGO_COLLECTION_NAMES.meta),
    push: db.collection(MONGO_COLLECTION_NAMES.push),
    recommendations: db.collection(MONGO_COLLECTION_NAMES.recommendations),
    events: db.collection(MONGO_COLLECTION_NAMES.events),
  };
}

/** The stand-in playing a driver built on `bson`: documents and filters go through its serializer. */
function fakeBackend(bson: BsonLibrary & { ObjectId: ObjectIdClass }): () => Promise<Backend> {
  return async () => ({
    collections: collectionsOf(createFakeDb({ bson })),
    ObjectId: bson.ObjectId,
    dispose: async () => undefined,
  });
}

/** A fresh database on the real server, dropped by `dispose`. */
async function realBackend(): Promise<Backend> {
  const client = new MongoClient(mongodbUrl as string);
  await client.connect();
  const db = client.db(`blogroll_test_${randomBytes(6).toString("hex")}`);
  return {
    collections: collectionsOf(db),
    ObjectId,
    dispose: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

function storageOn(backend: Backend): Storage {
  return createMongoStorage(backend.collections, { close: () => backend.dispose() });
}

// bson 7 is the plugin's own driver (its own MongoClient) and Indiekit's since
// 1.0.0-beta.25; bson 6 is the driver of Indiekit up to 1.0.0-beta.24. The host
// hands the plugin collections of its driver.
const backends: Array<[string, () => Promise<Backend>]> = [
  [`${FAKE}, BSON 6 serializer (the mongodb 6 driver of Indiekit up to 1.0.0-beta.24)`, fakeBackend(BSON6)],
  [`${FAKE}, BSON 7 serializer (mongodb 7: Indiekit's since 1.0.0-beta.25, and the plugin's own)`, fakeBackend(BSON)],
];
if (mongodbUrl) backends.push([REAL, realBackend]);
console.log(`storage backends run: ${backends.map(([name]) => name).join("; ")}`);
if (!mongodbUrl) console.log(`skipped: ${REAL} — MONGODB_URL is not set`);

for (const [name, makeBackend] of backends) {
  runStorageContract(name, async () => storageOn(await makeBackend()));
  runLiveEventContract(name, async () => storageOn(await makeBackend()));
  describe(`${name}: MongoDB specifics`, () => mongoSpecifics(makeBackend));
}

/** Runs a test body on a fresh, initialised storage and its raw collections. */
function withStorage(
  makeBackend: () => Promise<Backend>,
  body: (storage: Storage, raw: MongoCollections, backend: Backend) => Promise<void>,
) {
  return async () => {
    const backend = await makeBackend();
    const storage = storageOn(backend);
    try {
      await storage.init();
      await body(storage, backend.collections, backend);
    } finally {
      await storage.close();
    }
  };
}

/** The Microsub plugin's follow of one feed in its channel "Friends". */
const followed = (feedId: unknown, channelId: unknown) => ({
  feedUrl: "https://followed.example/feed.xml",
  title: "Followed in Microsub",
  siteUrl: "https://followed.example/",
  channel: "Friends",
  feedId,
  channelId,
});

function mongoSpecifics(makeBackend: () => Promise<Backend>): void {
  it(
    "lists a blog the Microsub plugin wrote (no stored sort key) in title order among the others",
    withStorage(makeBackend, async (storage, raw, backend) => {
      await storage.blogs.upsertFromSource({ feedUrl: "https://alpha.example/feed", title: "alpha", source: "manual" });
      await storage.blogs.upsertFromSource({ feedUrl: "https://zulu.example/feed", title: "Zulu", source: "manual" });
      await microsubFollow(raw.blogs, followed(new backend.ObjectId(), new backend.ObjectId()));
      assert.equal((await raw.blogs.findOne({ feedUrl: "https://followed.example/feed.xml" }))?.titleSort, undefined);
      const titles = async () =>
        (await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).items.map((blog) => blog.title);
      assert.deepEqual(await titles(), ["alpha", "Followed in Microsub", "Zulu"]);
      assert.equal(
        (await raw.blogs.findOne({ feedUrl: "https://followed.example/feed.xml" }))?.titleSort,
        "followed in microsub",
        "given its key",
      );
    }),
  );

  it(
    "keeps the stored title sort key with the title on every write: a listing, a fetch, an origin gone, an edit",
    withStorage(makeBackend, async (storage, raw, backend) => {
      const keyed = async (id: string, title: string) => {
        const doc = await raw.blogs.findOne({ _id: new backend.ObjectId(id) });
        assert.deepEqual([doc?.title, doc?.titleSort], [title, title.toLowerCase()]);
      };
      const sourceA = String(new backend.ObjectId());
      const sourceB = String(new backend.ObjectId());
      const feedUrl = "https://keys.example/feed";
      const { blog } = await storage.blogs.upsertFromSource({
        feedUrl,
        title: "Listed By A",
        source: "opml",
        sourceId: sourceA,
      });
      await keyed(blog.id, "Listed By A");
      await storage.blogs.upsertFromSource({ feedUrl, source: "opml", sourceId: sourceB });
      const fetched = { at: new Date(), status: "active" as const, error: null, nextFetchAt: null, failureCount: 0 };
      await storage.blogs.recordFetch(blog.id, { ...fetched, metadata: { title: "The Feed's Own Title" } });
      await keyed(blog.id, "Listed By A");
      // A's list drops it: the title now comes from the feed (B's listing names none).
      await storage.blogs.unlist(sourceA, { only: [blog.id] });
      await keyed(blog.id, "The Feed's Own Title");
      await storage.blogs.recordFetch(blog.id, { ...fetched, metadata: { title: "Renamed Feed" } });
      await keyed(blog.id, "Renamed Feed");
      await storage.blogs.edit(blog.id, { title: "ÉDITED By Owner", pinned: true });
      await keyed(blog.id, "ÉDITED By Owner");
      assert.equal((await raw.blogs.findOne({ _id: new backend.ObjectId(blog.id) }))?.pinned, true);
    }),
  );

  it(
    "reads and updates a blog the Microsub plugin wrote directly, in its shape",
    withStorage(makeBackend, async (storage, raw, backend) => {
      const feedId = new backend.ObjectId();
      const channelId = new backend.ObjectId();
      await microsubFollow(raw.blogs, followed(feedId, channelId));

      const blog = await storage.blogs.getByFeedUrl("http://FOLLOWED.example/feed.xml/");
      assert.ok(blog, "found by normalised key although the document has no key field");
      assert.match(blog.id, /^[0-9a-f]{24}$/);
      assert.equal(blog.microsubFeedId, feedId.toHexString());
      assert.equal(blog.microsubChannelId, channelId.toHexString());
      assert.equal(blog.status, "active");
      assert.equal(blog.skipItemFetch, true);
      assert.deepEqual(
        blog.origins.map((origin) => [origin.id, origin.kind, origin.values]),
        [[OWNER_ORIGIN, "microsub", { category: "Friends" }]],
        "the owner follows it in Microsub, filed under the channel",
      );
      assert.equal(blog.title, "Followed in Microsub");
      assert.deepEqual(blog.ownerEdited, []);
      assert.equal(blog.failureCount, 0);
      assert.equal(blog.nextFetchAt, null);
      assert.equal(blog.etag, null);
      assert.ok(blog.createdAt instanceof Date);
      assert.deepEqual(
        (await storage.blogs.list({ visibility: "public", limit: 10, offset: 0 })).items.map((b) => b.id),
        [blog.id],
      );
      assert.deepEqual(await storage.blogs.listDue(new Date(), 10), [], "Microsub blogs are never fetched");

      // An OPML source listing the same feed joins it instead of adding a twin.
      const source = await storage.sources.create({ type: "opml_url", name: "list" });
      const joined = await storage.blogs.upsertFromSource({
        feedUrl: "https://followed.example/feed.xml",
        title: "Followed in Microsub",
        source: "opml",
        sourceId: source.id,
      });
      assert.equal(joined.outcome, "updated");
      assert.equal(joined.blog.id, blog.id);
      assert.equal(joined.blog.source, "microsub", "the first origin's kind");
      assert.deepEqual(
        joined.blog.origins.map((origin) => origin.id),
        [OWNER_ORIGIN, source.id],
      );
      assert.equal(joined.blog.title, "Followed in Microsub");

      // The plugin's next follow still upserts the same document; its unfollow soft-deletes it.
      await microsubFollow(raw.blogs, followed(feedId, channelId));
      assert.equal(await raw.blogs.countDocuments({}), 1);
      await raw.blogs.updateOne(
        { feedUrl: "https://followed.example/feed.xml", source: "microsub" },
        { $set: { status: "deleted", hidden: true, deletedAt: new Date() } },
      );
      const resync = await storage.blogs.upsertFromSource({
        feedUrl: "https://followed.example/feed.xml",
        title: "Again",
        source: "opml",
        sourceId: source.id,
      });
      assert.equal(resync.outcome, "skipped-deleted");
      assert.equal((await storage.blogs.list({ visibility: "admin", limit: 10, offset: 0 })).total, 0);
    }),
  );

  it(
    "gives blogs stored with source ids their origins (an inactive status back its feed's), once, and stores origins with the driver's ObjectIds",
    withStorage(makeBackend, async (storage, raw, backend) => {
      const created = new Date("2025-01-01T00:00:00.000Z");
      const sourceIds = {
        opml: new backend.ObjectId(),
        feedland: new backend.ObjectId(),
        gone: new backend.ObjectId(),
      };
      await raw.sources.insertOne({
        _id: sourceIds.opml,
        type: "opml_url",
        name: "A list",
        etag: '"v1"',
        lastModified: "Wed, 01 Jan 2025 00:00:00 GMT",
        createdAt: created,
      });
      await raw.sources.insertOne({
        _id: sourceIds.feedland,
        type: "feedland",
        name: "FeedLand",
        etag: '"v2"',
        createdAt: created,
      });
      for (const [index, legacy] of LEGACY_CASES.entries()) {
        const ids = legacy.sourceIds.map((name) => sourceIds[name]);
        // The earlier plugin kept one `sourceId`; later code a list beside it.
        const recorded =
          ids.length > 1 || index % 2 === 0
            ? { sourceId: ids[0] ?? null, sourceIds: ids }
            : { sourceId: ids[0] ?? null };
        await raw.blogs.insertOne({
          feedUrl: legacyFeedUrl(index),
          title: legacy.title,
          category: legacy.category,
          status: legacy.status,
          hidden: legacy.ownerEdited.includes("hidden"),
          source: legacy.source,
          ownerEdited: legacy.ownerEdited,
          lastFetchAt: created,
          createdAt: created,
          ...recorded,
        });
      }
      await storage.init();
      const hex = Object.fromEntries(Object.entries(sourceIds).map(([name, id]) => [name, id.toHexString()])) as Record<
        LegacySourceName,
        string
      >;
      await checkMigrated(storage, hex);
      assert.equal(
        await raw.blogs.countDocuments({ $or: [{ sourceId: { $exists: true } }, { sourceIds: { $exists: true } }] }),
        0,
        "the older fields are gone",
      );
      const shared = (await raw.blogs.findOne({ feedUrl: legacyFeedUrl(3) })) as Document;
      assert.ok(shared.origins[0].id instanceof backend.ObjectId && shared.origins[0].since instanceof Date);

      // Once: a second start changes nothing, and a source's validators stay.
      await raw.sources.updateOne({ _id: sourceIds.opml }, { $set: { etag: '"v3"' } });
      await storage.init();
      assert.equal((await storage.sources.get(hex.opml))?.etag, '"v3"');
      await checkMigrated({ ...storage, sources: { ...storage.sources, list: async () => [] } }, hex);
    }),
  );

  it(
    "a restart keeps schedules; blogs from before schedules take their newest stored post and failure as a start, and get empty owner fields",
    withStorage(makeBackend, async (storage, raw, backend) => {
      const { blog } = await storage.blogs.upsertFromSource({
        feedUrl: "https://kept.example/feed",
        title: "K",
        source: "manual",
      });
      const posts = [new Date("2026-01-02T00:00:00.000Z"), new Date("2026-01-01T00:00:00.000Z")];
      const waitUntil = new Date("2026-01-03T00:00:00.000Z");
      await storage.blogs.recordFetch(blog.id, {
        at: new Date("2026-01-02T12:00:00.000Z"),
        status: "error",
        nextFetchAt: waitUntil,
        failureCount: 1,
        schedule: { recentPosts: posts, fetchInterval: 3_600_000, fetchReason: "retry-after", waitUntil },
      });
      await storage.blogs.recordHint(blog.id, { budgetAt: waitUntil });
      const legacyId = new backend.ObjectId();
      const lastItemAt = new Date("2025-06-01T00:00:00.000Z");
      await raw.blogs.insertOne({
        _id: legacyId,
        feedUrl: "https://legacy.example/feed",
        title: "L",
        status: "error",
        lastItemAt,
        lastFetchAt: waitUntil,
      });

      const restarted = storageOn(backend);
      await restarted.init();
      const kept = (await restarted.blogs.get(blog.id))!;
      assert.deepEqual(kept.recentPosts, posts);
      assert.deepEqual(
        [kept.lastPostAt, kept.fetchInterval, kept.fetchReason, kept.waitUntil],
        [posts[0], 3_600_000, "retry-after", waitUntil],
      );
      assert.deepEqual(kept.failingSince, new Date("2026-01-02T12:00:00.000Z"));
      assert.deepEqual(kept.hintBudgetAt, waitUntil, "the push hint budget outlives a restart");
      const legacy = (await restarted.blogs.get(legacyId.toHexString()))!;
      assert.deepEqual([legacy.lastPostAt, legacy.failingSince, legacy.recentPosts], [lastItemAt, waitUntil, []]);
      assert.deepEqual(
        [legacy.relationship, legacy.note, legacy.fediverse, legacy.fediverseUrl],
        [[], null, null, null],
      );
      assert.equal(legacy.hintBudgetAt, null, "no hint taken yet");
      const legacyDoc = (await raw.blogs.findOne({ _id: legacyId })) as Document;
      assert.deepEqual(
        [legacyDoc.relationship, legacyDoc.note, legacyDoc.fediverse, legacyDoc.fediverseUrl],
        [[], null, null, null],
        "the owner's fields are filled in on the document",
      );
    }),
  );

  it(
    "a start untypes a title stored as the owner's that is only the host name, and drops its validators; other typed titles stay",
    withStorage(makeBackend, async (_storage, raw, backend) => {
      const saved = new backend.ObjectId();
      const moved = new backend.ObjectId();
      const named = new backend.ObjectId();
      const base = {
        status: "active",
        etag: '"v1"',
        lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
        createdAt: new Date(),
        updatedAt: new Date(),
      };
      await raw.blogs.insertMany([
        {
          ...base,
          _id: saved,
          feedUrl: "https://www.saved.example/feed",
          title: "saved.example",
          ownerEdited: ["title", "tags"],
          tags: ["t"],
        },
        {
          ...base,
          _id: moved,
          feedUrl: "https://new.example/feed",
          movedFrom: "https://old.example/feed",
          title: "old.example",
          ownerEdited: ["title"],
        },
        { ...base, _id: named, feedUrl: "https://named.example/feed", title: "My Friend", ownerEdited: ["title"] },
      ]);
      const restarted = storageOn(backend);
      await restarted.init();
      await restarted.init();
      const read = async (id: typeof saved) => (await restarted.blogs.get(id.toHexString()))!;
      assert.deepEqual(
        [(await read(saved)).ownerEdited, (await read(saved)).etag, (await read(saved)).lastModified],
        [["tags"], null, null],
      );
      assert.deepEqual((await read(moved)).ownerEdited, []);
      assert.deepEqual(
        [(await read(named)).ownerEdited, (await read(named)).etag],
        [["title"], '"v1"'],
        "a title the owner really typed stays",
      );
    }),
  );

  it(
    "stores dates as BSON Date values and ids as the driver's own ObjectIds in every collection",
    withStorage(makeBackend, async (storage, raw, backend) => {
      const { blog } = await storage.blogs.upsertFromSource({
        feedUrl: "https://dates.example/feed",
        title: "D",
        source: "manual",
      });
      await storage.blogs.recordFetch(blog.id, {
        at: new Date(),
        status: "active",
        nextFetchAt: new Date(Date.now() + 60_000),
        failureCount: 0,
      });
      await storage.items.upsertMany(
        blog.id,
        [
          {
            uid: "a",
            url: null,
            title: "A",
            summary: null,
            content: null,
            published: new Date("2024-01-02T03:04:05.678Z"),
            author: null,
            photo: null,
            categories: [],
          },
        ],
        new Date(),
      );
      await storage.blogs.refreshItemStats(blog.id);
      await storage.sources.update((await storage.sources.create({ type: "manual", name: "m" })).id, {
        lastSyncAt: new Date(),
      });

      const blogDoc = (await raw.blogs.findOne({ _id: new backend.ObjectId(blog.id) })) as Document;
      assert.ok(blogDoc._id instanceof backend.ObjectId);
      for (const field of ["createdAt", "updatedAt", "lastFetchAt", "nextFetchAt", "lastItemAt"]) {
        assert.ok(blogDoc[field] instanceof Date, `blog ${field}`);
      }
      const itemDoc = (await raw.items.findOne({})) as Document;
      assert.ok(itemDoc.blogId instanceof backend.ObjectId);
      assert.ok(itemDoc.published instanceof Date && itemDoc.fetchedAt instanceof Date);
      assert.equal(itemDoc.published.toISOString(), "2024-01-02T03:04:05.678Z");
      const sourceDoc = (await raw.sources.findOne({})) as Document;
      assert.ok(sourceDoc._id instanceof backend.ObjectId);
      assert.ok(sourceDoc.createdAt instanceof Date && sourceDoc.lastSyncAt instanceof Date);
    }),
  );

  it("converts the earlier plugin's ISO-text dates on init, so retention deletes old items", async () => {
    const backend = await makeBackend();
    const storage = storageOn(backend);
    try {
      const blogId = new backend.ObjectId();
      await backend.collections.blogs.insertOne({
        _id: blogId,
        feedUrl: "https://legacy.example/feed",
        title: "Legacy",
        status: "active",
        createdAt: "2023-01-01T00:00:00.000Z",
        lastFetchAt: "not a date",
      });
      await backend.collections.items.insertMany([
        {
          blogId,
          uid: "old",
          title: "Old",
          published: "2023-01-05T00:00:00.000Z",
          fetchedAt: "2023-01-06T00:00:00.000Z",
        },
        {
          blogId,
          uid: "new",
          title: "New",
          published: new Date(Date.now() + 1000).toISOString(),
          fetchedAt: new Date().toISOString(),
        },
      ]);
      await storage.init();
      await storage.init();
      const doc = (await backend.collections.blogs.findOne({ _id: blogId })) as Document;
      assert.ok(doc.createdAt instanceof Date);
      assert.equal(doc.lastFetchAt, null, "unparseable text becomes null");
      assert.equal(doc.feedKey, "legacy.example/feed", "the normalised key is filled in");
      const pruned = await storage.items.pruneOlderThan(new Date(Date.now() - 7 * 86_400_000));
      assert.deepEqual(pruned, { deleted: 1, blogIds: [blogId.toHexString()] });
      assert.deepEqual(
        (await storage.items.list({ limit: 10, offset: 0 })).map((item) => item.uid),
        ["new"],
      );
    } finally {
      await storage.close();
    }
  });

  it(
    "creates its indexes, idempotently: unique feed key (partial), unique item (blogId, uid), lease key",
    withStorage(makeBackend, async (storage, raw) => {
      await storage.init();
      const blogIndexes = await raw.blogs.indexes();
      const feedKey = blogIndexes.find((index) => JSON.stringify(index.key) === JSON.stringify({ feedKey: 1 }));
      assert.equal(feedKey?.unique, true);
      assert.deepEqual(feedKey?.partialFilterExpression, { feedKey: { $exists: true } });
      const itemKeys = (await raw.items.indexes()).map((index) => [JSON.stringify(index.key), index.unique === true]);
      assert.deepEqual(
        itemKeys.find(([key]) => key === JSON.stringify({ blogId: 1, uid: 1 })),
        [JSON.stringify({ blogId: 1, uid: 1 }), true],
      );
      assert.ok(itemKeys.some(([key]) => key === JSON.stringify({ published: -1, _id: -1 })));
      assert.ok(itemKeys.some(([key]) => key === JSON.stringify({ blogId: 1, published: -1, _id: -1 })));
      const metaKey = (await raw.meta.indexes()).find(
        (index) => JSON.stringify(index.key) === JSON.stringify({ key: 1 }),
      );
      assert.equal(metaKey?.unique, true);
    }),
  );

  it(
    "refuses operator objects where text is expected (NoSQL injection)",
    withStorage(makeBackend, async (storage) => {
      const hidden = await storage.blogs.upsertFromSource({
        feedUrl: "https://secret.example/feed",
        title: "Secret",
        source: "manual",
        category: "Private",
      });
      await storage.blogs.edit(hidden.blog.id, { hidden: true });
      const injected = { $ne: null } as unknown as string;
      const page = { visibility: "public" as const, limit: 10, offset: 0 };
      await assert.rejects(storage.blogs.list({ ...page, category: injected }), StorageError);
      await assert.rejects(storage.blogs.list({ ...page, source: injected }), StorageError);
      await assert.rejects(storage.blogs.list({ ...page, search: injected }), StorageError);
      await assert.rejects(storage.blogs.getByFeedUrl(injected), StorageError);
      await assert.rejects(storage.blogs.count({ sourcePrefix: injected }), StorageError);
      await assert.rejects(storage.items.list({ category: injected, limit: 10, offset: 0 }), StorageError);
      await assert.rejects(storage.meta.get(injected), StorageError);
      assert.equal(await storage.blogs.get(injected), null);
      assert.deepEqual(await storage.items.list({ blogId: injected, limit: 10, offset: 0 }), []);
      assert.equal(await storage.blogs.edit(injected, { hidden: false }), null);
      assert.deepEqual(
        titlesOf((await storage.blogs.list({ ...page, search: ".*" })).items),
        [],
        "regex metacharacters are literal",
      );

      assert.equal(await storage.meta.acquireLease("sync", "A", 60_000), true);
      await assert.rejects(storage.meta.acquireLease("sync", injected, 60_000), StorageError);
      await storage.meta.releaseLease("sync", "B");
      assert.equal(await storage.meta.acquireLease("sync", "B", 60_000), false, "the lease was not stolen");
    }),
  );

  it(
    "grants a contested lease to exactly one of several concurrent callers",
    withStorage(makeBackend, async (storage) => {
      const results = await Promise.all(
        ["A", "B", "C", "D"].map((holder) => storage.meta.acquireLease("race", holder, 60_000)),
      );
      assert.equal(results.filter(Boolean).length, 1);
    }),
  );

  it(
    "wraps driver failures in StorageError without query text",
    withStorage(makeBackend, async (storage, raw) => {
      const original = raw.blogs.countDocuments.bind(raw.blogs);
      Object.assign(raw.blogs, {
        countDocuments: async () => {
          throw new Error('query {"status":{"$ne":"deleted"}} failed at stack');
        },
      });
      try {
        await assert.rejects(storage.blogs.count(), (error: unknown) => {
          assert.ok(error instanceof StorageError);
          assert.equal(error.message, "MongoDB could not count blogs");
          return true;
        });
      } finally {
        Object.assign(raw.blogs, { countDocuments: original });
      }
    }),
  );
}

function titlesOf(blogs: Array<{ title: string }>): string[] {
  return blogs.map((blog) => blog.title);
}

describe("mongodb adapter: connection string", () => {
  it("takes the database from the URL, defaulting to blogroll", () => {
    assert.equal(databaseNameFromUrl("mongodb://localhost:27017"), "blogroll");
    assert.equal(databaseNameFromUrl("mongodb://localhost:27017/"), "blogroll");
    assert.equal(databaseNameFromUrl("mongodb://localhost:27017/site?retryWrites=true"), "site");
    assert.equal(databaseNameFromUrl("mongodb://user:p%40ss@a:1,b:2/indiekit?authSource=admin"), "indiekit");
    assert.equal(databaseNameFromUrl("mongodb+srv://user:pw@cluster.example.net/?w=majority"), "blogroll");
    assert.equal(databaseNameFromUrl("mongodb://localhost?replicaSet=rs0"), "blogroll");
  });

  it("reports an unreachable server as a StorageError without the URL", async () => {
    const url = "mongodb://secret-user:secret-pass@127.0.0.1:1/db?serverSelectionTimeoutMS=200&connectTimeoutMS=200";
    await assert.rejects(connectMongoStorage(url), (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.doesNotMatch(error.message, /secret|127\.0\.0\.1/);
      return true;
    });
  });

  it(
    "connects with its own client and closes it",
    { skip: mongodbUrl ? false : "MONGODB_URL is not set" },
    async () => {
      const name = `blogroll_test_${randomBytes(6).toString("hex")}`;
      const url = new URL(mongodbUrl as string);
      url.pathname = `/${name}`;
      const storage = await connectMongoStorage(url.toString());
      await storage.init();
      await storage.sources.create({ type: "manual", name: "own client" });
      assert.equal(await storage.sources.count(), 1);
      await storage.close();
      const client = new MongoClient(mongodbUrl as string);
      await client.connect();
      try {
        assert.equal(
          await client.db(name).collection(MONGO_COLLECTION_NAMES.sources).countDocuments({}),
          1,
          "it wrote to the database the URL names",
        );
        await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    },
  );
});

describe("fake-mongo: the mingo stand-in itself (test double, not MongoDB)", () => {
  it("enforces unique indexes with code 11000, honouring partialFilterExpression", async () => {
    const blogs = createFakeDb().collection("blogs");
    await blogs.createIndex({ key: 1 }, { unique: true, partialFilterExpression: { key: { $exists: true } } });
    await blogs.insertMany([{ url: "a" }, { url: "b" }]);
    await blogs.insertOne({ key: "k", url: "c" });
    await assert.rejects(
      blogs.insertOne({ key: "k" }),
      (error: unknown) => (error as { code?: number }).code === 11000,
    );
    await assert.rejects(
      blogs.updateOne({ url: "a" }, { $set: { key: "k" } }),
      (error: unknown) => (error as { code?: number }).code === 11000,
    );
    assert.equal(await blogs.countDocuments({}), 3);
    await assert.rejects(
      blogs.createIndex({ url: 1 }, { unique: true }).then(() => blogs.insertOne({ url: "a" })),
      (error: unknown) => (error as { code?: number }).code === 11000,
    );
  });

  it("upserts from the filter's equality fields, with $setOnInsert only on insert", async () => {
    const meta = createFakeDb().collection("meta");
    const first = await meta.findOneAndUpdate(
      { key: "x", $or: [{ holder: "A" }] },
      { $set: { holder: "A" }, $setOnInsert: { n: 1 } },
      { upsert: true, returnDocument: "after" },
    );
    assert.equal(first?.key, "x");
    assert.equal(first?.n, 1);
    const before = await meta.findOneAndUpdate(
      { key: "x" },
      { $set: { holder: "B" }, $setOnInsert: { n: 2 } },
      { upsert: true },
    );
    assert.equal(before?.holder, "A", "returns the document before the update by default");
    assert.deepEqual(await meta.findOne({ key: "x" }, { projection: { _id: 0 } }), { key: "x", holder: "B", n: 1 });
  });

  it("counts bulk upserts and real modifications only, and reports unordered duplicates after finishing", async () => {
    const items = createFakeDb().collection("items");
    await items.createIndex({ uid: 1 }, { unique: true });
    const upsert = (uid: string, title: string) => ({
      updateOne: { filter: { uid }, update: { $set: { title } }, upsert: true },
    });
    const first = await items.bulkWrite([upsert("a", "A"), upsert("b", "B")], { ordered: false });
    assert.equal(first.upsertedCount, 2);
    const second = await items.bulkWrite([upsert("a", "A"), upsert("b", "B2")], { ordered: false });
    assert.deepEqual([second.upsertedCount, second.matchedCount, second.modifiedCount], [0, 2, 1]);
    await assert.rejects(
      items.bulkWrite([{ insertOne: { document: { uid: "a" } } }, { insertOne: { document: { uid: "c" } } }], {
        ordered: false,
      }),
      (error: unknown) => (error as { code?: number }).code === 11000,
    );
    assert.equal(await items.countDocuments({ uid: "c" }), 1, "unordered: later operations still ran");
  });

  it("plays a driver on bson 6: refuses bson 7 ObjectIds in documents and filters, and hands out bson 6 ones", async () => {
    const col = createFakeDb({ bson: BSON6 }).collection("c");
    const refused = /Unsupported BSON version, bson types must be from bson 6/;
    await assert.rejects(col.insertOne({ _id: new ObjectId() }), refused);
    await assert.rejects(col.insertOne({ ref: new ObjectId() }), refused);
    const doc: Document = { title: "t" };
    await col.insertOne(doc);
    assert.ok(doc._id instanceof BSON6.ObjectId, "a new _id comes from the driver's own factory");
    await assert.rejects(col.findOne({ _id: new ObjectId(doc._id.toHexString()) }), refused);
    await assert.rejects(col.updateMany({}, { $set: { ref: new ObjectId() } }), refused);
    await assert.rejects(col.aggregate([{ $match: { _id: { $in: [new ObjectId()] } } }]).toArray(), refused);
    const read = (await col.findOne({ _id: new BSON6.ObjectId(doc._id.toHexString()) })) as Document;
    assert.equal(read._id instanceof ObjectId, false, "not this package's bson 7 class");
    assert.ok(read._id instanceof BSON6.ObjectId);
    assert.equal(read._id.toHexString(), doc._id.toHexString());
  });

  it("hands out copies, so callers cannot change stored documents by mutation", async () => {
    const col = createFakeDb().collection("c");
    const doc = { _id: new ObjectId(), when: new Date(0), list: ["a"] };
    await col.insertOne(doc);
    doc.list.push("b");
    const read = (await col.findOne({ _id: doc._id })) as Document;
    assert.deepEqual(read.list, ["a"]);
    read.when.setTime(5);
    assert.equal(((await col.findOne({})) as Document).when.getTime(), 0);
    assert.ok(read._id instanceof ObjectId && read._id.equals(doc._id));
  });
});
