/**
 * Manual check: how much of Python feedparser's own test suite this parser
 * passes. Each case there is a small feed with a Python expression that the
 * parse result must satisfy (`Expect: entries[0]['title'] == '...'`). Our
 * `parseFeed` output is mapped onto feedparser's key names and the
 * expressions are evaluated by python3 (bench/support/feedparser-expect.py),
 * since they are Python. A case that asks for something this product does
 * not keep (rights, geo, enclosures, detail types, ...) is "not applicable"
 * and left out of the rate; see the mapping in that script.
 *
 *   node --import tsx bench/feedparser-suite.ts <feedparser checkout>/tests [--verbose]
 *
 * Needs python3 and a checkout of https://github.com/kurtmckee/feedparser
 * (not shipped here). Only `wellformed/` is read; cases with "http" in their
 * path need an HTTP server (headers, document URI) and are skipped, as
 * feedparser's own runner sets them apart.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseFeed } from "../lib/feeds/parse.js";

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { verbose: { type: "boolean", default: false } } });
const testsDir = positionals[0];
if (!testsDir) {
  console.error("usage: node --import tsx bench/feedparser-suite.ts <feedparser>/tests [--verbose]");
  process.exit(2);
}

function xmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".xml"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !path.relative(dir, file).includes("http"))
    .sort();
}

const cases = [];
for (const file of xmlFiles(path.join(testsDir, "wellformed"))) {
  const bytes = new Uint8Array(readFileSync(file));
  const name = path.relative(testsDir, file);
  try {
    const parsed = await parseFeed(bytes, { url: "http://feedparser.test/feed.xml", maxItems: 1000 });
    cases.push({ name, file, parsed });
  } catch (error) {
    cases.push({ name, file, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}

const script = fileURLToPath(new URL("support/feedparser-expect.py", import.meta.url));
const run = spawnSync("python3", [script, ...(args.verbose ? ["--verbose"] : [])], {
  input: JSON.stringify(cases),
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
process.exit(run.status ?? 1);
