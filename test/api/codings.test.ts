/**
 * A small public answer (the API's pages, most river and OPML answers) is
 * compressed on the spot and sent in one piece, with its length, rather than
 * streamed through the compression middleware; a large one still is
 * compressed (by the middleware). Either way a reader decompresses exactly
 * the bytes sent to one that asks for no coding, under the same ETag.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { onTheSpot } from "../../lib/api/codings.js";
import { HOUR } from "../../lib/time/durations.js";
import { rawGet } from "../support/raw-get.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("public answers compressed on the spot", () => {
  let server: TestServer;
  let items: string;
  let blogId: string;

  before(async () => {
    server = await startTestServer("sqlite");
    items = `${server.api}/items?limit=50`;
    for (let n = 0; n < 300; n++) {
      const blog = await addBlog(server.storage, { title: `Blog ${n}`, siteUrl: `https://b${n}.example/` });
      blogId = blog.id;
      if (n < 60) await addItems(server.storage, blog.id, [item(`b${n}`, new Date(Date.now() - (n + 2) * HOUR))]);
    }
  });
  after(() => server.close());

  it("sends a small answer gzipped in one piece: its length given, not chunked, the plain body's bytes and ETag", async () => {
    const plain = await rawGet(items, { "Accept-Encoding": "identity" });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.ok(plain.body.length > 1024 && plain.body.length < 64 * 1024, `${plain.body.length} bytes`);
    const zipped = await rawGet(items, { "Accept-Encoding": "gzip" });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers["content-encoding"], "gzip");
    assert.equal(zipped.headers["transfer-encoding"], undefined);
    assert.equal(zipped.headers["content-length"], String(zipped.body.length));
    assert.ok(zipped.body.length < plain.body.length / 2, `${zipped.body.length} of ${plain.body.length} bytes`);
    assert.deepEqual(gunzipSync(zipped.body), plain.body);
    assert.equal(zipped.headers.etag, plain.headers.etag);
    assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
    assert.match(String(plain.headers.vary), /Accept-Encoding/i);
  });

  it("sends br to a reader that asks for it; plain when no coding of ours is accepted", async () => {
    const plain = await rawGet(items, {});
    assert.equal(plain.headers["content-encoding"], undefined);
    const br = await rawGet(items, { "Accept-Encoding": "br;q=1, gzip;q=0.5" });
    assert.equal(br.headers["content-encoding"], "br");
    assert.equal(br.headers["content-length"], String(br.body.length));
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    for (const refused of ["identity", "gzip;q=0, br;q=0"]) {
      const answer = await rawGet(items, { "Accept-Encoding": refused });
      assert.equal(answer.headers["content-encoding"], undefined, refused);
      assert.deepEqual(answer.body, plain.body, refused);
    }
  });

  it("compresses a body once however many readers ask, and again after a change", async () => {
    await rawGet(items, { "Accept-Encoding": "gzip" });
    const made = onTheSpot.made;
    for (let n = 0; n < 3; n++) await rawGet(items, { "Accept-Encoding": "gzip" });
    assert.equal(onTheSpot.made, made, "the same body: the copy made before");
    await addItems(server.storage, blogId, [item("fresh", new Date())]);
    const changed = await rawGet(items, { "Accept-Encoding": "gzip" });
    assert.equal(onTheSpot.made, made + 1, "a new body: compressed once more");
    assert.match(gunzipSync(changed.body).toString("utf8"), /Post fresh/);
  });

  it("answers a revalidation 304 whatever the coding asked for", async () => {
    const zipped = await rawGet(items, { "Accept-Encoding": "gzip" });
    const again = await rawGet(items, { "Accept-Encoding": "gzip", "If-None-Match": String(zipped.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  it("leaves a large answer to the compression middleware, which still compresses it", async () => {
    const url = `${server.api}/blogs?limit=300`;
    const plain = await rawGet(url, { "Accept-Encoding": "identity" });
    assert.ok(plain.body.length > 64 * 1024, `${plain.body.length} bytes`);
    const made = onTheSpot.made;
    const zipped = await rawGet(url, { "Accept-Encoding": "gzip" });
    assert.equal(zipped.headers["content-encoding"], "gzip");
    assert.deepEqual(gunzipSync(zipped.body), plain.body);
    assert.equal(onTheSpot.made, made, "not compressed on the spot");
  });
});
