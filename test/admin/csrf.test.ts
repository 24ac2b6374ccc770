/**
 * The admin's CSRF guard and the Bearer parser, over HTTP on loopback: an
 * Express app with the plugin's own middlewares behind a stand-in for the
 * host's session (a request names its session in a test header; the host
 * would find it from its cookie).
 */
import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, describe, it } from "node:test";
import express from "express";
import { bearerToken, exposeCsrfToken, isBearerRequest, requireCsrf } from "../../lib/admin/csrf.js";

type TestSession = { blogrollCsrf?: string; access_token?: unknown };

const sessions = new Map<string, TestSession>();
let server: Server;
let base: string;

before(async () => {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use((request, _response, next) => {
    const session = sessions.get(request.get("X-Test-Session") ?? "");
    if (session) Object.assign(request, { session });
    next();
  });
  app.use(exposeCsrfToken);
  app.use(requireCsrf);
  app.all("/action", (request, response) => {
    response.json({ csrfToken: response.locals.csrfToken ?? null, bearer: isBearerRequest(request) });
  });
  server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

let sequence = 0;
/** A new host session; its CSRF token as the first page would show it. */
async function newSession(fields: TestSession = {}): Promise<{ id: string; token: string }> {
  const id = `s${++sequence}`;
  sessions.set(id, { ...fields });
  const page = await fetch(`${base}/action`, { headers: { "X-Test-Session": id } });
  assert.equal(page.status, 200);
  return { id, token: (await page.json()).csrfToken };
}

function post(
  session: string | null,
  init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string>; method?: string } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (session) headers["X-Test-Session"] = session;
  let body: string | URLSearchParams | undefined;
  if (init.form) body = new URLSearchParams(init.form);
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["Content-Type"] = "application/json";
  }
  return fetch(`${base}/action`, { method: init.method ?? "POST", headers, body });
}

describe("CSRF token", () => {
  it("is made once per session, kept in it, and shown to views", async () => {
    const { id, token } = await newSession();
    assert.match(token, /^[A-Za-z0-9_-]{32}$/, "24 random bytes, base64url");
    assert.equal(sessions.get(id)?.blogrollCsrf, token);
    const again = await (await fetch(`${base}/action`, { headers: { "X-Test-Session": id } })).json();
    assert.equal(again.csrfToken, token);
    const other = await newSession();
    assert.notEqual(other.token, token);
    const kept = await newSession({ blogrollCsrf: "the host's own token" });
    assert.equal(kept.token, "the host's own token");
  });

  it("without a session there is no token to show", async () => {
    const page = await fetch(`${base}/action`);
    assert.equal(page.status, 200);
    assert.equal((await page.json()).csrfToken, null);
  });
});

describe("requireCsrf", () => {
  it("lets reads through without a token", async () => {
    const { id } = await newSession();
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      assert.equal((await fetch(`${base}/action`, { method, headers: { "X-Test-Session": id } })).status, 200, method);
    }
  });

  it("refuses every other method without the session's token", async () => {
    const { id } = await newSession();
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      assert.equal((await post(id, { method })).status, 403, method);
  });

  it("takes the session's token from the form or the X-CSRF-Token header", async () => {
    const { id, token } = await newSession();
    assert.equal((await post(id, { form: { _csrf: token } })).status, 200);
    assert.equal((await post(id, { headers: { "X-CSRF-Token": token } })).status, 200);
    assert.equal((await post(id, { json: { _csrf: token } })).status, 200);
    // A form field that is not text is no token: the header is read instead.
    assert.equal((await post(id, { json: { _csrf: 12345 }, headers: { "X-CSRF-Token": token } })).status, 200);
  });

  it("refuses another session's token, a forged one of the same length, and one without a session", async () => {
    const mine = await newSession();
    const theirs = await newSession();
    const last = mine.token.at(-1) === "A" ? "B" : "A";
    for (const given of [theirs.token, mine.token.slice(0, -1) + last, mine.token.slice(0, -1), `${mine.token}A`]) {
      assert.equal((await post(mine.id, { form: { _csrf: given } })).status, 403, given);
      assert.equal((await post(mine.id, { headers: { "X-CSRF-Token": given } })).status, 403, given);
    }
    assert.equal((await post(null, { form: { _csrf: mine.token } })).status, 403, "no session, no token to match");
  });

  it("says why in JSON to a client that asks for JSON, in plain text to others", async () => {
    const { id } = await newSession();
    const json = await post(id, { headers: { Accept: "application/json" } });
    assert.equal(json.status, 403);
    assert.deepEqual(await json.json(), { error: "Invalid CSRF token" });
    for (const accept of ["text/html", "text/html,application/json;q=0.9"]) {
      const text = await post(id, { headers: { Accept: accept } });
      assert.equal(text.status, 403);
      assert.match(text.headers.get("content-type") ?? "", /^text\/plain/, accept);
      assert.equal(await text.text(), "Invalid CSRF token");
    }
  });
});

describe("Bearer requests", () => {
  const environment = process.env.NODE_ENV;
  afterEach(() => {
    if (environment === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = environment;
  });

  it("need no CSRF token when the host authenticated them by that Bearer token", async () => {
    const { id } = await newSession({ access_token: "script token" });
    const response = await post(id, { headers: { Authorization: "Bearer script token" } });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).bearer, true);
  });

  it("a session request stays checked whatever Authorization header it adds", async () => {
    const { id } = await newSession({ access_token: "session-abc" });
    for (const header of ["Bearer something else", "Bearer session-ab", "Basic session-abc", "Bearer "]) {
      assert.equal((await post(id, { headers: { Authorization: header } })).status, 403, header);
    }
    assert.equal((await post(null, { headers: { Authorization: "Bearer session-abc" } })).status, 403, "no session");
  });

  it("in Indiekit's dev mode (every request signed in as development) a Bearer header is the credential", async () => {
    const { id } = await newSession({ access_token: "development" });
    process.env.NODE_ENV = "development";
    assert.equal((await post(id, { headers: { Authorization: "Bearer anything" } })).status, 200);
    assert.equal((await post(id)).status, 403, "a form without a Bearer header is still checked");
    process.env.NODE_ENV = "production";
    assert.equal((await post(id, { headers: { Authorization: "Bearer anything" } })).status, 403, "only in dev mode");
    process.env.NODE_ENV = "development";
    const login = await newSession({ access_token: "session-abc" });
    assert.equal(
      (await post(login.id, { headers: { Authorization: "Bearer anything" } })).status,
      403,
      "and only for the development sign-in",
    );
  });
});

describe("bearerToken", () => {
  it("reads the token of an Authorization: Bearer header, spaces inside kept", () => {
    assert.equal(bearerToken("Bearer abc"), "abc");
    assert.equal(bearerToken("bearer abc"), "abc");
    assert.equal(bearerToken("BEARER\tabc"), "abc");
    assert.equal(bearerToken("Bearer   a token with spaces  "), "a token with spaces");
  });

  it("is null without a Bearer token", () => {
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Bearer    ",
      "Bearerabc",
      "Basic abc",
      " Bearer abc",
      "xBearer abc",
      "Token Bearer abc",
      "Bearer abc\nxyz",
    ]) {
      assert.equal(bearerToken(header), null, String(header));
    }
  });
});
