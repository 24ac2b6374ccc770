/**
 * Generators of hostile input for the property tests and the long fuzz run:
 * real-world documents from ../shared/corpora (read in place) and the repo's
 * fixtures, mutated by cutting, repeating and splicing in known attack text.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { DomUtils, parseDocument } from "htmlparser2";

export const CORPORA = "/work/shared/corpora";
const REPO = path.resolve(import.meta.dirname, "../..");

/** Largest seed used: bigger real feeds only slow the runs without new shapes. */
const MAX_SEED_BYTES = 100_000;

function readText(file: string): string {
  const bytes = readFileSync(file);
  return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
}

function filesIn(folder: string, pattern: RegExp): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function seeds(files: string[]): string[] {
  return files.map(readText).filter((text) => text.length > 0 && text.length <= MAX_SEED_BYTES);
}

/** Feed documents of every format: RSS/RDF/Atom from the corpora, JSON Feed fixtures, h-feed pages. */
export function feedSeeds(): string[] {
  return [
    ...seeds(filesIn(`${CORPORA}/miniflux`, /\.(xml|html)$/)),
    ...seeds(filesIn(`${CORPORA}/node-feedparser`, /\.(xml|atom|html)$/)),
    ...seeds(filesIn(`${CORPORA}/microformats/h-feed`, /\.html$/)),
    ...seeds(filesIn(`${CORPORA}/microformats/h-entry`, /\.html$/)),
    ...seeds(filesIn(path.join(REPO, "test/feeds/fixtures"), /\.json$/)),
  ];
}

/** OPML documents: the repo's real-world and hostile fixtures. */
export function opmlSeeds(): string[] {
  return seeds(filesIn(path.join(REPO, "test/opml/fixtures"), /\.(opml|xml)$/));
}

export interface Payload {
  title?: string;
  payload: string;
}

/** The DOMPurify XSS payload corpus. */
export function sanitizerPayloads(): Payload[] {
  return JSON.parse(readFileSync(`${CORPORA}/dompurify/payloads.json`, "utf8")) as Payload[];
}

/** Text known to upset parsers, sanitisers and URL handling. */
export const ATTACK_SNIPPETS = [
  '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
  '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
  "&xxe;",
  "&b;",
  "&#0;",
  "&#xD800;",
  "]]>",
  "<![CDATA[",
  '<?xml version="1.0" encoding="utf-16"?>',
  "<script>alert(1)</script>",
  '<img src=x onerror="alert(1)">',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<iframe src="data:text/html,<script>alert(1)</script>">',
  "<svg onload=alert(1)>",
  '<p style="background:url(javascript:alert(1))">',
  "\u0000",
  "\uFEFF",
  "\uFFFF",
  "\uD800",
  "\u202E",
  '{"version":"https://jsonfeed.org/version/1.1","items":[',
  '"__proto__":{"polluted":true},',
  '<div class="h-entry"><a class="u-url" href="javascript:alert(1)">x</a></div>',
  '<outline xmlUrl="file:///etc/passwd"/>',
  '<outline xmlUrl="http://169.254.169.254/latest"/>',
  "<".repeat(50),
  "<div>".repeat(200),
];

type Mutation = (text: string) => string;

const at = (text: string, fraction: number) => Math.floor(fraction * text.length);

/** One mutation, positioned by fractions of the text's length. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })).map(
    ([a, b]): Mutation =>
      (text) =>
        text.slice(0, at(text, Math.min(a, b))) + text.slice(at(text, Math.max(a, b))),
  ),
  fc.double({ min: 0, max: 1, noNaN: true }).map(
    (a): Mutation =>
      (text) =>
        text.slice(0, at(text, a)),
  ),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...ATTACK_SNIPPETS)).map(
    ([a, snippet]): Mutation =>
      (text) =>
        text.slice(0, at(text, a)) + snippet + text.slice(at(text, a)),
  ),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.string({ unit: "binary", maxLength: 20 })).map(
    ([a, noise]): Mutation =>
      (text) =>
        text.slice(0, at(text, a)) + noise + text.slice(at(text, a)),
  ),
  fc
    .tuple(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 2, max: 20 }),
    )
    .map(([a, length, times]): Mutation => (text) => {
      const start = at(text, a);
      return text.slice(0, start) + text.slice(start, start + length).repeat(times) + text.slice(start);
    }),
);

/** A seed document with up to `maxMutations` mutations applied. */
export function mutated(documents: string[], maxMutations = 6): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...documents), fc.array(mutation, { maxLength: maxMutations }))
    .map(([document, mutations]) => mutations.reduce((text, apply) => apply(text), document));
}

/** Seeds, their mutations and plain random text, the last in every unit fast-check knows. */
export function hostileText(documents: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: mutated(documents) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc.array(fc.constantFrom(...ATTACK_SNIPPETS), { maxLength: 12 }).map((parts) => parts.join("")),
    },
  );
}

const FORBIDDEN_ELEMENTS = new Set([
  "script",
  "style",
  "iframe",
  "frame",
  "object",
  "embed",
  "form",
  "input",
  "svg",
  "math",
  "base",
  "meta",
  "link",
]);
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Every way sanitised HTML could still run script or restyle the page; [] when safe. */
export function scriptVectors(html: string): string[] {
  const problems: string[] = [];
  if (/<script/i.test(html)) problems.push("<script");
  for (const element of DomUtils.findAll(() => true, parseDocument(html).children)) {
    if (FORBIDDEN_ELEMENTS.has(element.name)) problems.push(`<${element.name}>`);
    for (const [name, value] of Object.entries(element.attribs)) {
      if (/^on/i.test(name)) problems.push(`${name}=`);
      if (name === "style") problems.push("style=");
      // What a browser would take as the scheme: it ignores control characters and spaces.
      const scheme = URL_SCHEME.exec(value.replace(/[\u0000-\u0020]/g, ""))?.[1]?.toLowerCase();
      if (scheme === "javascript" || scheme === "vbscript" || scheme === "data") problems.push(`${name}=${scheme}:`);
    }
  }
  return problems;
}
