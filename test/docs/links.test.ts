import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { defaultOptions } from "../../lib/options.js";
import { anchorsOf, brokenLinks, linksOf, slug } from "./markdown.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docsFolder = path.join(root, "docs");
const pages = [
  path.join(root, "README.md"),
  path.join(root, "CONTRIBUTING.md"),
  ...readdirSync(docsFolder)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => path.join(docsFolder, name)),
];

/** The options docs/configuration.md documents: the first cell of each table row, as `name`. */
function documentedOptions(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^\|\s*`([A-Za-z]+)`\s*\|/gm)].map((match) => match[1]));
}

describe("the docs", () => {
  it("are the README, CONTRIBUTING.md and the topic pages", () => {
    assert.ok(pages.length >= 16, `found ${pages.length} pages`);
    for (const page of [
      "configuration",
      "standalone",
      "indiekit",
      "api",
      "rivers",
      "widget",
      "network",
      "sources",
      "sync",
      "push",
      "admin",
      "parser",
      "architecture",
      "decisions",
    ]) {
      assert.ok(pages.includes(path.join(docsFolder, `${page}.md`)), `docs/${page}.md`);
    }
  });

  it("link only to files and headings that exist", () => {
    const checked = pages.reduce((count, page) => count + linksOf(readFileSync(page, "utf8")).length, 0);
    assert.ok(checked > 50, `${checked} links read`);
    assert.deepEqual(pages.flatMap(brokenLinks), []);
  });

  it("document every option in docs/configuration.md", () => {
    const documented = documentedOptions(readFileSync(path.join(docsFolder, "configuration.md"), "utf8"));
    const options = Object.keys(defaultOptions);
    assert.ok(options.length > 20, `${options.length} options`);
    assert.deepEqual(
      options.filter((name) => !documented.has(name)),
      [],
    );
  });

  it("give each option's default as the code has it (configuration.md every option, the README those it lists)", () => {
    const wrong: string[] = [];
    for (const page of ["docs/configuration.md", "README.md"]) {
      const markdown = readFileSync(path.join(root, page), "utf8");
      for (const [, name, text] of markdown.matchAll(/^\|\s*`([a-z][A-Za-z]*)`\s*\|([^|]*)\|/gm)) {
        if (!Object.hasOwn(defaultOptions, name)) {
          wrong.push(`${page}: ${name} is no option`);
          continue;
        }
        const value: unknown = defaultOptions[name as keyof typeof defaultOptions];
        const cell = text.trim();
        // A default written as one code span is the value itself; in words ("none", "the site's root") it is null.
        const literal = /^`([^`]*)`$/.exec(cell)?.[1];
        const documented = literal === undefined ? null : typeof value === "string" ? literal : JSON.parse(literal);
        if (documented !== value) wrong.push(`${page}: ${name}: docs ${cell}, code ${JSON.stringify(value)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("keep the README a short way in that still names the test command", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    assert.ok(readme.split("\n").length <= 200, "at most 200 lines");
    assert.match(readme, /^npm test\b/m);
  });
});

describe("the docs check", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-docs-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  mkdirSync(path.join(folder, "docs"));
  writeFileSync(
    path.join(folder, "docs", "a.md"),
    "# Page A\n\n## The `GET /api/opml` route\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n[not](a-link.md)\n```\n",
  );
  writeFileSync(path.join(folder, "image.png"), "");

  function problems(markdown: string): string[] {
    const file = path.join(folder, "page.md");
    writeFileSync(file, markdown);
    return brokenLinks(file);
  }

  it("finds a missing file, a missing anchor and a bad same-page anchor", () => {
    assert.equal(problems("[x](docs/missing.md)").length, 1);
    assert.equal(problems("[x](docs/a.md#no-such-heading)").length, 1);
    assert.equal(problems("# Here\n\n[x](#elsewhere)").length, 1);
    assert.equal(problems("![shot](images/gone.png)").length, 1);
    assert.equal(problems("[x](docs/a.md#not-a-heading)").length, 1, "a comment in a code block is no heading");
  });

  it("accepts files, images, anchors and outside links that resolve", () => {
    assert.deepEqual(
      problems(
        "# Here\n\n[a](docs/a.md) [b](docs/a.md#the-get-apiopml-route) [c](docs/a.md#twice-1) [d](#here) ![e](image.png) [f](https://example.org/x#y) `[g](nowhere.md)`",
      ),
      [],
    );
  });

  it("makes GitHub's anchors", () => {
    assert.equal(slug("`GET /api/opml` and `GET /api/opml/:category`"), "get-apiopml-and-get-apiopmlcategory");
    assert.equal(slug("Suggestions: the blogs your blogs recommend"), "suggestions-the-blogs-your-blogs-recommend");
    assert.equal(slug("Someone's blogroll"), "someones-blogroll");
    assert.deepEqual([...anchorsOf("# A\n## A\n## A")], ["a", "a-1", "a-2"]);
  });

  it("reads an option documented only as a table row's first cell", () => {
    assert.deepEqual(
      [...documentedOptions("| `mountPath` | x |\nSee `cors` too.\n| Option | `push` |")],
      ["mountPath"],
    );
  });
});
