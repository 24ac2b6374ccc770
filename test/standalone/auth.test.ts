/**
 * The standalone login (issue 17): a malformed session cookie is no session
 * (401, not 500), the admin token has a minimum length, failed attempts are
 * throttled per client address, the session cookie is Secure over https, and
 * a generated token is not printed into a collected log.
 */
import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import BlogrollEndpoint from "../../index.js";
import { MIN_TOKEN_LENGTH, SESSION_COOKIE } from "../../lib/standalone/auth.js";
import { createStandaloneApp, LOGIN_PATH } from "../../lib/standalone/app.js";
import { parseTrustProxy, type TrustProxy } from "../../lib/standalone/trust-proxy.js";
import { CHILD_TOKEN, startStandalone, waitFor } from "../hardening/standalone-process.js";

const TOKEN = "auth-test-token-0123";

let hosts = 0;

interface Host {
  base: string;
  mount: string;
  close(): Promise<void>;
}

/** The standalone app on a loopback port; `tls` marks every connection encrypted, as an https server's are. */
async function startHost(
  folder: string,
  tls = false,
  host: { trustProxy?: TrustProxy; adminToken?: string; database?: string } = {},
): Promise<Host> {
  const databasePath = path.join(folder, host.database ?? `${tls ? "tls" : "plain"}-${++hosts}.db`);
  const plugin = new BlogrollEndpoint({ scheduler: false, mongodbUrl: null, databasePath });
  const { app } = await createStandaloneApp(plugin, {
    adminToken: host.adminToken ?? TOKEN,
    trustProxy: host.trustProxy,
  });
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

/** A login form post from a chosen loopback source address (another "client"), with extra headers (a proxy's). */
function login(
  host: Host,
  token: string,
  from = "127.0.0.1",
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const body = new URLSearchParams({ token }).toString();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${host.base}${LOGIN_PATH}`,
      {
        method: "POST",
        localAddress: from,
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers }));
      },
    );
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
    const page = await fetch(`${host.mount}/sources`, {
      headers: { ...cookie, Accept: "text/html" },
      redirect: "manual",
    });
    assert.equal(page.status, 302, "a browser is sent to the login form");
  });

  it("throttles a client after 10 failed attempts (form or Bearer), whatever it sends next; other clients still log in", async () => {
    for (let attempt = 1; attempt <= 9; attempt++) assert.equal((await login(host, `wrong-${attempt}`)).status, 401);
    const bearer = await fetch(`${host.mount}/api/microsub-status`, {
      headers: { Authorization: "Bearer wrong-token-number-ten", Accept: "application/json" },
    });
    assert.equal(bearer.status, 401, "the tenth failure, by Bearer token");

    const throttled = await login(host, TOKEN);
    assert.equal(throttled.status, 429, "the right token is not even checked while the client waits");
    const wait = Number(throttled.headers["retry-after"]);
    assert.ok(wait > 0 && wait <= 15 * 60, `Retry-After ${wait}`);
    const bearerNow = await fetch(`${host.mount}/api/microsub-status`, {
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: "application/json" },
    });
    assert.equal(bearerNow.status, 429);
    assert.deepEqual(await bearerNow.json(), { error: "Too many failed attempts" });

    const other = await login(host, TOKEN, "127.0.0.2");
    assert.equal(other.status, 303, "another address is not held back");
  });
});

describe("standalone token check", () => {
  let host: Host;
  before(async () => {
    host = await startHost(folder);
  });
  after(() => host.close());

  it("refuses a wrong token of the right length, by the login form and by Bearer", async () => {
    const wrong = ["X" + TOKEN.slice(1), TOKEN.slice(0, 9) + "X" + TOKEN.slice(10), TOKEN.slice(0, -1) + "X"];
    for (const token of wrong) {
      assert.equal(token.length, TOKEN.length);
      const form = await login(host, token);
      assert.equal(form.status, 401, token);
      assert.equal(form.headers["set-cookie"], undefined, "no session for a wrong token");
      const bearer = await fetch(`${host.mount}/api/microsub-status`, {
        headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      });
      assert.equal(bearer.status, 401, token);
    }
    // Six failures, under the throttle: the right token still passes both ways.
    assert.equal((await login(host, TOKEN)).status, 303);
    assert.equal(
      (await fetch(`${host.mount}/api/microsub-status`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status,
      200,
    );
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
    const plugin = new BlogrollEndpoint({
      scheduler: false,
      mongodbUrl: null,
      databasePath: path.join(folder, "short.db"),
    });
    await assert.rejects(createStandaloneApp(plugin, { adminToken: "x" }), /must be at least 16 characters long/);
  });

  it(
    "writes a generated token to a file only its owner can read, and logs the file, not the token",
    { timeout: 60_000 },
    async () => {
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
        const response = await fetch(`${server.base}/blogrollapi/api/microsub-status`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        assert.equal(response.status, 200);
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    },
  );
});

describe("standalone behind a proxy, Bearer tokens with spaces, the token file (issue 22)", () => {
  it("trustProxy: the session cookie is Secure when the TLS-terminating proxy says https, and throttling sees client addresses", async () => {
    const plain = await startHost(folder);
    try {
      const cookie = String(
        (await login(plain, TOKEN, "127.0.0.1", { "X-Forwarded-Proto": "https" })).headers["set-cookie"],
      );
      assert.doesNotMatch(cookie, /Secure/i, "without trustProxy a forwarded header is not believed");
    } finally {
      await plain.close();
    }
    const proxied = await startHost(folder, false, { trustProxy: "loopback" });
    try {
      const response = await login(proxied, TOKEN, "127.0.0.1", {
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": "203.0.113.9",
      });
      assert.equal(response.status, 303);
      assert.match(String(response.headers["set-cookie"]), /;\s*Secure/i);
      for (let attempt = 1; attempt <= 10; attempt++) {
        assert.equal(
          (await login(proxied, `wrong-${attempt}`, "127.0.0.1", { "X-Forwarded-For": "203.0.113.5" })).status,
          401,
        );
      }
      assert.equal(
        (await login(proxied, TOKEN, "127.0.0.1", { "X-Forwarded-For": "203.0.113.5" })).status,
        429,
        "the guessing client waits",
      );
      assert.equal(
        (await login(proxied, TOKEN, "127.0.0.1", { "X-Forwarded-For": "203.0.113.6" })).status,
        303,
        "another client behind the same proxy does not",
      );
    } finally {
      await proxied.close();
    }
  });

  it("trustProxy takes true/false, hops or addresses, and refuses anything else", () => {
    assert.equal(parseTrustProxy("true"), true);
    assert.equal(parseTrustProxy(""), false);
    assert.equal(parseTrustProxy("2"), 2);
    assert.equal(parseTrustProxy(1), 1);
    assert.equal(parseTrustProxy("loopback, 10.0.0.0/8"), "loopback, 10.0.0.0/8");
    assert.throws(() => parseTrustProxy("not an address"), /trustProxy/);
    assert.throws(() => parseTrustProxy({}), /trustProxy/);
  });

  it("a Bearer token with spaces passes the login and the CSRF check alike; one that could never be sent is refused at start", async () => {
    const spaced = "a long admin token with spaces";
    const host = await startHost(folder, false, { adminToken: spaced });
    try {
      const response = await fetch(`${host.mount}/sync`, {
        method: "POST",
        headers: { Authorization: `Bearer ${spaced}`, Accept: "application/json" },
      });
      assert.equal(response.status, 202, "not 403 Invalid CSRF token");
      const wrong = await fetch(`${host.mount}/sync`, {
        method: "POST",
        headers: { Authorization: "Bearer a long admin token", Accept: "application/json" },
      });
      assert.equal(wrong.status, 401);
    } finally {
      await host.close();
    }
    const plugin = new BlogrollEndpoint({
      scheduler: false,
      mongodbUrl: null,
      databasePath: path.join(folder, "padded.db"),
    });
    await assert.rejects(createStandaloneApp(plugin, { adminToken: " padded-admin-token-0123 " }), /white space/);
  });

  it(
    "writes the generated token file in one step, never through a link placed at its name",
    { timeout: 60_000 },
    async () => {
      const run = mkdtempSync(path.join(folder, "atomic-"));
      const victim = path.join(folder, "victim.txt");
      writeFileSync(victim, "untouched\n");
      symlinkSync(victim, path.join(run, "admin-token"));
      const changes: string[] = [];
      const watcher = watch(run, (event, name) => {
        if (name === "admin-token") changes.push(event);
      });
      const server = await startStandalone(run, { scheduler: false }, { BLOGROLL_ADMIN_TOKEN: "" });
      try {
        await waitFor("the admin token line", () => /admin token/.test(server.output()));
        await new Promise((resolve) => setTimeout(resolve, 200)); // let the last file events arrive
        const file = path.join(run, "admin-token");
        assert.equal(readFileSync(victim, "utf8"), "untouched\n", "the link's target is not written");
        assert.ok(lstatSync(file).isFile(), "a regular file, not the link");
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.ok(readFileSync(file, "utf8").trim().length >= MIN_TOKEN_LENGTH);
        assert.ok(
          !changes.includes("change"),
          `the file appeared whole, never written in place (events: ${changes.join(", ")})`,
        );
      } finally {
        watcher.close();
        server.child.kill("SIGTERM");
        await server.exited;
      }
    },
  );
});

/** The session cookie (name=value) a login response sets. */
function sessionCookie(response: { headers: Record<string, string | string[] | undefined> }): string {
  const cookie = String(response.headers["set-cookie"]).split(";")[0];
  assert.match(cookie, new RegExp(`^${SESSION_COOKIE}=`));
  return cookie;
}

/** The status of an admin page asked for as JSON with `cookie`: 200 signed in, 401 not. */
async function adminStatus(host: Host, cookie: string): Promise<number> {
  const response = await fetch(`${host.mount}/api/microsub-status`, {
    headers: { Cookie: cookie, Accept: "application/json" },
  });
  await response.body?.cancel();
  return response.status;
}

describe("standalone sessions survive a restart (issue 26.8)", () => {
  it(
    "a login made before a restart of the server process is still signed in after it, with the same admin token",
    { timeout: 90_000 },
    async () => {
      const run = mkdtempSync(path.join(folder, "restart-"));
      const first = await startStandalone(run, { scheduler: false });
      let cookie: string;
      try {
        const response = await fetch(`${first.base}${LOGIN_PATH}`, {
          method: "POST",
          body: new URLSearchParams({ token: CHILD_TOKEN }),
          redirect: "manual",
        });
        assert.equal(response.status, 303);
        cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
        assert.match(response.headers.get("set-cookie") ?? "", /Max-Age=604800/, "the cookie claims seven days");
      } finally {
        first.child.kill("SIGTERM");
        await first.exited;
      }
      const second = await startStandalone(run, { scheduler: false });
      try {
        const page = await fetch(`${second.base}/blogrollapi/sources`, {
          headers: { Cookie: cookie, Accept: "text/html" },
          redirect: "manual",
        });
        assert.equal(page.status, 200, "not sent to the login form");
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    },
  );

  it("a form loaded before a restart still posts (its CSRF token holds); a logout holds across a restart too", async () => {
    const database = "sessions.db";
    let host = await startHost(folder, false, { database });
    let cookie: string;
    let csrf: string;
    try {
      cookie = sessionCookie(await login(host, TOKEN));
      const page = await (await fetch(`${host.mount}/sources`, { headers: { Cookie: cookie } })).text();
      csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
      assert.ok(csrf);
    } finally {
      await host.close();
    }
    host = await startHost(folder, false, { database });
    try {
      const sync = await fetch(`${host.mount}/sync`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf }),
        redirect: "manual",
      });
      assert.equal(sync.status, 303, "the old page's token is accepted");
      const forged = await fetch(`${host.mount}/sync`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: `${csrf.slice(0, -1)}x` }),
        redirect: "manual",
      });
      assert.equal(forged.status, 403, "a wrong token is still refused");

      const wrongLogout = await fetch(`${host.base}/session/logout`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: "nope" }),
        redirect: "manual",
      });
      assert.equal(wrongLogout.status, 303);
      assert.equal(await adminStatus(host, cookie), 200, "a logout without the session's token ends nothing");
      const logout = await fetch(`${host.base}/session/logout`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf }),
        redirect: "manual",
      });
      assert.equal(logout.status, 303);
      assert.equal(await adminStatus(host, cookie), 401, "a kept copy of the cookie is refused after the logout");
    } finally {
      await host.close();
    }
    host = await startHost(folder, false, { database });
    try {
      assert.equal(await adminStatus(host, cookie), 401, "and still after a restart");
      assert.equal(await adminStatus(host, sessionCookie(await login(host, TOKEN))), 200, "a new login works");
    } finally {
      await host.close();
    }
  });

  it("changing the admin token logs everyone out; a cookie altered, expired or signed with another key is no session", async () => {
    const database = "token-change.db";
    let host = await startHost(folder, false, { database });
    let cookie: string;
    try {
      cookie = sessionCookie(await login(host, TOKEN));
      const [name, value] = cookie.split("=");
      const [id, expiry, mac] = decodeURIComponent(value).split(".");
      const later = `${name}=${id}.${Number(expiry) + 86_400_000}.${mac}`;
      const expired = `${name}=${id}.${Date.now() - 1000}.${mac}`;
      const otherMac = `${name}=${id}.${expiry}.${"A".repeat(43)}`;
      for (const altered of [later, expired, otherMac, `${name}=${id}`, `${name}=${value}x`]) {
        assert.equal(await adminStatus(host, altered), 401, altered);
      }
      assert.equal(await adminStatus(host, cookie), 200);
    } finally {
      await host.close();
    }
    host = await startHost(folder, false, { database, adminToken: "another-admin-token-4567" });
    try {
      assert.equal(await adminStatus(host, cookie), 401, "a session of the old token is over");
    } finally {
      await host.close();
    }
  });
});
