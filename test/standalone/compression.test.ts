import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { WIDGET_FILE } from "../../lib/widget/route.js";
import { logIn, type AdminSession } from "../admin/admin-session.js";
import { rawGet } from "../support/raw-get.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe("standalone compression", () => {
  let server: TestServer;
  let admin: AdminSession;
  before(async () => {
    server = await startTestServer("sqlite");
    admin = await logIn(server);
  });
  after(() => server.close());

  it("sends the widget gzipped to a browser that accepts it, and as is to one that does not", async () => {
    const url = `${server.baseUrl}${server.plugin.mountPath}/widget.js`;
    const file = readFileSync(WIDGET_FILE);
    const zipped = await rawGet(url, { "Accept-Encoding": "gzip, deflate, br;q=0" });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers["content-encoding"], "gzip");
    assert.match(String(zipped.headers.vary), /Accept-Encoding/);
    assert.ok(zipped.body.length < file.length / 2, `${zipped.body.length} bytes of ${file.length}`);
    assert.deepEqual(gunzipSync(zipped.body), file);
    const plain = await rawGet(url, {});
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.deepEqual(plain.body, file);
  });

  it("compresses the admin's stylesheet too (a public asset)", async () => {
    const css = await rawGet(`${server.baseUrl}/assets/${server.plugin.id}/styles.css`, { "Accept-Encoding": "gzip" });
    assert.equal(css.status, 200);
    assert.equal(css.headers["content-encoding"], "gzip");
  });

  it("never compresses an admin page (its CSRF token beside text a link can set)", async () => {
    const page = await rawGet(`${server.baseUrl}${server.plugin.mountPath}/blogs?q=${"x".repeat(2000)}`, {
      "Accept-Encoding": "gzip",
      Cookie: admin.cookie,
      Accept: "text/html",
    });
    assert.equal(page.status, 200);
    assert.ok(page.body.length > 2000);
    assert.equal(page.headers["content-encoding"], undefined);
    assert.match(page.body.toString("utf8"), /name="_csrf"/);
  });
});
