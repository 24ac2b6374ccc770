import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import express, { type NextFunction, type Request, type Response } from "express";
import BlogrollEndpoint from "../../index.js";
import { memoryLogger } from "../support/server.js";

type FakeSession = { access_token?: string; blogrollCsrf?: string };

/**
 * The admin router mounted the way Indiekit mounts it: behind an
 * express-session-like `request.session` (a session is logged in when it
 * holds `access_token`, and lets the request through before any Bearer token
 * is looked at) and a Bearer check, with the host's urlencoded body parser.
 */
describe("admin CSRF inside an Indiekit-like host (express-session, no standalone auth)", () => {
  const sessions = new Map<string, FakeSession>();
  let server: Server;
  let base: string;
  let plugin: BlogrollEndpoint;
  let folder: string;

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-indiekit-"));
    plugin = new BlogrollEndpoint({ databasePath: path.join(folder, "b.db"), mongodbUrl: null, scheduler: false }, memoryLogger([]));
    const app = express();
    app.use(express.urlencoded({ extended: true }));
    app.use((request: Request, response: Response, next: NextFunction) => {
      const sid = /sid=(\w+)/.exec(request.get("Cookie") ?? "")?.[1];
      const session = sid ? sessions.get(sid) : undefined;
      (request as Request & { session?: FakeSession }).session = session ?? {};
      if (session?.access_token) return next();
      if (request.get("Authorization") === "Bearer good-token") return next();
      response.status(401).json({ error: "Unauthorized" });
    });
    app.use(plugin.mountPath, plugin.routes);
    server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${plugin.mountPath}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await plugin.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  const sync = (headers: Record<string, string>, body: Record<string, string> = {}) =>
    fetch(`${base}/sync`, { method: "POST", body: new URLSearchParams(body), headers: { Accept: "application/json", ...headers } });

  it("keeps a token in the session and wants it on every form post made with the session", async () => {
    sessions.set("alice", { access_token: "indieauth-token" });
    const cookie = { Cookie: "sid=alice" };
    assert.equal((await sync(cookie)).status, 403, "no token");
    const token = sessions.get("alice")?.blogrollCsrf;
    assert.ok(token && token.length >= 32, "the session now holds a token");
    assert.equal((await sync(cookie, { _csrf: "wrong" })).status, 403, "wrong token");
    assert.equal((await sync(cookie, { _csrf: token })).status, 202);
    assert.equal((await sync({ ...cookie, "X-CSRF-Token": token })).status, 202, "scripts on the page may send it as a header");
    assert.equal((await sync({ ...cookie, Authorization: "Bearer anything" })).status, 403, "a logged-in session stays checked whatever Authorization header comes with it");
    sessions.set("bob", { access_token: "other" });
    assert.equal((await sync({ Cookie: "sid=bob" }, { _csrf: token })).status, 403, "one session's token is no good for another");
  });

  it("needs no token for a request authenticated by a Bearer token alone", async () => {
    assert.equal((await sync({ Authorization: "Bearer good-token" })).status, 202);
    assert.equal((await sync({ Cookie: "sid=nobody", Authorization: "Bearer good-token" })).status, 202, "a cookie of no logged-in session is no credential");
  });
});
