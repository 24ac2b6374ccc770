import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Agent, request } from "undici";
import zlib from "node:zlib";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";

/** A plain GET through `agent` with a chosen Host header; returns status, headers and raw body bytes. */
async function get(agent: Agent, url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { dispatcher: agent, headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body };
}

describe("fixture server (test helper)", () => {
  let server: FixtureServer;
  let agent: Agent;
  before(async () => {
    server = await startFixtureServer();
    agent = new Agent({ connections: 10 });
  });
  after(async () => {
    await agent.close();
    await server.close();
  });

  it("listens on 127.0.0.1, routes by path (query-exact first) and counts hits", async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    server.route("/a", respond.text("plain a"));
    server.route("/a?x=1", respond.text("a with x"));
    assert.equal((await get(agent, `${server.url}/a`)).body.toString(), "plain a");
    assert.equal((await get(agent, `${server.url}/a?x=1`)).body.toString(), "a with x");
    assert.equal((await get(agent, `${server.url}/a?y=2`)).body.toString(), "plain a");
    assert.equal(server.hits("/a"), 3);
    assert.equal(server.hits("/a?x=1"), 1);
    assert.equal((await get(agent, `${server.url}/missing`)).status, 404);
    assert.equal(server.lastHeaders("/missing")?.host, `127.0.0.1:${server.port}`);
  });

  it("serves compressed bodies, redirects and 304 on matching validators", async () => {
    server.route("/gz", respond.compressed("squeezed", "gzip"));
    const gz = await get(agent, `${server.url}/gz`);
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.equal(zlib.gunzipSync(gz.body).toString(), "squeezed");
    server.route("/moved", respond.redirect("/gz", 308));
    const moved = await get(agent, `${server.url}/moved`);
    assert.equal(moved.status, 308);
    assert.equal(moved.headers.location, "/gz");
    server.route("/cond", respond.conditional("body", { etag: '"e1"', lastModified: "Mon, 23 Nov 2026 08:00:00 GMT" }));
    assert.equal((await get(agent, `${server.url}/cond`)).status, 200);
    assert.equal((await get(agent, `${server.url}/cond`, { "if-none-match": 'W/"e1", "e0"' })).status, 304);
    assert.equal((await get(agent, `${server.url}/cond`, { "if-none-match": '"e2"' })).status, 200);
    assert.equal(
      (await get(agent, `${server.url}/cond`, { "if-modified-since": "Tue, 24 Nov 2026 08:00:00 GMT" })).status,
      304,
    );
    assert.equal(
      (await get(agent, `${server.url}/cond`, { "if-modified-since": "Sun, 22 Nov 2026 08:00:00 GMT" })).status,
      200,
    );
  });

  it("counts simultaneous requests and connections per Host header", async () => {
    server.reset();
    const release: Array<() => void> = [];
    server.route("/hold", (_request, response) => void release.push(() => response.end("done")));
    const held = [
      get(agent, `${server.url}/hold`, { host: "one.example" }),
      get(agent, `${server.url}/hold`, { host: "one.example" }),
      get(agent, `${server.url}/hold`, { host: "two.example:8080" }),
    ];
    while (release.length < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.host("one.example").active, 2);
    assert.equal(server.host("ONE.example").connections, 2);
    assert.equal(server.host("two.example").active, 1);
    assert.equal(server.host("never.example").peak, 0);
    for (const done of release) done();
    await Promise.all(held);
    assert.equal(server.host("one.example").peak, 2);
    assert.equal(server.host("one.example").peakConnections, 2);
    assert.equal(server.host("one.example").active, 0);
    assert.ok(server.connections.total >= 2);
  });

  it("trickles a body chunk by chunk and can delay an answer", async () => {
    server.route("/drip", respond.trickle("x", 5, { count: 4 }));
    assert.equal((await get(agent, `${server.url}/drip`)).body.toString(), "xxxx");
    server.route("/later", respond.delayed(20, respond.text("later")));
    assert.equal((await get(agent, `${server.url}/later`)).body.toString(), "later");
  });

  it("listens on another loopback address when asked", async () => {
    const other = await startFixtureServer(respond.text("from .2"), { address: "127.0.0.2" });
    try {
      assert.match(other.url, /^http:\/\/127\.0\.0\.2:\d+$/);
      assert.equal((await get(agent, `${other.url}/anything`)).body.toString(), "from .2");
    } finally {
      await other.close();
    }
  });
});
