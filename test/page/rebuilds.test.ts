/**
 * The blogroll page after a change: readers get the kept body while it is
 * rebuilt in the background (never waiting for the rebuild), a burst of
 * writes costs one or two rebuilds, and the ETag always describes the body
 * it comes with. Order and counts, no timings: the storage's blog list is
 * held at a gate while requests are made.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { eventually } from "../support/eventually.js";
import { gateBlogList } from "../support/blog-list-gate.js";

for (const backend of httpBackends()) {
  describe(`blogroll page rebuilds on ${describeBackend(backend)}`, () => {
    let server: TestServer;
    let embed: string;
    let blogId: string;

    before(async () => {
      server = await startTestServer(backend);
      embed = `${server.baseUrl}${server.plugin.mountPath}/blogroll/embed`;
      const blog = await addBlog(server.storage, { title: "Kept", siteUrl: "https://kept.example/" });
      blogId = blog.id;
      await addItems(server.storage, blog.id, [item("first", new Date(Date.now() - 60_000), { title: "First post" })]);
    });
    after(() => server.close());

    it(
      "a request after a change is answered from the kept body while the rebuild waits; a burst of writes costs one or two rebuilds",
      { timeout: 60_000 },
      async () => {
        const kept = await server.get(embed);
        const keptEtag = kept.headers.get("etag") as string;
        const keptHtml = await kept.text();
        assert.match(keptHtml, /First post/);

        const gate = gateBlogList(server.storage.blogs);
        gate.close();
        try {
          // Ten posts in a burst: the first starts a rebuild (held at the gate), the others arrive while it waits or runs.
          for (let n = 0; n < 10; n++)
            await addItems(server.storage, blogId, [
              item(`burst${n}`, new Date(Date.now() + n), { title: `Burst ${n}` }),
            ]);
          await eventually("a rebuild held at the gate", async () => gate.rebuilds === 1);
          // The rebuild cannot finish: the answer is the kept body, with its own ETag (old code waits here for the gate).
          const during = await server.get(embed);
          assert.equal(await during.text(), keptHtml);
          assert.equal(during.headers.get("etag"), keptEtag);
          const revalidated = await server.get(embed, { headers: { "If-None-Match": keptEtag } });
          assert.equal(revalidated.status, 304, "the kept body is still the one served");
          assert.equal(gate.rebuilds, 1, "one rebuild at a time");
        } finally {
          gate.open();
        }
        gate.open();
        const rebuilt = await eventually("the rebuilt page with the last post of the burst", async () => {
          const response = await server.get(embed);
          const html = await response.text();
          assert.equal(response.headers.get("etag") !== keptEtag, html !== keptHtml, "the ETag describes its body");
          return html.includes("Burst 9") ? response : undefined;
        });
        assert.notEqual(rebuilt.headers.get("etag"), keptEtag);
        // Writes that came while the first rebuild ran are read by at most one more.
        await eventually("the rebuilds settled", async () => {
          const again = await server.get(embed, {
            headers: { "If-None-Match": rebuilt.headers.get("etag") as string },
          });
          await again.arrayBuffer();
          return again.status === 304;
        });
        assert.ok(gate.rebuilds >= 1 && gate.rebuilds <= 2, `${gate.rebuilds} rebuilds for ten writes`);
      },
    );

    it("a hidden blog leaves the served body once its rebuild is done; the ETag changes with it", async () => {
      const shown = await server.get(embed);
      const shownEtag = shown.headers.get("etag") as string;
      assert.match(await shown.text(), /Kept/);
      await server.storage.blogs.edit(blogId, { hidden: true });
      await eventually("the hidden blog gone from the page", async () => {
        const response = await server.get(embed);
        const html = await response.text();
        assert.equal(response.headers.get("etag") === shownEtag, html.includes("kept.example"));
        return !html.includes("kept.example");
      });
    });
  });
}
