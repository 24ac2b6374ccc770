import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BSON, type ObjectId } from "mongodb";
import { createMongoMicrosubStore } from "../../lib/storage/microsub/mongo.js";
import { BSON6, createFakeDb, type BsonLibrary } from "../support/fake-mongo.js";

/*
 * The Microsub reader on the Microsub plugin's collections, which the host
 * hands over: run on the mingo stand-in (not a real MongoDB server) playing a
 * driver on bson 7 (Indiekit's since 1.0.0-beta.25, and this package's) and on
 * bson 6 (Indiekit's up to 1.0.0-beta.24), so every filter goes through that
 * serializer.
 */

type ObjectIdClass = new (hex?: string) => ObjectId;

const drivers: Array<[string, { ObjectId: ObjectIdClass } & BsonLibrary]> = [
  ["BSON 6 serializer (the mongodb 6 driver of Indiekit up to 1.0.0-beta.24)", BSON6],
  ["BSON 7 serializer (mongodb 7: Indiekit's since 1.0.0-beta.25, and the plugin's own)", BSON],
];
console.log(
  `microsub reader runs on the mingo stand-in (not a real MongoDB server) with: ${drivers.map(([name]) => name).join("; ")}`,
);

for (const [name, bson] of drivers) {
  describe(`microsub reader on mingo in-memory stand-in (not a real MongoDB server), ${name}`, () => {
    it("lists channels, a channel's feeds and feeds' items by id, with ids as hex text", async () => {
      const db = createFakeDb({ bson });
      const [channels, feeds, items] = ["microsub_channels", "microsub_feeds", "microsub_items"].map((n) =>
        db.collection(n),
      );
      const friends = new bson.ObjectId();
      const news = new bson.ObjectId();
      await channels.insertMany([
        { _id: friends, uid: "friends", name: "Friends", order: 0 },
        { _id: news, uid: "news", name: "News", order: 1 },
      ]);
      const alice = new bson.ObjectId();
      const bob = new bson.ObjectId();
      await feeds.insertMany([
        { _id: alice, channelId: friends, url: "https://alice.example/feed" },
        { _id: bob, channelId: news, url: "https://bob.example/feed" },
      ]);
      const post = new bson.ObjectId();
      await items.insertMany([
        {
          _id: post,
          feedId: alice,
          channelId: friends,
          uid: "a1",
          name: "Alice 1",
          published: new Date("2024-01-02T00:00:00Z"),
        },
        {
          _id: new bson.ObjectId(),
          feedId: bob,
          channelId: news,
          uid: "b1",
          name: "Bob 1",
          published: new Date("2024-01-03T00:00:00Z"),
        },
      ]);
      const store = createMongoMicrosubStore({ channels, feeds, items });

      assert.deepEqual(
        (await store.listChannels()).map((channel) => [channel.id, channel.name]),
        [
          [friends.toHexString(), "Friends"],
          [news.toHexString(), "News"],
        ],
      );
      assert.deepEqual(
        (await store.listFeeds(friends.toHexString())).map((feed) => [feed.id, feed.channelId, feed.url]),
        [[alice.toHexString(), friends.toHexString(), "https://alice.example/feed"]],
      );
      const listed = await store.listItems({ feedIds: [alice.toHexString()], limit: 10, offset: 0 });
      assert.deepEqual(
        listed.map((item) => [item.id, item.blogId, item.title]),
        [[post.toHexString(), alice.toHexString(), "Alice 1"]],
      );
      assert.deepEqual(
        await store.listItems({ feedIds: ["not-an-id"], limit: 10, offset: 0 }),
        [],
        "invalid ids match nothing",
      );
    });

    it("dates an undated item's fetch by when Microsub stored it (its ObjectId's time), never the epoch", async () => {
      const db = createFakeDb({ bson });
      const items = db.collection("microsub_items");
      const feed = new bson.ObjectId();
      const stored = new bson.ObjectId(
        Math.floor(Date.UTC(2026, 10, 20) / 1000)
          .toString(16)
          .padStart(8, "0") + "0000000000000000",
      );
      await items.insertOne({ _id: stored, feedId: feed, uid: "u1", name: "Undated" });
      const store = createMongoMicrosubStore({
        channels: db.collection("microsub_channels"),
        feeds: db.collection("microsub_feeds"),
        items,
      });
      const [item] = await store.listItems({ feedIds: [feed.toHexString()], limit: 10, offset: 0 });
      assert.equal(item.published, null);
      assert.equal(item.fetchedAt.toISOString(), "2026-11-20T00:00:00.000Z");
    });
  });
}
