import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HostLimiter } from "../../lib/http/host-limiter.js";

/** A promise with its resolve exposed, so tests decide when tasks finish. */
function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("HostLimiter", () => {
  it("runs at most perHost tasks per host and starts waiting ones first come, first served", async () => {
    const limiter = new HostLimiter(2);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const task = (host: string, id: string) => {
      const gate = deferred();
      gates.set(id, gate);
      return limiter.run(host, async () => {
        started.push(id);
        await gate.promise;
        return id;
      });
    };
    const all = Promise.all([task("a.example", "a0"), task("a.example", "a1"), task("a.example", "a2"), task("a.example", "a3"), task("b.example", "b0"), task("A.EXAMPLE", "a4")]);
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0"], "two for a.example, other hosts unaffected");
    assert.equal(limiter.activeFor("a.example"), 2);
    gates.get("a1")?.resolve();
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0", "a2"]);
    gates.get("a0")?.resolve();
    gates.get("a2")?.resolve();
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0", "a2", "a3", "a4"], "host names compare case-insensitively, order kept");
    for (const gate of gates.values()) gate.resolve();
    assert.deepEqual(await all, ["a0", "a1", "a2", "a3", "b0", "a4"]);
    assert.equal(limiter.activeFor("a.example"), 0);
  });

  it("frees the slot when a task fails", async () => {
    const limiter = new HostLimiter(1);
    await assert.rejects(limiter.run("x", async () => Promise.reject(new Error("boom"))), /boom/);
    assert.equal(await limiter.run("x", async () => "next"), "next");
    assert.equal(limiter.activeFor("x"), 0);
  });

  it("refuses a limit below one", () => {
    assert.throws(() => new HostLimiter(0), RangeError);
    assert.throws(() => new HostLimiter(1.5), RangeError);
  });
});
