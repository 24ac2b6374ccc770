// `npm start`'s first step: builds dist/ only when the sources changed since the last build (see
// build-state.mjs), so an unchanged checkout starts without waiting for the TypeScript compiler.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isBuildCurrent } from "./build-state.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (isBuildCurrent(root)) {
  console.log("dist/ is up to date with the sources: not rebuilding");
} else {
  console.log("dist/ is missing or older than the sources: building (npm run build)");
  // npm_execpath is the npm that runs this script; plain "npm" when started some other way.
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  process.exit(build.status ?? 1);
}
