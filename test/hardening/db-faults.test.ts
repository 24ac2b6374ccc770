/**
 * Database faults: every storage call an endpoint makes is failed in turn
 * (test/support/faulty-storage.ts); each time the endpoint must answer the
 * spec's exact 500 body, leak nothing, and the next request must work.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADMIN_TOKEN, describeBackend, startTestServer, type TestServer } from "../support/server.js";
import { createFaultyStorage, type FaultyStorage } from "../support/faulty-storage.js";
import { addBlog, addItems, item, daysAgo } from "../support/seed.js";

const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

interface EndpointCase {
  path: string;
  init?: RequestInit;
  failure: unknown;
  /** Status of a healthy answer. */
  ok: number;
}

/** Routes the faulty wrapper in front of the plugin's real storage, for every route and job. */
async function withFaultyStorage(server: TestServer): Promise<FaultyStorage> {
  const faulty = createFaultyStorage(server.storage);
  server.plugin.getStorage = () => Promise.resolve(faulty);
  return faulty;
}

/**
 * Fails the 1st, 2nd, … storage call of one request until a request makes
 * fewer calls than the position armed. Returns how many positions failed.
 */
async function failEachCallInTurn(server: TestServer, faulty: FaultyStorage, endpoint: EndpointCase): Promise<number> {
  for (let n = 1; ; n++) {
    const before = faulty.failures;
    faulty.failNthCall(n);
    const response = await server.get(endpoint.path, endpoint.init);
    const text = await response.text();
    faulty.clearFaults();
    if (faulty.failures === before) {
      assert.equal(response.status, endpoint.ok, `${endpoint.path}: healthy once call ${n} is never reached`);
      return n - 1;
    }
    assert.equal(response.status, 500, `${endpoint.path} with call ${n} failing: ${text}`);
    assert.deepEqual(JSON.parse(text), endpoint.failure, `${endpoint.path} with call ${n} failing`);
    assert.doesNotMatch(text, /SECRET-DETAIL|\/var\/db|\bat \S+\.(ts|js)/);
    const next = await server.get(endpoint.path, endpoint.init);
    await next.arrayBuffer();
    assert.equal(next.status, endpoint.ok, `${endpoint.path}: the request after a fault works`);
  }
}

for (const backend of ["sqlite", "mongo-standin"] as const) {
  describe(`database faults on every endpoint, ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let faulty: FaultyStorage;
    let blogId: string;

    before(async () => {
      server = await startTestServer(backend);
      const blog = await addBlog(server.storage, { title: "Faults", category: "Tech", source: "opml" });
      await addItems(server.storage, blog.id, [item("a", daysAgo(1)), item("b", null)]);
      blogId = blog.id;
      faulty = await withFaultyStorage(server);
    });
    after(() => server.close());

    it("public routes answer their exact 500 body at every failing call, then recover", async () => {
      const api = server.api;
      const cases: EndpointCase[] = [
        { path: `${api}/blogs?category=Tech&sort=recent`, failure: { error: "Failed to fetch blogs" }, ok: 200 },
        { path: `${api}/blogs/${blogId}`, failure: { error: "Failed to fetch blog" }, ok: 200 },
        { path: `${api}/items`, failure: { error: "Failed to fetch items" }, ok: 200 },
        { path: `${api}/items?blog=${blogId}&category=Tech`, failure: { error: "Failed to fetch items" }, ok: 200 },
        { path: `${api}/categories`, failure: { error: "Failed to fetch categories" }, ok: 200 },
        { path: `${api}/status`, failure: { error: "Failed to fetch status" }, ok: 200 },
        { path: `${api}/opml`, failure: { error: "Failed to export OPML" }, ok: 200 },
        { path: `${api}/opml/Tech`, failure: { error: "Failed to export OPML" }, ok: 200 },
      ];
      for (const endpoint of cases) {
        const failed = await failEachCallInTurn(server, faulty, endpoint);
        assert.ok(failed >= 1, `${endpoint.path} reads storage at least once`);
      }
    });

    it("admin pages and forms answer 500 without the cause at every failing call, then recover", async () => {
      const mount = server.plugin.mountPath;
      const sourceId = (
        await server.storage.sources.create({
          type: "opml_url",
          name: "Faulty list",
          settings: { url: "https://list.example/blogroll.opml" },
        })
      ).id;
      const page = { headers: { ...AUTH, Accept: "text/html" } };
      const pages = [
        mount,
        `${mount}/sources`,
        `${mount}/sources/${sourceId}/edit`,
        `${mount}/sources/${sourceId}/delete`,
        `${mount}/blogs`,
        `${mount}/blogs?category=Tech`,
        `${mount}/blogs/${blogId}`,
        `${mount}/blogs/${blogId}/delete`,
      ];
      for (const path of pages) {
        let failed = 0;
        for (let n = 1; n < 30; n++) {
          const before = faulty.failures;
          faulty.failNthCall(n);
          const response = await server.get(path, page);
          const text = await response.text();
          faulty.clearFaults();
          if (faulty.failures === before) break;
          failed++;
          assert.equal(response.status, 500, `${path} with call ${n} failing`);
          assert.doesNotMatch(
            text,
            /SECRET-DETAIL|\/var\/db|injected|\bat \S+\.(ts|js)/,
            `${path}: ${text.slice(0, 200)}`,
          );
          const next = await server.get(path, page);
          await next.arrayBuffer();
          assert.equal(next.status, 200, `${path}: the request after a fault works`);
        }
        assert.ok(failed >= 1, `${path} reads storage`);
      }
      // A form post whose write fails changes nothing and says nothing of the cause.
      faulty.failWhen((call) => call.name === "blogs.edit");
      const post = await server.get(`${mount}/blogs/${blogId}`, {
        method: "POST",
        headers: { ...AUTH, Accept: "text/html", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ title: "Changed", category: "Tech", tags: "", notes: "" }),
      });
      const text = await post.text();
      faulty.clearFaults();
      assert.equal(post.status, 500);
      assert.doesNotMatch(text, /SECRET-DETAIL|\/var\/db|injected/);
      assert.equal((await server.storage.blogs.get(blogId))?.title, "Faults");
    });

    it("GET /api/microsub-status answers its 500 shape when storage fails", async (t) => {
      if (!server.fakeDb) return t.skip("needs the Microsub collections of the stand-in");
      server.collections.set("microsub_channels", server.fakeDb.collection("microsub_channels"));
      server.collections.set("microsub_feeds", server.fakeDb.collection("microsub_feeds"));
      try {
        faulty.failNthCall(1);
        const response = await server.get(`${server.api}/microsub-status`, { headers: AUTH });
        faulty.clearFaults();
        assert.equal(response.status, 500);
        const body = (await response.json()) as Record<string, unknown>;
        assert.deepEqual(Object.keys(body).sort(), ["available", "error"]);
        assert.equal(body.available, false);
        const next = await server.get(`${server.api}/microsub-status`, { headers: AUTH });
        assert.deepEqual(await next.json(), { available: true, blogs: 0 });
      } finally {
        server.collections.delete("microsub_channels");
        server.collections.delete("microsub_feeds");
      }
    });

    it("POST /api/microsub-webhook answers its exact 500 body at every failing call", async (t) => {
      if (!server.fakeDb) return t.skip("needs the Microsub collections of the stand-in");
      for (const name of ["microsub_channels", "microsub_feeds", "microsub_items"])
        server.collections.set(name, server.fakeDb.collection(name));
      try {
        let sequence = 0;
        const endpoint = (): EndpointCase => ({
          path: `${server.api}/microsub-webhook`,
          init: {
            method: "POST",
            headers: { ...AUTH, "Content-Type": "application/json" },
            body: JSON.stringify({
              action: "follow",
              url: `https://hook${++sequence}.example/feed`,
              channelName: "Friends",
            }),
          },
          failure: { ok: false, error: "Webhook processing failed" },
          ok: 200,
        });
        // Each request follows a new URL, so the body is rebuilt per attempt.
        for (let n = 1; n < 50; n++) {
          const before = faulty.failures;
          faulty.failNthCall(n);
          const { path, init, failure } = endpoint();
          const response = await server.get(path, init);
          const text = await response.text();
          faulty.clearFaults();
          if (faulty.failures === before) {
            assert.equal(response.status, 200, text);
            assert.ok(n > 1, "the webhook writes through storage");
            return;
          }
          assert.equal(response.status, 500, text);
          assert.deepEqual(JSON.parse(text), failure);
          const next = endpoint();
          assert.equal((await server.get(next.path, next.init)).status, 200);
        }
        assert.fail("the webhook made more than 50 storage calls");
      } finally {
        for (const name of ["microsub_channels", "microsub_feeds", "microsub_items"]) server.collections.delete(name);
      }
    });
  });
}
