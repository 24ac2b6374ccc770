import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { GENERATED_PAGES, withGeneratedParts } from "../../scripts/options-docs.js";

describe("the options tables of docs/configuration.md and the README", () => {
  for (const page of GENERATED_PAGES) {
    it(`${path.basename(page.file)}: are what lib/options/table.ts makes (npm run docs:options writes them)`, () => {
      const committed = readFileSync(page.file, "utf8");
      assert.equal(
        committed,
        withGeneratedParts(committed, page),
        `run \`npm run docs:options\` and commit ${path.basename(page.file)}`,
      );
    });
  }

  it("are found between their markers, or the page says which are missing", () => {
    assert.throws(() => withGeneratedParts("# Configuration\n", GENERATED_PAGES[0]), /lacks the markers of "options"/);
    assert.throws(
      () => withGeneratedParts("# Blogroll\n", GENERATED_PAGES[1]),
      /lacks the markers of "most-used-options"/,
    );
  });
});
