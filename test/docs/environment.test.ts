import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { OPTIONS } from "../../lib/options.js";
import { packageRoot } from "../../lib/package-root.js";

/**
 * Variables the standalone server and the plugin read: the options' own (the table's `env`) and
 * those read by name (`env.NAME`), NODE_ENV aside (Express's development mode).
 */
function variablesRead(): Set<string> {
  const files = [
    "index.ts",
    ...readdirSync(path.join(packageRoot, "lib", "standalone")).map((file) => path.join("lib", "standalone", file)),
  ];
  const names = files.flatMap((file) =>
    [...readFileSync(path.join(packageRoot, file), "utf8").matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map(
      (match) => match[1],
    ),
  );
  const options = OPTIONS.flatMap(([, option]) => (option.env === undefined ? [] : [option.env]));
  return new Set([...names.filter((name) => name !== "NODE_ENV"), ...options]);
}

const pages = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(packageRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join("docs", name)),
];

describe("environment variables in the docs", () => {
  it("docs/configuration.md lists exactly the variables the standalone server reads", () => {
    const markdown = readFileSync(path.join(packageRoot, "docs", "configuration.md"), "utf8");
    const section = markdown.slice(markdown.indexOf("## Environment variables"));
    const listed = new Set([...section.matchAll(/^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|/gm)].map((match) => match[1]));
    assert.deepEqual([...listed].sort(), [...variablesRead()].sort());
  });

  it("name only variables the code reads, or Indiekit's own where they speak of Indiekit", () => {
    const read = variablesRead();
    const wrong: string[] = [];
    for (const page of pages) {
      readFileSync(path.join(packageRoot, page), "utf8")
        .split("\n")
        .forEach((line, index) => {
          for (const [, name] of line.matchAll(/`(?:[A-Z][A-Z0-9_]*=)?((?:BLOGROLL|MONGO)[A-Z0-9_]*)/g)) {
            // MONGO_URL is Indiekit's variable (its application.mongodbUrl); ours is MONGODB_URL.
            if (!read.has(name) && !(name === "MONGO_URL" && /Indiekit/.test(line)))
              wrong.push(`${page}:${index + 1}: ${name}`);
          }
        });
    }
    assert.deepEqual(wrong, []);
  });
});
