/**
 * The blogroll page's kept answers follow changes stored by another writer
 * sharing the database (another process on the SQLite file, another plugin
 * instance on the MongoDB stand-in), through the live event log they all
 * write: such a change starts a rebuild with no request at all, and a request
 * naming the event it saw (`lastEventId`) gets an answer that includes it.
 * Order and counts, no timings.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Storage } from "../../lib/storage/types.js";
import { gateBlogList } from "../support/blog-list-gate.js";
import { eventually } from "../support/eventually.js";
import { addBlog } from "../support/seed.js";
import { startSecondProcess, type SecondProcess } from "../support/second-process.js";
import {
  describeBackend,
  startTestServer,
  type TestServer,
  startOtherWriter,
  type OtherWriter,
} from "../support/server.js";

const titles = async (response: Response): Promise<string[]> => {
  assert.equal(response.status, 200);
  const body = (await response.json()) as { groups: { blogs: { title: string }[] }[] };
  return body.groups.flatMap((group) => group.blogs.map((blog) => blog.title));
};

for (const backend of ["sqlite", "mongo-standin"] as const) {
  describe(`blogroll page and another writer on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let other: OtherWriter;
    /** The other writer: a second connection to the SQLite file, or a second plugin instance on the stand-in. */
    let writer: Storage;
    let json: string;

    before(async () => {
      server = await startTestServer(backend);
      other = await startOtherWriter(server, backend);
      writer = other.storage;
      json = `${server.baseUrl}${server.plugin.mountPath}/blogroll.json`;
    });
    after(async () => {
      await other.close();
      await server.close();
    });

    it("a change the other writer stores starts a rebuild of the kept answers, with no request", async () => {
      const blog = await addBlog(writer, { title: "Before" });
      assert.deepEqual(await titles(await server.get(json)), ["Before"]);
      const gate = gateBlogList(server.storage.blogs);
      await writer.blogs.edit(blog.id, { title: "After" });
      // Nothing is asked of the server meanwhile: it reads the event log on its own (old code: no rebuild until a request).
      await eventually("a rebuild begun by the other writer's change", async () => gate.rebuilds > 0);
      await eventually("the rebuilt answer", async () => (await titles(await server.get(json)))[0] === "After");
    });

    it("a request naming the last event it saw gets an answer that includes that event's change", async () => {
      const [blog] = (await writer.blogs.list({ visibility: "public", limit: 1, offset: 0 })).items;
      assert.deepEqual(await titles(await server.get(json)), [blog.title]);
      await writer.blogs.edit(blog.id, { title: "Renamed elsewhere" });
      const { newest } = await writer.events.bounds();
      // Old code: the kept answer from before the change.
      assert.deepEqual(await titles(await server.get(`${json}?lastEventId=${newest}`)), ["Renamed elsewhere"]);
      // An id this log never gave is no reason to wait: the answer served now.
      assert.deepEqual(await titles(await server.get(`${json}?lastEventId=${newest + 1000}`)), ["Renamed elsewhere"]);
      const bad = await server.get(`${json}?lastEventId=soon`);
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), { error: "Invalid lastEventId" });
    });
  });
}

describe("blogroll page of a second process on one SQLite file", () => {
  let second: SecondProcess;
  let writer: Storage;
  let json = "";

  before(async () => {
    second = await startSecondProcess();
    writer = second.writer;
    json = `${second.mountUrl}/blogroll.json`;
  });
  after(() => second.stop());

  it("shows what this process stored: at once for a request naming the event, and to every request after", async () => {
    const blog = await addBlog(writer, { title: "Written here" });
    assert.deepEqual(await titles(await fetch(json)), ["Written here"]);
    await writer.blogs.edit(blog.id, { title: "Renamed here" });
    const { newest } = await writer.events.bounds();
    assert.deepEqual(await titles(await fetch(`${json}?lastEventId=${newest}`)), ["Renamed here"]);
    assert.deepEqual(await titles(await fetch(json)), ["Renamed here"]);
  });
});
