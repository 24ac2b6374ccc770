import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, it } from "node:test";
import * as bson6 from "bson6";
import { BSON, MongoClient, ObjectId } from "mongodb";
import { isObjectId, objectIdClassOf, objectIdsFor, refHex } from "../../lib/storage/mongo/object-ids.js";
import { realHostMissing, setUpKit } from "../e2e/real-indiekit.js";
import { createFakeDb } from "../support/fake-mongo.js";

/*
 * Which ObjectId class the adapter uses for a collection, checked on
 * collection objects of the real drivers (no server needed: a client that
 * never connects still builds its collections): this package's mongodb 7, and
 * Indiekit's from the real host kit when it is present; a host on bson 6
 * (Indiekit up to 1.0.0-beta.24) through its primary-key factory.
 */

const HEX = "65a1b2c3d4e5f60718293a4b";

/** A collection of a client that is never connected, and a way to close that client. */
function unconnected(Client: typeof MongoClient) {
  const client = new Client("mongodb://127.0.0.1:1/unused?serverSelectionTimeoutMS=1");
  return { collection: client.db("blogroll_test").collection("blogrollBlogs"), close: () => client.close() };
}

describe("ObjectIds of the driver that owns the collections", () => {
  it("recognises ObjectIds of bson 6 and bson 7 by their tag, not by class", () => {
    assert.equal(isObjectId(new ObjectId()), true);
    assert.equal(isObjectId(new bson6.ObjectId()), true);
    assert.equal(refHex(new bson6.ObjectId(HEX)), HEX);
    assert.equal(refHex(HEX), HEX);
    for (const other of [HEX, null, undefined, {}, { _bsontype: "ObjectId" }, new Date(), new bson6.Decimal128("1")]) {
      assert.equal(isObjectId(other), false, String(other));
    }
  });

  it("uses mongodb 7's class on a collection of this package's own client", async () => {
    const { collection, close } = unconnected(MongoClient);
    try {
      assert.equal(objectIdClassOf(collection), ObjectId);
      const ids = objectIdsFor(collection);
      assert.ok(ids.of(HEX) instanceof ObjectId);
      assert.doesNotThrow(() => BSON.serialize({ _id: ids.of(HEX), ref: ids.ref(HEX), created: ids.create() }));
    } finally {
      await close();
    }
  });

  it("falls back to its own class when the collection shows no primary-key factory that makes ObjectIds", () => {
    assert.equal(objectIdClassOf({}), ObjectId);
    assert.equal(objectIdClassOf({ db: { options: { pkFactory: { createPk: () => "text-id" } } } }), ObjectId);
    assert.equal(
      objectIdClassOf({ db: { options: { pkFactory: { createPk: () => new bson6.ObjectId() } } } }),
      bson6.ObjectId,
    );
  });

  it("uses a bson 6 driver's class on its collections (Indiekit up to 1.0.0-beta.24), whose serializer refuses this package's own", async () => {
    const collection = createFakeDb({ bson: bson6 }).collection("blogrollBlogs");
    assert.equal(objectIdClassOf(collection), bson6.ObjectId);
    const ids = objectIdsFor(collection);
    const filter = { _id: ids.of(HEX), sourceIds: { $in: ids.refCandidates(HEX) }, created: ids.create() };
    assert.equal(refHex(bson6.deserialize(bson6.serialize(filter))._id), HEX);
    assert.throws(
      () => bson6.serialize({ _id: new ObjectId(HEX) }),
      /Unsupported BSON version, bson types must be from bson 6/,
    );
  });

  const missing = realHostMissing();
  if (missing) console.log(`skipped: Indiekit's mongodb 7 driver — ${missing}`);
  it(
    "uses Indiekit's class (mongodb 7, bson 7) on a collection of the real host's driver",
    { skip: missing ?? false },
    async () => {
      const kit = await setUpKit();
      const hostRequire = createRequire(path.join(kit.root, "package.json"));
      const host = hostRequire("mongodb") as typeof import("mongodb");
      const version = (hostRequire("mongodb/package.json") as { version: string }).version;
      console.log(`Indiekit's driver: mongodb ${version} from ${kit.root}`);
      assert.match(version, /^7\./);
      const { collection, close } = unconnected(host.MongoClient as unknown as typeof MongoClient);
      try {
        assert.equal(objectIdClassOf(collection), host.ObjectId);
        const ids = objectIdsFor(collection);
        const filter = { _id: ids.of(HEX), sourceIds: { $in: ids.refCandidates(HEX) }, created: ids.create() };
        const read = host.BSON.deserialize(host.BSON.serialize(filter));
        assert.equal(refHex(read._id), HEX, "the host's serializer takes the ids, and they read back as hex");
        assert.doesNotThrow(
          () => host.BSON.serialize({ _id: new ObjectId(HEX) }),
          "this package's own ObjectIds are of the same major: the two drivers agree",
        );
      } finally {
        await close();
      }
    },
  );
});
