// Whether dist/ was built from the sources as they are now. The build records a digest of every file
// it reads (prepare-dist.mjs, after tsc succeeded); `npm start` builds only when that digest is
// missing or differs, so a start after an unchanged checkout reaches the first page in about a second
// instead of waiting for the TypeScript compiler.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** What the build reads: TypeScript sources, the folders copied beside them, and its own settings. */
const INPUTS = [
  "index.ts",
  "lib",
  "views",
  "includes",
  "locales",
  "assets",
  "widget",
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/prepare-dist.mjs",
];
/** Written into dist/ by a finished build; left out of the packed tarball (package.json "files"). */
export const DIGEST_FILE = path.join("dist", ".build-digest");
/** The compiled server: a dist/ without it is not a build, whatever the digest says. */
const ENTRY = path.join("dist", "lib", "standalone", "cli.js");

function filesUnder(root, entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { recursive: true })
    .map((name) => path.join(entry, String(name)))
    .filter((name) => statSync(path.join(root, name)).isFile());
}

/** A digest of the build's inputs: every file's path and bytes, in a fixed order (a renamed or deleted file changes it too). */
export function inputsDigest(root) {
  const hash = createHash("sha256");
  const files = INPUTS.flatMap((entry) => filesUnder(root, entry)).sort();
  for (const file of files)
    hash
      .update(`${file.split(path.sep).join("/")}\0`)
      .update(readFileSync(path.join(root, file)))
      .update("\0");
  return hash.digest("hex");
}

/** True when dist/ holds a build of the inputs as they are now. */
export function isBuildCurrent(root) {
  const digestFile = path.join(root, DIGEST_FILE);
  if (!existsSync(digestFile) || !existsSync(path.join(root, ENTRY))) return false;
  return readFileSync(digestFile, "utf8").trim() === inputsDigest(root);
}

/** Records that dist/ now holds a build of the current inputs. */
export function recordBuild(root) {
  writeFileSync(path.join(root, DIGEST_FILE), `${inputsDigest(root)}\n`);
}
