/**
 * What the public API reads from storage: never a post's content (it never
 * sends it) and of a blog only its public fields (listPublic,
 * getManyPublic), not whole rows, whose reading and decoding cost several
 * times as much on every request. The river feeds, which send the content,
 * still read it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { describeBackend, startTestServer, type TestServer } from "../support/server.js";
import { createFaultyStorage, type FaultyStorage } from "../support/faulty-storage.js";
import { changeCount } from "../../lib/storage/change-count.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";

for (const backend of ["sqlite", "mongo-standin"] as const) {
  describe(`the public API's storage reads, ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let counting: FaultyStorage;
    let blogId: string;

    before(async () => {
      server = await startTestServer(backend);
      const blog = await addBlog(server.storage, { title: "Reads", category: "Tech" });
      await addItems(server.storage, blog.id, [item("a", daysAgo(1)), item("b", daysAgo(2))]);
      blogId = blog.id;
      counting = createFaultyStorage(server.storage);
      server.plugin.getStorage = () => Promise.resolve(counting);
    });
    after(() => server.close());

    /** The storage calls one request made, as "store.method" (items.list with its content flag). */
    async function callsOf(path: string): Promise<string[]> {
      counting.resetCalls();
      const response = await server.get(
        path.startsWith("/river") ? `${server.plugin.mountPath}${path}` : `${server.api}${path}`,
      );
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
      return counting.calls.map(({ name, args }) =>
        name === "items.list" ? `${name} content ${(args[0] as { content?: boolean }).content !== false}` : name,
      );
    }

    it("/api/items and /api/blogs/:id read posts without their content and blogs' public fields only", async () => {
      for (const path of ["/items?limit=50", "/items?category=Tech", `/items?blog=${blogId}`]) {
        const calls = await callsOf(path);
        assert.ok(calls.includes("items.list content false"), `${path}: ${calls.join(", ")}`);
        assert.ok(calls.includes("blogs.getManyPublic"), `${path}: ${calls.join(", ")}`);
        assert.ok(!calls.includes("items.list content true") && !calls.includes("blogs.getMany"), calls.join(", "));
      }
      assert.deepEqual(await callsOf(`/blogs/${blogId}`), ["blogs.get", "items.list content false"]);
      const body = (await (await server.get(`${server.api}/items?limit=50`)).json()) as {
        items: Array<Record<string, unknown>>;
      };
      assert.deepEqual(
        body.items.map((entry) => [
          entry.id !== undefined,
          "content" in entry,
          (entry.blog as { title: string }).title,
        ]),
        [
          [true, false, "Reads"],
          [true, false, "Reads"],
        ],
      );
    });

    it("/api/blogs reads the public fields of a page of blogs (listPublic), not whole blogs", async () => {
      for (const path of ["/blogs", "/blogs?sort=recent&category=Tech"])
        assert.deepEqual(await callsOf(path), ["blogs.listPublic"], path);
    });

    it("these reads are not counted as writes (which would make every cache of the blogroll stale)", async () => {
      const before = changeCount(server.storage);
      assert.ok(before > 0, "the seeding writes were counted");
      for (const path of ["/items?limit=50", "/blogs", `/blogs/${blogId}`]) await callsOf(path);
      assert.equal(changeCount(server.storage), before);
    });

    it("the river feeds still read the posts' content, which they send", async () => {
      const calls = await callsOf("/river.json");
      assert.ok(calls.includes("items.list content true"), calls.join(", "));
    });
  });
}
