import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { packageRoot } from "../../lib/package-root.js";

/**
 * `npm start`'s first step in a throw-away project shaped like this one, whose `build` script
 * only counts its runs and records the build as the real one does: the TypeScript build is
 * skipped while the sources are as they were built, and run again when any of them changes.
 */
describe("npm start builds dist/ only when the sources changed", () => {
  let project: string;
  const builds = () => readFileSync(path.join(project, "builds.log"), "utf8").split("\n").filter(Boolean).length;
  const start = () =>
    execFileSync(process.execPath, [path.join(project, "scripts", "build-if-stale.mjs")], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, npm_execpath: "" },
    });

  before(() => {
    project = mkdtempSync(path.join(tmpdir(), "blogroll-build-"));
    mkdirSync(path.join(project, "scripts"));
    for (const file of ["build-if-stale.mjs", "build-state.mjs"])
      cpSync(path.join(packageRoot, "scripts", file), path.join(project, "scripts", file));
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "fake", type: "module", scripts: { build: "node scripts/fake-build.mjs" } }),
    );
    writeFileSync(
      path.join(project, "scripts", "fake-build.mjs"),
      `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { recordBuild } from "./build-state.mjs";
mkdirSync("dist/lib/standalone", { recursive: true });
writeFileSync("dist/lib/standalone/cli.js", "");
appendFileSync("builds.log", "built\\n");
recordBuild(process.cwd());
`,
    );
    mkdirSync(path.join(project, "lib", "feeds"), { recursive: true });
    writeFileSync(path.join(project, "index.ts"), "export {};\n");
    writeFileSync(path.join(project, "lib", "feeds", "parse.ts"), "export const a = 1;\n");
    writeFileSync(path.join(project, "builds.log"), "");
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it("builds the first time (no dist/), then not again while nothing changed", () => {
    assert.match(start(), /building/);
    assert.equal(builds(), 1);
    assert.match(start(), /not rebuilding/);
    assert.match(start(), /not rebuilding/);
    assert.equal(builds(), 1);
  });

  it("builds again after a source is edited, added or removed, or dist/ lost its server", () => {
    const changes: Array<[string, () => void]> = [
      ["edited", () => writeFileSync(path.join(project, "lib", "feeds", "parse.ts"), "export const a = 2;\n")],
      ["added", () => writeFileSync(path.join(project, "lib", "feeds", "new.ts"), "export {};\n")],
      ["removed", () => rmSync(path.join(project, "lib", "feeds", "new.ts"))],
      [
        "a locale added",
        () =>
          mkdirSync(path.join(project, "locales")) === undefined &&
          writeFileSync(path.join(project, "locales", "en.json"), "{}"),
      ],
      ["dist/ emptied", () => rmSync(path.join(project, "dist", "lib", "standalone", "cli.js"))],
    ];
    for (const [what, change] of changes) {
      const before = builds();
      change();
      assert.match(start(), /building/, what);
      assert.equal(builds(), before + 1, what);
      assert.match(start(), /not rebuilding/, what);
    }
  });

  it("does not rebuild for files the build does not read", () => {
    const before = builds();
    writeFileSync(path.join(project, "notes.txt"), "a note");
    mkdirSync(path.join(project, "test"), { recursive: true });
    writeFileSync(path.join(project, "test", "a.test.ts"), "");
    assert.match(start(), /not rebuilding/);
    assert.equal(builds(), before);
  });
});
