import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BoundedMap, FreshValues } from "../../lib/page/cache.js";

describe("page caches", () => {
  it("BoundedMap forgets the least recently used entry beyond its count or its bytes", () => {
    const map = new BoundedMap<{ bytes: number }>(2, 100);
    map.set("a", { bytes: 10 });
    map.set("b", { bytes: 10 });
    map.get("a");
    map.set("c", { bytes: 10 });
    assert.deepEqual(
      [map.get("a") !== undefined, map.get("b") !== undefined, map.get("c") !== undefined],
      [true, false, true],
    );
    map.set("d", { bytes: 95 });
    assert.equal(map.size, 1, "bytes over the bound: only the newest is kept");
    map.set("e", { bytes: 101 });
    assert.equal(map.get("e"), undefined, "larger than the whole bound: not kept");
    assert.equal(map.size, 1);
  });

  it("FreshValues shares one load per key until a write is counted or the lifetime ends; a failed load is not kept", async () => {
    const values = new FreshValues<number>(5000, 8);
    let loads = 0;
    const load = async () => ++loads;
    const first = values.get("k", 0, load, 1000);
    const second = values.get("k", 0, load, 1500);
    assert.equal(await first.value, 1);
    assert.equal(second, first, "shared while unchanged");
    assert.equal(await values.get("k", 1, load, 1600).value, 2, "a write since: loaded again");
    assert.equal(await values.get("k", 1, load, 6601).value, 3, "older than the lifetime: loaded again");
    const failing = values.get("bad", 0, () => Promise.reject(new Error("down")), 7000);
    await assert.rejects(failing.value);
    assert.equal(await values.get("bad", 0, load, 7001).value, 4, "tried again");
    values.forget("k");
    assert.equal(await values.get("k", 1, load, 7002).value, 5, "forgotten: loaded again");
    assert.ok(values.get("k", 1, load, 7003).version > first.version, "versions only grow");
  });
});
