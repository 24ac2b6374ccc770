import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { CONFIGURATION_PAGE, withGeneratedParts } from "../../scripts/options-docs.js";

describe("the options tables of docs/configuration.md", () => {
  it("are what lib/options/table.ts makes (npm run docs:options writes them)", () => {
    const committed = readFileSync(CONFIGURATION_PAGE, "utf8");
    assert.equal(
      committed,
      withGeneratedParts(committed),
      "run `npm run docs:options` and commit docs/configuration.md",
    );
  });

  it("are found between their markers, or the page says which are missing", () => {
    assert.throws(() => withGeneratedParts("# Configuration\n"), /lacks the markers of "options"/);
  });
});
