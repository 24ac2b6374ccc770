/*
 * No module of the plugin imports itself back through others at run time: a
 * circle makes the order modules start in matter (a value read before its
 * module ran is undefined) and two modules that cannot be read apart.
 * Imports used only for types are erased by the build and do not count.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { circlesOf, modulesUnder, runtimeImportsOf } from "./support/module-graph.js";

it("index.ts and lib/ have no import circle at run time", () => {
  const modules = ["index.ts", ...modulesUnder("lib")];
  const graph = new Map(modules.map((module) => [module, runtimeImportsOf(module)]));
  assert.ok(graph.get("index.ts")!.includes("lib/context.ts"), "the graph follows the imports");
  assert.deepEqual(circlesOf(graph), []);
});
