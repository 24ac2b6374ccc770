import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { logIn, type AdminSession } from "../admin/admin-session.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";

const OPML = `<?xml version="1.0"?><opml version="2.0"><head><title>t</title></head><body><outline text="A" type="rss" xmlUrl="https://a.example/feed.xml"/></body></opml>`;

describe("standalone multipart: only after the login, only on the upload routes, within the plugin's limits", () => {
  let server: TestServer;
  let admin: AdminSession;
  const maxBodySize = 4096;

  before(async () => {
    server = await startTestServer("sqlite", { maxBodySize });
    admin = await logIn(server);
  });
  after(() => server.close());

  it("does not read a multipart body before the login (the login form takes no multipart token)", async () => {
    const form = new FormData();
    form.append("token", ADMIN_TOKEN);
    const response = await server.get("/session/login", { method: "POST", body: form, redirect: "manual" });
    assert.equal(response.status, 401, "a multipart body is not parsed on a public route");
    assert.equal(response.headers.get("set-cookie"), null);
  });

  it("refuses an anonymous upload without reading it", async () => {
    const form = new FormData();
    form.append("opmlFile", new Blob(["x".repeat(100_000)]), "big.opml");
    const response = await server.get(`${server.plugin.mountPath}/sources`, {
      method: "POST",
      body: form,
      headers: { Accept: "application/json" },
    });
    assert.equal(response.status, 401);
  });

  it("takes one file on the source form, as before", async () => {
    const form = new FormData();
    form.append("type", "opml_file");
    form.append("name", "Uploaded");
    form.append("enabled", "true");
    form.append("action", "save");
    form.append("opmlFile", new Blob([OPML], { type: "text/x-opml" }), "list.opml");
    const response = await admin.post(`${server.plugin.mountPath}/sources`, form);
    assert.equal(response.status, 303);
    assert.ok((await server.storage.sources.list()).some((source) => source.name === "Uploaded"));
  });

  it("refuses a second file and too many fields", async () => {
    const twoFiles = new FormData();
    twoFiles.append("type", "opml_file");
    twoFiles.append("opmlFile", new Blob([OPML]), "one.opml");
    twoFiles.append("other", new Blob([OPML]), "two.opml");
    assert.equal((await admin.post(`${server.plugin.mountPath}/sources`, twoFiles)).status, 413);
    const manyFields = new FormData();
    for (let index = 0; index < 40; index++) manyFields.append(`f${index}`, "x");
    assert.equal((await admin.post(`${server.plugin.mountPath}/sources`, manyFields)).status, 413);
  });

  it("cuts a file at the plugin's maxBodySize, and refuses a body far over it before reading it", async () => {
    const form = new FormData();
    form.append("type", "opml_file");
    form.append("name", "Too big");
    form.append("action", "save");
    form.append(
      "opmlFile",
      new Blob([OPML.replace("</body>", `${"<outline text='x'/>".repeat(400)}</body>`)]),
      "big.opml",
    );
    const response = await admin.post(`${server.plugin.mountPath}/sources`, form);
    assert.equal(response.status, 422, "the form says the file was too large");
    assert.ok(!(await server.storage.sources.list()).some((source) => source.name === "Too big"));

    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${server.baseUrl}${server.plugin.mountPath}/sources`);
      const outgoing = httpRequest(url, {
        method: "POST",
        headers: {
          Cookie: admin.cookie,
          "Content-Type": "multipart/form-data; boundary=x",
          "Content-Length": String(50 * maxBodySize),
        },
      });
      outgoing.on("response", (response) => resolve(response.statusCode ?? 0));
      outgoing.on("error", reject);
      outgoing.write("--x\r\n"); // the rest is never sent: the answer comes before it
    });
    assert.equal(status, 413);
  });
});
