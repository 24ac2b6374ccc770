import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ObjectId } from "mongodb";
import { installMicrosubCollections, startTestServer, type TestServer } from "../support/server.js";
import { logIn, type AdminSession } from "./admin-session.js";
import { addBlog } from "../support/seed.js";
import { NAME_MAX } from "../../lib/admin/source-settings.js";

/** The Microsub plugin's collections with two channels and a feed, on the stand-in database. */
async function installMicrosub(server: TestServer) {
  const { channels, feeds } = installMicrosubCollections(server);
  const friends = new ObjectId();
  await channels.insertMany([
    { _id: friends, uid: "friends", name: "Friends", order: 0 },
    { _id: new ObjectId(), uid: "news", name: "News", order: 1 },
  ]);
  await feeds.insertOne({
    _id: new ObjectId(),
    channelId: friends,
    url: "https://alice.example/feed.xml",
    title: "Alice",
    photo: null,
    status: "active",
    lastFetchedAt: null,
  });
}

describe("admin: Microsub sources (MongoDB adapter on the mingo stand-in, not a real server)", () => {
  let server: TestServer;
  let admin: AdminSession;
  let sources: string;

  before(async () => {
    server = await startTestServer("mongo-standin");
    admin = await logIn(server);
    sources = `${server.plugin.mountPath}/sources`;
  });
  after(() => server.close());

  it("is not offered, and refused, while the Microsub plugin is absent", async () => {
    assert.doesNotMatch((await admin.page(`${sources}/new`)).html, /value="microsub"/);
    const refused = await admin.post(sources, { type: "microsub", name: "Follows", action: "save" });
    assert.equal(refused.status, 422);
    assert.equal(await server.storage.sources.count(), 0);
  });

  it("offers a channel picker filled from Microsub once its collections are there, and mirrors the chosen channel", async () => {
    await installMicrosub(server);
    assert.match((await admin.page(`${sources}/new`)).html, /value="microsub"/);
    const form = await admin.page(`${sources}/new?type=microsub`);
    assert.match(form.html, /<option value="friends">Friends<\/option>/);
    assert.match(form.html, /<option value="news">News<\/option>/);
    assert.match(
      form.html,
      new RegExp(`<input[^>]*id="categoryPrefix"[^>]*maxlength="${NAME_MAX}"`),
      "the prefix is held in the browser to what the server keeps",
    );

    const unknown = await admin.post(sources, {
      type: "microsub",
      name: "Follows",
      channelUid: "gone",
      action: "save",
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.html, /href="#channelUid"/);

    const saved = await admin.post(sources, {
      type: "microsub",
      name: "Follows",
      channelUid: "friends",
      categoryPrefix: "Following: ",
      enabled: "true",
      action: "save",
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, `${sources}?notice=sourceCreated`);
    const blog = await server.storage.blogs.getByFeedUrl("https://alice.example/feed.xml");
    assert.equal(blog?.category, "Following: Friends");
    assert.equal(blog?.source, "microsub");
    const list = await admin.page(sources);
    assert.match(list.html, /Microsub/);
  });

  it("names Microsub as the source of a blog followed there (the Microsub plugin writes it with no source record)", async () => {
    const followed = await addBlog(server.storage, {
      title: "Followed in Microsub",
      source: "microsub",
      microsubChannelName: "Friends",
      feedUrl: "https://followed.example/feed",
    });
    const row =
      /<tr[^>]*>(?:(?!<\/tr>)[\s\S])*Followed in Microsub[\s\S]*?<\/tr>/.exec(
        (await admin.page(`${server.plugin.mountPath}/blogs`)).html,
      )?.[0] ?? "";
    assert.match(row, /<td>You \(followed in Microsub\)<\/td>/);
    const detail = await admin.page(`${server.plugin.mountPath}/blogs/${followed.id}`);
    assert.match(detail.html, /Listed by[\s\S]*You \(followed in Microsub\)/);
  });
});
