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
    const all = Promise.all([
      task("a.example", "a0"),
      task("a.example", "a1"),
      task("a.example", "a2"),
      task("a.example", "a3"),
      task("b.example", "b0"),
      task("A.EXAMPLE", "a4"),
    ]);
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0"], "two for a.example, other hosts unaffected");
    assert.equal(limiter.activeFor("a.example"), 2);
    gates.get("a1")?.resolve();
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0", "a2"]);
    gates.get("a0")?.resolve();
    gates.get("a2")?.resolve();
    await tick();
    assert.deepEqual(
      started,
      ["a0", "a1", "b0", "a2", "a3", "a4"],
      "host names compare case-insensitively, order kept",
    );
    for (const gate of gates.values()) gate.resolve();
    assert.deepEqual(await all, ["a0", "a1", "a2", "a3", "b0", "a4"]);
    assert.equal(limiter.activeFor("a.example"), 0);
  });

  it("extra-lane tasks take only what content leaves: never the last slot of a host, never ahead of waiting content", async () => {
    const limiter = new HostLimiter(2);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const task = (id: string, lane: "content" | "extra") => {
      const gate = deferred();
      gates.set(id, gate);
      return limiter.run(
        "h.example",
        async () => {
          started.push(id);
          await gate.promise;
        },
        lane,
      );
    };
    const all = [task("x0", "extra"), task("x1", "extra")];
    await tick();
    assert.deepEqual(started, ["x0"], "extras hold at most perHost - 1 slots: a feed always finds one");
    all.push(task("c0", "content"));
    await tick();
    assert.deepEqual(started, ["x0", "c0"]);
    all.push(task("c1", "content"), task("x2", "extra"));
    gates.get("x0")?.resolve();
    await tick();
    assert.deepEqual(started, ["x0", "c0", "c1"], "the freed slot goes to the waiting feed, not the older extra");
    gates.get("c0")?.resolve();
    await tick();
    assert.deepEqual(started, ["x0", "c0", "c1", "x1"], "extras then start in their own order");
    for (const gate of gates.values()) gate.resolve();
    await tick();
    for (const gate of gates.values()) gate.resolve();
    await Promise.all(all);
    assert.deepEqual(started, ["x0", "c0", "c1", "x1", "x2"]);
    assert.equal(limiter.activeFor("h.example"), 0);
  });

  it("with one slot per host an extra waits while content waits", async () => {
    const limiter = new HostLimiter(1);
    const started: string[] = [];
    const first = deferred();
    const running = limiter.run("h", async () => {
      started.push("c0");
      await first.promise;
    });
    const extra = limiter.run("h", async () => void started.push("x0"), "extra");
    const content = limiter.run("h", async () => void started.push("c1"), "content");
    first.resolve();
    await Promise.all([running, extra, content]);
    assert.deepEqual(started, ["c0", "c1", "x0"]);
  });

  it("frees the slot when a task fails", async () => {
    const limiter = new HostLimiter(1);
    await assert.rejects(
      limiter.run("x", async () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(await limiter.run("x", async () => "next"), "next");
    assert.equal(limiter.activeFor("x"), 0);
  });

  it("refuses a limit below one", () => {
    assert.throws(() => new HostLimiter(0), RangeError);
    assert.throws(() => new HostLimiter(1.5), RangeError);
  });
});
