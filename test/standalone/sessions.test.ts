/**
 * Standalone logins as signed cookies (SessionKeeper): what a cookie
 * carries, which cookies are refused, how long a login lasts, logouts
 * remembered through the store and bounded. The clock is passed in.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MAX_LOGOUTS,
  sameSecret,
  SESSION_TTL,
  SessionKeeper,
  type LogoutStore,
} from "../../lib/standalone/sessions.js";

const TOKEN = "sessions-test-token-0123";
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const DAY = 24 * 3600 * 1000;

/** A logout store in memory that counts its reads and keeps what was written. */
function memoryStore(initial: unknown = null) {
  const store = {
    reads: 0,
    written: null as Record<string, number> | null,
    fail: false,
    async read() {
      store.reads++;
      if (store.fail) throw new Error("storage down");
      return store.written ?? initial;
    },
    async write(logouts: Record<string, number>) {
      store.written = { ...logouts };
    },
  };
  return store satisfies LogoutStore;
}

describe("a session cookie", () => {
  it("is `<id>.<expiry>.<signature>` and carries a session of a week, its CSRF token and a truthy access_token", async () => {
    const keeper = new SessionKeeper(TOKEN);
    const { session, cookie } = keeper.issue(NOW);
    assert.equal(SESSION_TTL, 7 * DAY);
    assert.match(session.id, /^[A-Za-z0-9_-]{24}$/, "18 random bytes");
    assert.match(cookie, new RegExp(`^${session.id}\\.${NOW + SESSION_TTL}\\.[A-Za-z0-9_-]{43}$`));
    assert.equal(session.expiresAt, NOW + SESSION_TTL);
    assert.equal(session.access_token, `session-${session.id}`);
    assert.match(session.blogrollCsrf, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await keeper.read(cookie, NOW), session);
    const other = keeper.issue(NOW);
    assert.notEqual(other.session.id, session.id);
    assert.notEqual(other.session.blogrollCsrf, session.blogrollCsrf);
  });

  it("reads the same after a restart with the same admin token (same CSRF token too), and as nothing under another", async () => {
    const { session, cookie } = new SessionKeeper(TOKEN).issue(NOW);
    assert.deepEqual(await new SessionKeeper(TOKEN).read(cookie, NOW), session);
    assert.equal(await new SessionKeeper(`${TOKEN}x`).read(cookie, NOW), null);
  });

  it("lasts until its expiry, not a millisecond longer", async () => {
    const keeper = new SessionKeeper(TOKEN);
    const { session, cookie } = keeper.issue(NOW);
    assert.deepEqual(await keeper.read(cookie, session.expiresAt - 1), session);
    assert.equal(await keeper.read(cookie, session.expiresAt), null);
  });

  it("is refused when any part is altered or the shape is wrong", async () => {
    const keeper = new SessionKeeper(TOKEN);
    const { cookie } = keeper.issue(NOW);
    const [id, expiry, mac] = cookie.split(".");
    const swap = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const later = String(Number(expiry) + DAY);
    const refused = [
      null,
      "",
      `${swap(id, 0)}.${expiry}.${mac}`,
      `${id}.${later}.${mac}`,
      `${id}.${expiry}.${swap(mac, 42)}`,
      `${id}.${expiry}.${swap(mac, 0)}`,
      `${id}.${expiry}.${mac}.x`,
      `x${cookie}`,
      `${cookie}x`,
      `${id}.${expiry}`,
      `${id.slice(1)}.${expiry}.${mac}`,
      `${id}.${expiry}.${mac.slice(1)}`,
      `${id}.-${expiry}.${mac}`,
      `${id}.${expiry}.${mac}\n`,
      `${id}..${mac}`,
      `${id}.1234567890123456.${mac}`,
    ];
    for (const value of refused) assert.equal(await keeper.read(value, NOW), null, String(value));
    // Signed by this key, but with a made-up id or expiry: still no session unless the signature is right.
    const forged = keeper.issue(NOW).cookie.split(".");
    assert.equal(await keeper.read(`${id}.${forged[1]}.${forged[2]}`, NOW), null);
  });
});

describe("logging out", () => {
  it("refuses the cookie from then on, also for a keeper started later on the same store; other sessions go on", async () => {
    const store = memoryStore();
    const keeper = new SessionKeeper(TOKEN, store);
    const ended = keeper.issue(NOW);
    const kept = keeper.issue(NOW);
    await keeper.end(ended.session, NOW);
    assert.equal(await keeper.read(ended.cookie, NOW), null);
    assert.deepEqual(await keeper.read(kept.cookie, NOW), kept.session);
    assert.deepEqual(store.written, { [ended.session.id]: ended.session.expiresAt });
    const restarted = new SessionKeeper(TOKEN, store);
    assert.equal(await restarted.read(ended.cookie, NOW), null);
    assert.deepEqual(await restarted.read(kept.cookie, NOW), kept.session);
  });

  it("works without a store, in memory", async () => {
    const keeper = new SessionKeeper(TOKEN);
    const { session, cookie } = keeper.issue(NOW);
    await keeper.end(session, NOW);
    assert.equal(await keeper.read(cookie, NOW), null);
  });

  it("forgets logouts whose sessions have expired anyway", async () => {
    const store = memoryStore({ expired: NOW - 1, endsNow: NOW, later: NOW + DAY });
    const keeper = new SessionKeeper(TOKEN, store);
    const { session } = keeper.issue(NOW);
    await keeper.end(session, NOW);
    assert.deepEqual(store.written, { later: NOW + DAY, [session.id]: session.expiresAt });
  });

  it(`remembers at most ${MAX_LOGOUTS} logouts, forgetting those closest to their own expiry first`, async () => {
    assert.equal(MAX_LOGOUTS, 10_000);
    const stored: Record<string, number> = {};
    for (let index = 0; index < MAX_LOGOUTS; index++) stored[`s${index}`] = NOW + DAY + (index === 500 ? -1 : index);
    const store = memoryStore(stored);
    const keeper = new SessionKeeper(TOKEN, store);
    const { session } = keeper.issue(NOW);
    await keeper.end(session, NOW);
    const written = store.written!;
    assert.equal(Object.keys(written).length, MAX_LOGOUTS);
    assert.ok(!("s500" in written), "the one expiring soonest went");
    assert.equal(written.s0, NOW + DAY);
    assert.equal(written[session.id], session.expiresAt);
  });

  it("reads the store once, skips what is not a logout, and tries again after a failed read", async () => {
    const store = memoryStore({ a: NOW + DAY, b: "not a time", c: null });
    const keeper = new SessionKeeper(TOKEN, store);
    const { cookie } = keeper.issue(NOW);
    await Promise.all([keeper.read(cookie, NOW), keeper.read(cookie, NOW)]);
    await keeper.read(cookie, NOW);
    assert.equal(store.reads, 1);
    await keeper.end(keeper.issue(NOW).session, NOW);
    assert.deepEqual(Object.keys(store.written!).slice(0, 1), ["a"], "only the stored time survives");
    assert.equal(Object.keys(store.written!).length, 2);

    const failing = memoryStore();
    failing.fail = true;
    const shaky = new SessionKeeper(TOKEN, failing);
    const login = shaky.issue(NOW);
    await assert.rejects(shaky.read(login.cookie, NOW), /storage down/);
    failing.fail = false;
    assert.deepEqual(await shaky.read(login.cookie, NOW), login.session);
    assert.equal(failing.reads, 2);
  });

  it("a store holding something other than an object counts as no logouts", async () => {
    for (const stored of ["text", 42, [NOW]]) {
      const keeper = new SessionKeeper(TOKEN, memoryStore(stored));
      const { session, cookie } = keeper.issue(NOW);
      assert.deepEqual(await keeper.read(cookie, NOW), session, JSON.stringify(stored));
    }
  });
});

describe("sameSecret", () => {
  it("is true for the same text only", () => {
    assert.equal(sameSecret("a secret value", "a secret value"), true);
    assert.equal(sameSecret("a secret valuE", "a secret value"), false);
    assert.equal(sameSecret("a secret valu", "a secret value"), false);
    assert.equal(sameSecret("", "a secret value"), false);
  });
});
