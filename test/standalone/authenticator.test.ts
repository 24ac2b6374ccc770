/**
 * The standalone host's Authenticator on its own: the token check, the
 * per-client throttle and its window, the bounded table of clients, the
 * cookie reader and the middleware over HTTP on loopback
 * (clients told apart by their loopback source address). The clock is
 * Date.now, replaced where a test needs time to pass.
 */
import assert from "node:assert/strict";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, describe, it, mock } from "node:test";
import express, { type Request } from "express";
import { Authenticator, MIN_TOKEN_LENGTH, readCookie, SESSION_COOKIE } from "../../lib/standalone/auth.js";

const TOKEN = "authenticator-token-0123";
const MINUTE = 60_000;

/** Date.now from here on is `at` (and moves when `clock.at` changes). */
function frozenClock(at = Date.now()) {
  const clock = { at };
  mock.method(Date, "now", () => clock.at);
  return clock;
}
afterEach(() => mock.restoreAll());

/** Just enough of an Express request for the cookie reader. */
const withCookie = (cookie: string | undefined) =>
  ({ get: (name: string) => (name.toLowerCase() === "cookie" ? cookie : undefined) }) as unknown as Request;

describe("the admin token", () => {
  it(`must be at least ${MIN_TOKEN_LENGTH} characters`, () => {
    assert.equal(MIN_TOKEN_LENGTH, 16);
    assert.throws(() => new Authenticator("x".repeat(15)), /at least 16 characters/);
    assert.equal(new Authenticator("x".repeat(16)).adminToken, "x".repeat(16));
  });

  it("may hold spaces inside, but no white space at its ends and no line break", () => {
    assert.doesNotThrow(() => new Authenticator("a token with spaces inside"));
    for (const token of [
      ` ${TOKEN}`,
      `${TOKEN} `,
      `${TOKEN}\t`,
      `${TOKEN.slice(0, 8)}\n${TOKEN.slice(8)}`,
      `${TOKEN.slice(0, 8)}\r${TOKEN.slice(8)}`,
    ]) {
      assert.throws(() => new Authenticator(token), /white space or hold a line break/, JSON.stringify(token));
    }
  });

  it("is checked whole: another of the same length, a prefix or a longer one is wrong", () => {
    const auth = new Authenticator(TOKEN);
    assert.equal(auth.checkToken(TOKEN), true);
    for (const token of ["X" + TOKEN.slice(1), TOKEN.slice(0, -1) + "X", TOKEN.slice(0, -1), `${TOKEN}x`, ""])
      assert.equal(auth.checkToken(token), false, token);
  });
});

describe("throttling failed attempts", () => {
  it("lets a client fail ten times in fifteen minutes, then makes it wait out the window, right token or not", () => {
    const clock = frozenClock();
    const auth = new Authenticator(TOKEN);
    for (let attempt = 1; attempt <= 9; attempt++) {
      assert.equal(auth.attempt("a", "wrong"), "wrong");
      assert.equal(auth.retryAfter("a"), 0, `after ${attempt} failures`);
    }
    assert.equal(auth.attempt("a", "wrong"), "wrong");
    assert.equal(auth.retryAfter("a"), 15 * 60);
    assert.equal(auth.attempt("a", TOKEN), "throttled");
    assert.equal(auth.attempt("b", TOKEN), "ok", "another client is not held back");

    clock.at += 15 * MINUTE - 1500;
    assert.equal(auth.retryAfter("a"), 2, "whole seconds, rounded up");
    clock.at += 1499;
    assert.equal(auth.retryAfter("a"), 1);
    assert.equal(auth.attempt("a", TOKEN), "throttled");
    clock.at += 1;
    assert.equal(auth.retryAfter("a"), 0, "the window is over");
    assert.equal(auth.attempt("a", TOKEN), "ok");
  });

  it("counts from the first failure: the window does not move with later ones, and a new one starts after it", () => {
    const clock = frozenClock();
    const auth = new Authenticator(TOKEN);
    auth.attempt("a", "wrong");
    clock.at += 14 * MINUTE;
    for (let attempt = 2; attempt <= 10; attempt++) auth.attempt("a", "wrong");
    assert.equal(auth.retryAfter("a"), 60, "the wait ends with the window that began at the first failure");
    clock.at += MINUTE;
    assert.equal(auth.retryAfter("a"), 0);
    for (let attempt = 1; attempt <= 9; attempt++) assert.equal(auth.attempt("a", "wrong"), "wrong");
    assert.equal(auth.retryAfter("a"), 0, "nine failures of a new window");
    assert.equal(auth.attempt("a", TOKEN), "ok");
    auth.attempt("a", "wrong");
    assert.equal(auth.retryAfter("a"), 15 * 60, "the tenth of the new window throttles for a whole window again");
  });

  it("the window that ends now is over: failures at that moment begin a new one", () => {
    const clock = frozenClock();
    const auth = new Authenticator(TOKEN);
    for (let attempt = 1; attempt <= 10; attempt++) auth.attempt("a", "wrong");
    clock.at += 15 * MINUTE;
    for (let attempt = 1; attempt <= 10; attempt++)
      assert.equal(auth.attempt("a", "wrong"), "wrong", `attempt ${attempt}`);
    assert.equal(auth.retryAfter("a"), 15 * 60);
  });

  it("a client never seen need not wait", () => {
    assert.equal(new Authenticator(TOKEN).retryAfter("nobody"), 0);
  });

  it("tracks at most 10 000 clients, forgetting the oldest first", () => {
    frozenClock();
    const auth = new Authenticator(TOKEN);
    for (let attempt = 1; attempt <= 9; attempt++) auth.attempt("first", "wrong");
    for (let client = 1; client < 10_000; client++) auth.attempt(`client-${client}`, "wrong");
    // Ten thousand tracked: the first still is, and one more failure throttles it.
    const probe = new Authenticator(TOKEN);
    for (let attempt = 1; attempt <= 9; attempt++) probe.attempt("first", "wrong");
    for (let client = 1; client < 10_000; client++) probe.attempt(`client-${client}`, "wrong");
    probe.attempt("first", "wrong");
    assert.equal(probe.retryAfter("first"), 15 * 60, "at 10 000 clients nobody was forgotten yet");

    auth.attempt("newcomer", "wrong");
    auth.attempt("first", "wrong");
    assert.equal(auth.retryAfter("first"), 0, "the 10 001st client pushed out the oldest: its count began again");
    assert.equal(auth.attempt("client-1", "wrong"), "wrong");
  });
});

describe("sessions through the Authenticator", () => {
  it("a login's cookie finds its session until it is ended (sessions.test.ts tests the cookies themselves)", async () => {
    const auth = new Authenticator(TOKEN);
    const { session, cookie } = auth.createSession();
    const request = withCookie(`a=1; ${SESSION_COOKIE}=${encodeURIComponent(cookie)}`);
    assert.deepEqual(await auth.sessionOf(request), session);
    assert.equal(await auth.sessionOf(withCookie(`${SESSION_COOKIE}=${encodeURIComponent(cookie)}x`)), null);
    assert.equal(await auth.sessionOf(withCookie(undefined)), null);
    assert.equal(
      await new Authenticator(`${TOKEN}-other`).sessionOf(request),
      null,
      "another admin token, another key",
    );
    await auth.endSession(session);
    assert.equal(await auth.sessionOf(request), null);
  });
});

describe("readCookie", () => {
  it("reads one cookie among others, trimmed and percent-decoded", () => {
    assert.equal(readCookie(withCookie("a=1; blogroll_session=xyz; b=2"), SESSION_COOKIE), "xyz");
    assert.equal(readCookie(withCookie("  blogroll_session = x%20y%3D  ;b=2"), SESSION_COOKIE), "x y=");
    assert.equal(readCookie(withCookie("blogroll_session=a=b"), SESSION_COOKIE), "a=b", "only the first = separates");
    assert.equal(readCookie(withCookie("blogroll_session="), SESSION_COOKIE), "");
  });

  it("is null when the cookie is absent or not valid percent-encoding", () => {
    for (const header of [
      undefined,
      "",
      "a=1",
      "xblogroll_session=1",
      "blogroll_sessionx=1",
      "blogroll_session",
      "blogroll_sessionx",
      "a=1; blogroll_sessionx",
      "=blogroll_session",
      "blogroll_session=%E0%A4%A",
    ]) {
      assert.equal(readCookie(withCookie(header), SESSION_COOKIE), null, String(header));
    }
  });

  it("the first cookie of the name decides, even when it is not valid", () => {
    assert.equal(readCookie(withCookie("blogroll_session=one; blogroll_session=two"), SESSION_COOKIE), "one");
    assert.equal(readCookie(withCookie("blogroll_session=%E0%A4%A; blogroll_session=two"), SESSION_COOKIE), null);
  });
});

describe("behind a trusted proxy", () => {
  const auth = new Authenticator(TOKEN);
  let server: Server;
  let base: string;
  before(async () => {
    const app = express();
    app.set("trust proxy", "loopback");
    app.use("/admin", auth.middleware("/login"));
    app.get("/admin/*path", (_request, response) => void response.json({ ok: true }));
    server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("counts failures by the client the proxy names, not by the proxy", async () => {
    const as = (client: string, token: string) =>
      fetch(`${base}/admin/x`, {
        headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": client, Accept: "application/json" },
      });
    for (let attempt = 1; attempt <= 10; attempt++) assert.equal((await as("203.0.113.7", "wrong-token")).status, 401);
    assert.equal((await as("203.0.113.7", TOKEN)).status, 429);
    assert.equal((await as("203.0.113.8", TOKEN)).status, 200, "another client behind the same proxy is not held back");
  });
});

describe("the middleware, over HTTP", () => {
  const auth = new Authenticator(TOKEN);
  let server: Server;
  let port: number;
  before(async () => {
    const app = express();
    app.use("/admin", auth.middleware("/login"));
    app.all(
      "/admin/*path",
      (request, response) => void response.json({ session: (request as Request & { session?: unknown }).session }),
    );
    server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A request from a chosen loopback address (another client). */
  function call(
    path: string,
    headers: Record<string, string>,
    from = "127.0.0.1",
    method = "GET",
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: "127.0.0.1", port, path, method, localAddress: from, headers },
        (response) => {
          let body = "";
          response.setEncoding("utf8").on("data", (chunk) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        },
      );
      request.on("error", reject);
      request.end();
    });
  }

  it("lets the admin token through as a Bearer token, handing the route a session holding it", async () => {
    const response = await call("/admin/x", { Authorization: `Bearer ${TOKEN}` }, "127.0.1.1");
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { session: { access_token: TOKEN } });
  });

  it("lets a logged-in session through, handing the route that session", async () => {
    const { session, cookie } = auth.createSession();
    const response = await call("/admin/x", { Cookie: `${SESSION_COOKIE}=${encodeURIComponent(cookie)}` }, "127.0.1.2");
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body).session, { ...session });
  });

  it("sends a browser without credentials to the login form, and answers others 401", async () => {
    const page = await call("/admin/blogs?filter=a%20b", { Accept: "text/html" }, "127.0.1.3");
    assert.equal(page.status, 302);
    assert.equal(page.headers.location, `/login?redirect=${encodeURIComponent("/admin/blogs?filter=a%20b")}`);
    for (const [headers, method] of [
      [{ Accept: "application/json" }, "GET"],
      [{ Accept: "application/json, text/html;q=0.5" }, "GET"],
      [{ Accept: "text/html" }, "POST"],
    ] as const) {
      const response = await call("/admin/x", headers, "127.0.1.3", method);
      assert.equal(response.status, 401, `${method} ${JSON.stringify(headers)}`);
      assert.deepEqual(JSON.parse(response.body), { error: "Authentication required" });
    }
  });

  it("a wrong Bearer token counts as a failure; after ten, that client gets 429 with Retry-After", async () => {
    const from = "127.0.1.4";
    for (let attempt = 1; attempt <= 10; attempt++) {
      const wrong = await call(
        "/admin/x",
        { Authorization: `Bearer ${TOKEN.slice(0, -1)}X`, Accept: "application/json" },
        from,
      );
      assert.equal(wrong.status, 401, `attempt ${attempt}`);
    }
    const throttled = await call("/admin/x", { Authorization: `Bearer ${TOKEN}` }, from);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers["retry-after"], String(15 * 60));
    assert.deepEqual(JSON.parse(throttled.body), { error: "Too many failed attempts" });
    assert.equal(
      (await call("/admin/x", { Authorization: `Bearer ${TOKEN}` }, "127.0.1.5")).status,
      200,
      "another client is not held back",
    );
  });
});
