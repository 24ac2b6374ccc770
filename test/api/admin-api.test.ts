import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { addBlog } from "../support/seed.js";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe("authenticated API routes (spec 4.8–4.10)", () => {
  let server: TestServer;
  before(async () => (server = await startTestServer("mongo-standin")));
  after(() => server.close());

  it("need authentication", async () => {
    for (const [method, path] of [
      ["GET", "/discover?url=example.org"],
      ["POST", "/microsub-webhook"],
      ["GET", "/microsub-status"],
    ]) {
      const response = await server.get(`${server.api}${path}`, { method, headers: { Accept: "application/json" } });
      assert.equal(response.status, 401, path);
      const wrong = await server.get(`${server.api}${path}`, {
        method,
        headers: { Authorization: "Bearer nope", Accept: "application/json" },
      });
      assert.equal(wrong.status, 401, path);
    }
  });

  it("GET /api/discover without a url is 400", async () => {
    for (const query of ["", "?url=", "?url=a&url=b"]) {
      const response = await server.get(`${server.api}/discover${query}`, { headers: auth });
      assert.equal(response.status, 400, query);
      assert.deepEqual(await response.json(), { error: "URL parameter required" });
    }
  });

  it("microsub-status and the webhook while the Microsub plugin is absent", async () => {
    const status = await server.get(`${server.api}/microsub-status`, { headers: auth });
    assert.equal(status.status, 200);
    assert.deepEqual(await status.json(), {
      available: false,
      message: "Microsub plugin not installed or collections not available",
    });
    // 503 comes before any look at the body, even one that is not JSON at all.
    for (const body of ["{not json", "", JSON.stringify({ action: "follow", url: "https://a.example/feed" })]) {
      const response = await server.get(`${server.api}/microsub-webhook`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body,
      });
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), { ok: false, error: "Microsub integration not available" });
    }
  });

  it("with the Microsub collections present: counts microsub blogs, rejects bodies without action and url", async () => {
    const db = server.fakeDb!;
    server.collections.set("microsub_channels", db.collection("microsub_channels"));
    server.collections.set("microsub_feeds", db.collection("microsub_feeds"));
    await addBlog(server.storage, {
      title: "From Microsub",
      source: "microsub",
      category: "Friends",
      microsubChannelName: "Friends",
    });
    await addBlog(server.storage, { title: "From OPML", source: "opml" });
    const status = await server.get(`${server.api}/microsub-status`, { headers: auth });
    assert.deepEqual(await status.json(), { available: true, blogs: 1 });
    for (const body of [
      "{not json",
      "{}",
      JSON.stringify({ action: "follow" }),
      JSON.stringify({ url: "https://a.example/" }),
      JSON.stringify({ action: 1, url: "https://a.example/" }),
      "[]",
    ]) {
      const response = await server.get(`${server.api}/microsub-webhook`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body,
      });
      assert.equal(response.status, 400, body);
      assert.deepEqual(await response.json(), { ok: false, error: "Missing required fields: action and url" });
    }
    const blogs = await (await server.get(`${server.api}/blogs?source=microsub`)).json();
    assert.equal(blogs.items[0].microsubChannel, "Friends");
    server.collections.delete("microsub_channels");
    server.collections.delete("microsub_feeds");
  });
});
