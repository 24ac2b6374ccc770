/**
 * The standalone server's process compiles WebAssembly (the HTTP client's
 * parser) with V8's baseline compiler only: its optimising recompile of a
 * busy module holds tens of MB for a moment (lib/standalone/wasm-compiler.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

// (module (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add))
const MODULE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 9, 1, 7, 0,
];
const BODY = [32, 0, 65, 1, 106, 11];

/**
 * Runs a busy WebAssembly function in a child process (after starting the
 * standalone server when `standalone`) until V8 has optimised it, or for up
 * to 10^8 calls, and says which compiler's code it runs.
 */
function busyFunction(standalone: boolean): { optimised: boolean; baseline: boolean } {
  const server = new URL("../support/server.js", import.meta.url).href;
  const source = `
    const started = ${standalone} ? await (await import(${JSON.stringify(server)})).startTestServer("sqlite", { mongodbUrl: null }) : null;
    const { f } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify([...MODULE, ...BODY])}))).exports;
    const optimised = new Function("f", "return %IsTurboFanFunction(f)");
    const baseline = new Function("f", "return %IsLiftoffFunction(f)");
    let x = 0;
    for (let round = 0; round < 100 && !optimised(f); round++) for (let i = 0; i < 1e6; i++) x = f(x) & 0xffff;
    console.log(JSON.stringify({ optimised: optimised(f), baseline: baseline(f) }));
    await started?.close();
  `;
  const result = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", source],
    { encoding: "utf8", timeout: 120_000 },
  );
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { optimised: boolean; baseline: boolean };
}

test("a busy WebAssembly function is optimised in a plain process, not in the standalone server's", () => {
  assert.deepEqual(busyFunction(false), { optimised: true, baseline: false }, "V8's default: optimised once busy");
  assert.deepEqual(busyFunction(true), { optimised: false, baseline: true });
});
