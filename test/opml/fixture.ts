import { readFileSync } from "node:fs";

/** The text of a fixture under test/opml/fixtures/. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
}
