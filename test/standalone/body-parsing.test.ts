/**
 * The standalone server parses request bodies only where they are read: the
 * session forms (small), and the admin after the login. A public route or an
 * anonymous request to the admin is answered without its body being read,
 * so an anonymous sender cannot make the server parse megabytes of JSON.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { logIn, type AdminSession } from "../admin/admin-session.js";
import { startTestServer, type TestServer } from "../support/server.js";

/**
 * Sends the headers and the first bytes of a body that announces far more,
 * and resolves with the status of the answer: a server that waits for the
 * whole body before routing never answers (the test then times out).
 */
function answerToUnfinishedBody(
  url: string,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: "POST",
      headers: { "content-type": contentType, "content-length": "1000000", ...headers },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    request.on("error", reject);
    request.write(contentType.includes("json") ? "[[[[[[[[[[" : "token=abc&");
  });
}

describe("standalone body parsing: only the session forms and the admin after the login", () => {
  let server: TestServer;
  let admin: AdminSession;

  before(async () => {
    server = await startTestServer("sqlite");
    admin = await logIn(server);
  });
  after(() => server.close());

  // No public route takes a POST: the request falls through to the login check, which answers at once.
  it("answers a public address without reading the body sent to it", { timeout: 20_000 }, async () => {
    assert.equal(
      await answerToUnfinishedBody(`${server.api}/items`, "application/json", { accept: "application/json" }),
      401,
    );
    assert.equal(
      await answerToUnfinishedBody(`${server.api}/status`, "application/x-www-form-urlencoded", {
        accept: "application/json",
      }),
      401,
    );
  });

  it("answers an anonymous admin request without reading its body", { timeout: 20_000 }, async () => {
    assert.equal(
      await answerToUnfinishedBody(`${server.baseUrl}${server.plugin.mountPath}/sync`, "application/json", {
        accept: "application/json",
      }),
      401,
    );
  });

  it("does not parse 2.5 MB of JSON sent to a public route (it once answered 413 from the parser, before routing)", async () => {
    const body = "[".repeat(2_500_000);
    const response = await server.get(`${server.api}/items`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", accept: "application/json" },
    });
    assert.equal(response.status, 401);
  });

  it("reads the login form within a small limit", async () => {
    const response = await server.get("/session/login", {
      method: "POST",
      body: new URLSearchParams({ token: "x".repeat(20_000) }),
      redirect: "manual",
    });
    assert.equal(response.status, 413);
    assert.equal(response.headers.get("set-cookie"), null);
  });

  it("reads admin bodies after the login, within Indiekit's 100 KB", async () => {
    const big = await server.get(`${server.plugin.mountPath}/api/microsub-webhook`, {
      method: "POST",
      body: JSON.stringify({ action: "follow", url: `https://example.org/${"x".repeat(150_000)}` }),
      headers: {
        Cookie: admin.cookie,
        "content-type": "application/json",
        "X-CSRF-Token": admin.csrf,
        accept: "application/json",
      },
    });
    assert.equal(big.status, 413);
    const { blog } = await server.storage.blogs.upsertFromSource({
      feedUrl: "https://blog.example/feed.xml",
      title: "Blog",
      source: "manual",
    });
    const small = await admin.post(`${server.plugin.mountPath}/blogs/${blog.id}`, { title: "Renamed by a small form" });
    assert.equal(small.status, 303, "a form within the limit is read");
    assert.equal((await server.storage.blogs.get(blog.id))?.title, "Renamed by a small form");
  });
});
