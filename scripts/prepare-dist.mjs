// Build steps around `tsc`. With --clean (before tsc): empties dist/, so a packed tarball never
// carries files of modules since removed. Without (after tsc): puts views/, includes/, locales/,
// assets/, widget/ and a package.json beside dist/index.js, then records what was built (so
// `npm start` skips the build while the sources stay as they are). Indiekit looks for a plugin's files in
// the folder of the package's main module (path.dirname(require.resolve(name))), which is dist/.
import { chmodSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordBuild } from "./build-state.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
if (process.argv.includes("--clean")) {
  rmSync(dist, { recursive: true, force: true });
  process.exit(0);
}
for (const folder of ["views", "includes", "locales", "assets", "widget"]) {
  rmSync(path.join(dist, folder), { recursive: true, force: true });
  cpSync(path.join(root, folder), path.join(dist, folder), { recursive: true });
}
// The standalone server's command (package.json "bin").
chmodSync(path.join(dist, "lib", "standalone", "cli.js"), 0o755);
// What the host's plugin pages show, and "type" so dist/*.js stay ES modules.
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const shown = ["name", "version", "description", "author", "license", "homepage", "repository", "type"];
const copy = Object.fromEntries(shown.filter((key) => key in manifest).map((key) => [key, manifest[key]]));
writeFileSync(path.join(dist, "package.json"), `${JSON.stringify(copy, null, 2)}\n`);
recordBuild(root);
