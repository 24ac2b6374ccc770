/**
 * The page's kept bodies go out compressed as the reader accepts, each
 * compressed once per body (not per request), with one ETag for every coding;
 * what a reader decompresses is the body sent to a reader that asks for none.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { EncodedBody } from "../../lib/page/encoded.js";
import { HOUR } from "../../lib/time/durations.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { eventually } from "../support/eventually.js";
import { rawGet } from "../support/raw-get.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("blogroll page compressed once per body", () => {
  let server: TestServer;
  let page: string;
  let blogId: string;

  before(async () => {
    server = await startTestServer("sqlite", { ownerName: "Ada" });
    page = `${server.baseUrl}${server.plugin.mountPath}/blogroll`;
    for (let n = 0; n < 20; n++) {
      const blog = await addBlog(server.storage, { title: `Blog ${n}`, siteUrl: `https://b${n}.example/` });
      blogId = blog.id;
      await addItems(server.storage, blog.id, [item(`b${n}`, new Date(Date.now() - (n + 2) * HOUR))]);
    }
  });
  after(() => server.close());

  it("br and gzip as accepted, the same body and ETag as sent plain; one copy per coding however many readers", async () => {
    const plain = await rawGet(page, { "Accept-Encoding": "identity" });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.ok(plain.body.length > 1024, "large enough to be compressed");
    const made = EncodedBody.made;
    for (let n = 0; n < 3; n++) {
      const br = await rawGet(page, { "Accept-Encoding": "br" });
      assert.equal(br.headers["content-encoding"], "br");
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      assert.equal(br.headers.etag, plain.headers.etag);
      assert.match(String(br.headers.vary), /Accept-Encoding/i);
      // A browser's list: the first of its codings we have.
      const gzip = await rawGet(page, { "Accept-Encoding": "gzip, deflate, br, zstd" });
      assert.equal(gzip.headers["content-encoding"], "gzip");
      assert.deepEqual(gunzipSync(gzip.body), plain.body);
    }
    assert.equal(EncodedBody.made - made, 2, "one brotli and one gzip copy for six readers");
    const revalidated = await rawGet(page, { "Accept-Encoding": "br", "If-None-Match": String(plain.headers.etag) });
    assert.equal(revalidated.status, 304);
    assert.equal(EncodedBody.made - made, 2);
  });

  it("a rebuild compresses its body in the codings asked for before it is served", { timeout: 60_000 }, async () => {
    const before = await rawGet(page, { "Accept-Encoding": "br" });
    await addItems(server.storage, blogId, [item("fresh", new Date(Date.now() - 30 * 60_000), { title: "Fresh" })]);
    const made = EncodedBody.made;
    const rebuilt = await eventually("the rebuilt page", async () => {
      const answer = await rawGet(page, { "Accept-Encoding": "identity" });
      return answer.headers.etag !== before.headers.etag && answer;
    });
    assert.match(rebuilt.body.toString(), /Fresh/);
    assert.equal(EncodedBody.made - made, 2, "both codings asked for so far, made by the rebuild");
    const br = await rawGet(page, { "Accept-Encoding": "br" });
    assert.deepEqual(brotliDecompressSync(br.body), rebuilt.body);
    assert.equal(EncodedBody.made - made, 2, "no reader compressed it");
  });

  it("compresses one copy at a time, in the order asked (rebuilds finishing together leave a core to requests)", async () => {
    const text = (n: number) =>
      Buffer.from(
        Array.from({ length: n }, (_, i) => `<li class="h-card">Blog ${i} ${(i * 7919) % 1000}</li>`).join(""),
      );
    const big = new EncodedBody(text(40_000));
    const small = new EncodedBody(text(100));
    EncodedBody.mostAtOnce = 0;
    const done: string[] = [];
    await Promise.all([
      big.prepare(["br", "gzip"]).then(() => done.push("big")),
      small.prepare(["br", "gzip"]).then(() => done.push("small")),
    ]);
    assert.deepEqual(done, ["big", "small"], "the small body's copies waited for the big one's");
    assert.equal(EncodedBody.mostAtOnce, 1);
    assert.deepEqual(brotliDecompressSync(await big.in("br")), big.body);
    assert.deepEqual(gunzipSync(await small.in("gzip")), small.body);
  });
});
