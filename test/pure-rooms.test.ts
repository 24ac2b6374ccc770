import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/*
 * The parsers are pure: text in, data out, usable on their own through
 * `indiekit-endpoint-blogroll/parser`. Their rooms import their libraries and
 * only the small shared rooms below, never sync, storage adapters, HTTP or
 * the options; and no module of theirs imports itself back through another.
 */

const LIB = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "lib");
const PURE_ROOMS = ["feeds", "opml"];
const SHARED_ROOMS = ["url", "time", "encoding", "xml-writing"];
/** The storage port's data shapes (types only, erased at run time). */
const PORT_TYPES = "storage/types.ts";

function modulesUnder(room: string): string[] {
  return readdirSync(path.join(LIB, room), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(room, file));
}

/** Relative imports of a module (lib-relative paths, .ts), with whether each is types only. */
function importsOf(module: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(path.join(LIB, module), "utf8");
  return [...text.matchAll(/^(import|export)(\s+type)?\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)].map(([, , typeOnly, specifier]) => ({
    target: path.join(path.dirname(module), specifier).replace(/\.js$/, ".ts"),
    typeOnly: typeOnly !== undefined,
  }));
}

describe("pure rooms", () => {
  for (const room of PURE_ROOMS) {
    it(`lib/${room}/ imports only its own modules, ${SHARED_ROOMS.join(", ")} and the storage port's types`, () => {
      const outside: string[] = [];
      for (const module of modulesUnder(room)) {
        for (const { target, typeOnly } of importsOf(module)) {
          const ownRoom = target.split(path.sep)[0];
          if (ownRoom === room || SHARED_ROOMS.includes(ownRoom) || (typeOnly && target === PORT_TYPES)) continue;
          outside.push(`${module} → ${target}`);
        }
      }
      assert.deepEqual(outside, []);
    });

    it(`lib/${room}/ has no import circle`, () => {
      const graph = new Map(modulesUnder(room).map((module) => [module, importsOf(module).map(({ target }) => target)]));
      const circles: string[] = [];
      const state = new Map<string, "open" | "done">();
      const visit = (module: string, trail: string[]) => {
        if (state.get(module) === "done" || !graph.has(module)) return;
        if (state.get(module) === "open") {
          circles.push([...trail.slice(trail.indexOf(module)), module].join(" → "));
          return;
        }
        state.set(module, "open");
        for (const target of graph.get(module)!) visit(target, [...trail, module]);
        state.set(module, "done");
      };
      for (const module of graph.keys()) visit(module, []);
      assert.deepEqual(circles, []);
    });
  }
});
