import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's root folder, found by walking up from this file: the same
 * answer from `lib/` (sources run by tsx) and from `dist/lib/` (compiled),
 * wherever the package is installed. views/, locales/ and assets/ live there.
 */
function findPackageRoot(): string {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(folder, "package.json");
    if (existsSync(candidate)) {
      const { name } = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string };
      if (name === "indiekit-endpoint-blogroll") return folder;
    }
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error("indiekit-endpoint-blogroll: package root not found");
    folder = parent;
  }
}

export const packageRoot = findPackageRoot();
export const packageJson = JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
  homepage?: string;
};
