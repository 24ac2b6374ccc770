import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { circlesOf, modulesUnder, ROOT } from "./support/module-graph.js";

/*
 * The parsers are pure: text in, data out, usable on their own through
 * `indiekit-endpoint-blogroll/parser`. Their rooms import their libraries and
 * only the small shared rooms below, never sync, storage adapters, HTTP or
 * the options; and no module of theirs imports itself back through another.
 */

const PURE_ROOMS = ["feeds", "opml"];
const SHARED_ROOMS = ["url", "time", "encoding", "xml-writing"];
/** The storage port's data shapes (types only, erased at run time). */
const PORT_TYPES = "lib/storage/types.ts";

/** Relative imports of a module (root-relative paths, .ts), with whether each is types only. */
function importsOf(module: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(path.join(ROOT, module), "utf8");
  return [...text.matchAll(/^(import|export)(\s+type)?\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)].map(
    ([, , typeOnly, specifier]) => ({
      target: path.join(path.dirname(module), specifier).replace(/\.js$/, ".ts"),
      typeOnly: typeOnly !== undefined,
    }),
  );
}

describe("pure rooms", () => {
  for (const room of PURE_ROOMS) {
    it(`lib/${room}/ imports only its own modules, ${SHARED_ROOMS.join(", ")} and the storage port's types`, () => {
      const outside: string[] = [];
      for (const module of modulesUnder(`lib/${room}`)) {
        for (const { target, typeOnly } of importsOf(module)) {
          const ownRoom = target.split(path.sep)[1];
          if (ownRoom === room || SHARED_ROOMS.includes(ownRoom) || (typeOnly && target === PORT_TYPES)) continue;
          outside.push(`${module} → ${target}`);
        }
      }
      assert.deepEqual(outside, []);
    });

    it(`lib/${room}/ has no import circle, not even through types`, () => {
      const graph = new Map(
        modulesUnder(`lib/${room}`).map((module) => [module, importsOf(module).map(({ target }) => target)]),
      );
      assert.deepEqual(circlesOf(graph), []);
    });
  }
});
