import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { packageRoot } from "../lib/package-root.js";

const manifest = JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as Record<string, unknown>;

/** What a person installing the package (and Indiekit's plugin pages) reads about it. */
describe("package", () => {
  it("says who made it and ships the MIT licence it names", () => {
    assert.equal(manifest.license, "MIT");
    const licence = readFileSync(path.join(packageRoot, "LICENSE"), "utf8");
    assert.match(licence, /^MIT License\n\nCopyright \(c\) \d{4} \S/);
    assert.match(licence, /Permission is hereby granted, free of charge/);
    const author = manifest.author as { name?: string } | undefined;
    assert.ok(author?.name, "package.json names an author");
    assert.ok(licence.includes(author.name), "the licence names the same copyright holder");
    assert.ok((manifest.files as string[]).includes("LICENSE"));
    assert.ok(
      (manifest.keywords as string[]).includes("indiekit-plugin"),
      "Indiekit's plugin directory lists packages by this keyword",
    );
  });

  it("keeps packed tarballs out of git", () => {
    // `npm pack` writes indiekit-endpoint-blogroll-<version>.tgz into the checkout.
    const ignored = execFileSync("git", ["check-ignore", "--no-index", "indiekit-endpoint-blogroll-0.1.0.tgz"], {
      cwd: packageRoot,
      encoding: "utf8",
    });
    assert.equal(ignored.trim(), "indiekit-endpoint-blogroll-0.1.0.tgz");
  });
});
