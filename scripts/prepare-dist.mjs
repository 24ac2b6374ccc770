// After `tsc`: puts views/, locales/, assets/, widget/ and a package.json beside dist/index.js.
// Indiekit looks for a plugin's files in the folder of the package's main module
// (path.dirname(require.resolve(name))), which is dist/.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
for (const folder of ["views", "locales", "assets", "widget"]) {
  rmSync(path.join(dist, folder), { recursive: true, force: true });
  cpSync(path.join(root, folder), path.join(dist, folder), { recursive: true });
}
// What the host's plugin pages show, and "type" so dist/*.js stay ES modules.
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const shown = ["name", "version", "description", "author", "license", "homepage", "repository", "type"];
const copy = Object.fromEntries(shown.filter((key) => key in manifest).map((key) => [key, manifest[key]]));
writeFileSync(path.join(dist, "package.json"), `${JSON.stringify(copy, null, 2)}\n`);
