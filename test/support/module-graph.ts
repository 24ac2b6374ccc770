import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The project's root folder. */
export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

/** The TypeScript modules under a folder of the project, as root-relative paths. */
export function modulesUnder(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(folder, file));
}

/**
 * The project modules a module imports at run time (root-relative, .ts): the
 * module is compiled as the build compiles it, which drops every import used
 * only for types, and the imports left in its JavaScript are read back.
 */
export function runtimeImportsOf(module: string): string[] {
  const source = readFileSync(path.join(ROOT, module), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
    fileName: module,
  });
  return ts
    .preProcessFile(outputText, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => path.join(path.dirname(module), specifier).replace(/\.js$/, ".ts"));
}

/** Every import circle of a module graph, each written as "a → b → a" from where it was found. */
export function circlesOf(graph: Map<string, string[]>): string[] {
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
  return circles;
}
