/**
 * The standalone login (issue 17): a malformed session cookie is no session
 * (401, not 500), the admin token has a minimum length, failed attempts are
 * throttled per client address, the session cookie is Secure over https, and
 * a generated token is not printed into a collected log.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import BlogrollEndpoint from "../../index.js";
import { MIN_TOKEN_LENGTH, SESSION_COOKIE } from "../../lib/standalone/auth.js";
import { createStandaloneApp, LOGIN_PATH } from "../../lib/standalone/app.js";
import { startStandalone, waitFor } from "../hardening/standalone-process.js";

const TOKEN = "auth-test-token-0123";

interface Host {
  base: string;
  mount: string;
  close(): Promise<void>;
}

/** The standalone app on a loopback port; `tls` marks every connection encrypted, as an https server's are. */
async function startHost(folder: string, tls = false): Promise<Host> {
  const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null, databasePath: path.join(folder, `${tls ? "tls" : "plain"}.db`) });
  const { app } = await createStandaloneApp(plugin, { adminToken: TOKEN });
  const server: Server = createServer(app);
  if (tls) server.on("connection", (socket) => Object.assign(socket, { encrypted: true }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    mount: `${base}${plugin.mountPath}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await plugin.destroy();
    },
  };
}

/** A login form post from a chosen loopback source address (another "client"). */
function login(host: Host, token: string, from = "127.0.0.1"): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const body = new URLSearchParams({ token }).toString();
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${host.base}${LOGIN_PATH}`, { method: "POST", localAddress: from, headers: { "content-type": "application/x-www-form-urlencoded" } }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

let folder: string;
before(() => {
  folder = mkdtempSync(path.join(tmpdir(), "blogroll-auth-"));
});
after(() => rmSync(folder, { recursive: true, force: true }));

describe("standalone authentication", () => {
  let host: Host;
  before(async () => {
    host = await startHost(folder);
  });
  after(() => host.close());

  it("answers a malformed session cookie like no session: 401, not 500", async () => {
    const cookie = { Cookie: `${SESSION_COOKIE}=%E0%A4%A` };
    for (const route of ["", "/sources", "/api/microsub-status"]) {
      const response = await fetch(`${host.mount}${route}`, { headers: { ...cookie, Accept: "application/json" } });
      assert.equal(response.status, 401, route);
      assert.deepEqual(await response.json(), { error: "Authentication required" });
    }
    const page = await fetch(`${host.mount}/sources`, { headers: { ...cookie, Accept: "text/html" }, redirect: "manual" });
    assert.equal(page.status, 302, "a browser is sent to the login form");
  });

  it("throttles a client after 10 failed attempts (form or Bearer), whatever it sends next; other clients still log in", async () => {
    for (let attempt = 1; attempt <= 9; attempt++) assert.equal((await login(host, `wrong-${attempt}`)).status, 401);
    const bearer = await fetch(`${host.mount}/api/microsub-status`, { headers: { Authorization: "Bearer wrong-token-number-ten", Accept: "application/json" } });
    assert.equal(bearer.status, 401, "the tenth failure, by Bearer token");

    const throttled = await login(host, TOKEN);
    assert.equal(throttled.status, 429, "the right token is not even checked while the client waits");
    const wait = Number(throttled.headers["retry-after"]);
    assert.ok(wait > 0 && wait <= 15 * 60, `Retry-After ${wait}`);
    const bearerNow = await fetch(`${host.mount}/api/microsub-status`, { headers: { Authorization: `Bearer ${TOKEN}`, Accept: "application/json" } });
    assert.equal(bearerNow.status, 429);
    assert.deepEqual(await bearerNow.json(), { error: "Too many failed attempts" });

    const other = await login(host, TOKEN, "127.0.0.2");
    assert.equal(other.status, 303, "another address is not held back");
  });
});

describe("standalone session cookie and token", () => {
  it("sets Secure on the session cookie over https only", async () => {
    for (const tls of [false, true]) {
      const host = await startHost(folder, tls);
      try {
        const response = await login(host, TOKEN);
        assert.equal(response.status, 303);
        const cookie = String(response.headers["set-cookie"]);
        assert.match(cookie, /HttpOnly/);
        if (tls) assert.match(cookie, /;\s*Secure/i);
        else assert.doesNotMatch(cookie, /Secure/i);
      } finally {
        await host.close();
      }
    }
  });

  it(`refuses an admin token shorter than ${MIN_TOKEN_LENGTH} characters at start`, async () => {
    const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null, databasePath: path.join(folder, "short.db") });
    await assert.rejects(createStandaloneApp(plugin, { adminToken: "x" }), /must be at least 16 characters long/);
  });

  it("writes a generated token to a file only its owner can read, and logs the file, not the token", { timeout: 60_000 }, async () => {
    const run = mkdtempSync(path.join(folder, "cli-"));
    const server = await startStandalone(run, { scheduler: false }, { BLOGROLL_ADMIN_TOKEN: "" });
    try {
      await waitFor("the admin token line", () => /admin token/.test(server.output()));
      const file = /written to (\S+)/.exec(server.output())?.[1];
      assert.ok(file, server.output());
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const token = readFileSync(file, "utf8").trim();
      assert.ok(token.length >= MIN_TOKEN_LENGTH);
      assert.ok(!server.output().includes(token), "the token is not in the output");
      const response = await fetch(`${server.base}/blogrollapi/api/microsub-status`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
