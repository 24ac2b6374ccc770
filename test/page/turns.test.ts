import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backgroundTurn } from "../../lib/page/turns.js";

describe("background turns", () => {
  it("rebuilds running together take one turn per pass of the event loop, in the order they asked", async () => {
    // Counts passes of the event loop: one immediate per pass, each scheduling the next.
    let pass = 0;
    let counting = true;
    const count = () => {
      pass++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const turns: Array<{ rebuild: string; pass: number }> = [];
    const rebuild = async (name: string) => {
      for (let n = 0; n < 5; n++) {
        await backgroundTurn();
        turns.push({ rebuild: name, pass });
      }
    };
    await Promise.all([rebuild("page"), rebuild("fragment"), rebuild("json")]);
    counting = false;
    assert.equal(turns.length, 15);
    assert.equal(new Set(turns.map((turn) => turn.pass)).size, 15, "never two turns in one pass");
    assert.deepEqual(
      turns.slice(0, 6).map((turn) => turn.rebuild),
      ["page", "fragment", "json", "page", "fragment", "json"],
    );
  });
});
