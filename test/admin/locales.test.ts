import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { NOTICE_KEYS } from "../../lib/admin/notices.js";
import { STATUS_FILTERS } from "../../lib/admin/blog-list.js";
import { packageRoot } from "../../lib/package-root.js";
import { createTranslator, loadCatalogs } from "../../lib/standalone/i18n.js";
import { pluralizer } from "../../lib/admin/view-helpers.js";
import { XFN_GROUPS, XFN_VALUES } from "../../lib/xfn/relationship.js";

// Every locale Indiekit offers: it has no fallback, so a missing catalog shows raw keys.
const REQUIRED = [
  "de",
  "en",
  "es",
  "es-419",
  "fr",
  "hi",
  "id",
  "it",
  "nl",
  "pl",
  "pt",
  "pt-BR",
  "sr",
  "sv",
  "zh-Hans-CN",
];
const catalogs = loadCatalogs(path.join(packageRoot, "locales"));
type Node = string | { [key: string]: Node };
const PLURAL_FORMS = new Set(["zero", "one", "two", "few", "many", "other"]);

function isPluralObject(node: Node): node is Record<string, string> {
  return (
    typeof node === "object" &&
    Object.keys(node).length > 0 &&
    Object.keys(node).every((key) => PLURAL_FORMS.has(key) && typeof node[key] === "string")
  );
}

/** Leaf keys of a catalog; a plural object counts as one key. */
function leaves(node: Node, prefix = ""): Map<string, Node> {
  const found = new Map<string, Node>();
  if (typeof node === "string" || isPluralObject(node)) {
    found.set(prefix, node);
    return found;
  }
  for (const [key, child] of Object.entries(node))
    for (const [leaf, value] of leaves(child, prefix ? `${prefix}.${key}` : key)) found.set(leaf, value);
  return found;
}

const variables = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).sort();
const english = leaves(catalogs.get("en") as Node);

/** Every `__("…")` / `plural("…")` key written literally in the views and admin code. */
function literalKeys(): Set<string> {
  const keys = new Set<string>();
  const files = [
    ...readdirSync(path.join(packageRoot, "views"), { recursive: true }).map((file) =>
      path.join("views", String(file)),
    ),
    ...readdirSync(path.join(packageRoot, "lib", "admin")).map((file) => path.join("lib", "admin", file)),
  ].filter((file) => /\.(njk|ts)$/.test(file));
  for (const file of files) {
    const text = readFileSync(path.join(packageRoot, file), "utf8");
    // Keys ending in "." are prefixes completed from a value: the test lists those separately.
    for (const match of text.matchAll(/(?:__|plural)\(\s*["'](blogroll\.[\w.]+)["']/g))
      if (!match[1].endsWith(".")) keys.add(match[1]);
  }
  return keys;
}

describe("locales", () => {
  it("ships English and at least German, French, Spanish, Dutch, Italian, Portuguese and Polish", () => {
    for (const locale of REQUIRED) assert.ok(catalogs.has(locale), `locales/${locale}.json is missing`);
  });

  for (const [locale, catalog] of catalogs) {
    it(`${locale}: has every English key, no extra key, the same {{variables}}, and every plural form the language needs`, () => {
      const entries = leaves(catalog as Node);
      const missing = [...english.keys()].filter((key) => !entries.has(key));
      const extra = [...entries.keys()].filter((key) => !english.has(key));
      assert.deepEqual(missing, [], `missing in ${locale}`);
      assert.deepEqual(extra, [], `not in English (typo?) in ${locale}`);
      // The forms the language uses for counts a page shows (French "many" is for millions: "other" serves).
      const rules = new Intl.PluralRules(locale);
      const needed = new Set(Array.from({ length: 201 }, (_, count) => rules.select(count)));
      for (const [key, englishValue] of english) {
        const value = entries.get(key) as Node;
        if (isPluralObject(englishValue)) {
          assert.ok(isPluralObject(value), `${locale}: ${key} must have plural forms`);
          for (const form of needed) assert.ok(value[form] !== undefined, `${locale}: ${key} lacks the "${form}" form`);
          // Every language has "other" (CLDR): fractions take it (1,5 in Polish), and it is the fallback of every lookup.
          assert.ok(value.other !== undefined, `${locale}: ${key} lacks the "other" form`);
          for (const form of Object.values(value))
            assert.deepEqual(variables(form), variables(englishValue.other), `${locale}: ${key}`);
        } else {
          assert.equal(typeof value, "string", `${locale}: ${key} must be text`);
          assert.deepEqual(
            variables(value as string),
            variables(englishValue as string),
            `${locale}: ${key} variables`,
          );
          assert.notEqual((value as string).trim(), "", `${locale}: ${key} is empty`);
          // The host's macros output text options as given: a catalog must hold no markup.
          assert.doesNotMatch(value as string, /[<>]/, `${locale}: ${key} holds markup characters`);
        }
        // Indiekit's __() (i18n-node, Mustache) HTML-escapes {{var}}; the views escape once
        // themselves, so every placeholder is the unescaped {{{var}}}.
        for (const text of typeof value === "string" ? [value] : Object.values(value as Record<string, string>)) {
          assert.doesNotMatch(
            text.replaceAll(/\{\{\{\w+\}\}\}/g, ""),
            /\{\{/,
            `${locale}: ${key}: write placeholders as {{{var}}}`,
          );
        }
      }
    });
  }

  it("every key the views and admin code use is in English, including keys built from values", () => {
    const used = [
      ...literalKeys(),
      ...NOTICE_KEYS.map((key) => `blogroll.notice.${key}`),
      ...["opml_url", "opml_file", "feedland", "microsub", "manual"].flatMap((type) => [
        `blogroll.sources.types.${type}`,
        `blogroll.sources.typeHints.${type}`,
      ]),
      ...["ok", "error", "pending"].map((status) => `blogroll.sources.statuses.${status}`),
      ...["active", "pending", "error", "gone", "deleted", ...STATUS_FILTERS].map(
        (status) => `blogroll.blogs.statuses.${status}`,
      ),
      ...["add", "update", "skip"].map((outcome) => `blogroll.preview.outcomes.${outcome}`),
      ...["rss", "atom", "json", "hfeed"].map((type) => `blogroll.feedTypes.${type}`),
      ...["success", "error"].map((type) => `blogroll.banner.${type}`),
      ...["dashboard", "sources", "blogs"].map((section) => `blogroll.nav.${section}`),
      ...XFN_GROUPS.map((group) => `blogroll.blogs.xfn.groups.${group.name}`),
      ...XFN_VALUES.map((value) => `blogroll.blogs.xfn.values.${value}`),
    ];
    assert.ok(used.length > 100, "the scan found the keys");
    const missing = used.filter((key) => !english.has(key));
    assert.deepEqual([...new Set(missing)], []);
  });

  it("a button's longer accessible name starts with its visible text, in every language (WCAG 2.5.3, label in name)", () => {
    // The sources list: "Sync now" and "Delete" buttons are named "Sync now: <source>", "Delete: <source>" for screen readers.
    const pairs = [
      ["blogroll.sources.syncNamed", "blogroll.sources.syncNow"],
      ["blogroll.sources.deleteNamed", "blogroll.delete"],
    ];
    for (const locale of catalogs.keys()) {
      const translate = createTranslator(catalogs, locale);
      for (const [named, visible] of pairs) {
        const name = translate(named, { name: "Fixture list" });
        assert.ok(name.startsWith(translate(visible)), `${locale}: "${name}" starts with "${translate(visible)}"`);
      }
    }
  });

  it("chooses plural forms by the language's rules", () => {
    const plural = (locale: string) => pluralizer(createTranslator(catalogs, locale), locale);
    assert.equal(plural("en")("blogroll.preview.added", 1), "1 blog would be added");
    assert.equal(plural("en")("blogroll.preview.added", 3), "3 blogs would be added");
    const polish = plural("pl");
    const forms = [1, 3, 5, 22].map((count) => polish("blogroll.preview.added", count));
    assert.equal(
      new Set(forms.map((text) => text.replace(/\d+/, "#"))).size,
      3,
      `Polish one/few/many differ: ${forms.join(" | ")}`,
    );
    assert.equal(forms[1].replace(/\d+/, "#"), forms[3].replace(/\d+/, "#"), "3 and 22 share the 'few' form");
    assert.equal(
      plural("de")("blogroll.blogs.showing", 1234, { from: 1, to: 50 }),
      "1–50 von 1.234 Blogs",
      "numbers formatted in the locale",
    );
  });
});
