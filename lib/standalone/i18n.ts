import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

type Catalog = Record<string, unknown>;

/** Reads every `<locale>.json` in a folder. */
export function loadCatalogs(directory: string): Map<string, Catalog> {
  const catalogs = new Map<string, Catalog>();
  if (!existsSync(directory)) return catalogs;
  for (const file of readdirSync(directory)) {
    if (file.endsWith(".json"))
      catalogs.set(file.slice(0, -5), JSON.parse(readFileSync(path.join(directory, file), "utf8")) as Catalog);
  }
  return catalogs;
}

function lookup(catalog: Catalog | undefined, key: string): unknown {
  let node: unknown = catalog;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Catalog)[part];
  }
  return node;
}

/**
 * A translate function like the host's `__()`: dotted keys, `{{{var}}}`
 * (and `{{var}}`) interpolation of the value as given, and plural forms (`{ one, other, ... }` objects chosen
 * with Intl.PluralRules on `count`), falling back to English, then the key.
 */
export function createTranslator(catalogs: Map<string, Catalog>, locale: string) {
  const rules = new Intl.PluralRules(locale);
  return (key: string, vars: Record<string, unknown> = {}): string => {
    let value =
      lookup(catalogs.get(locale), key) ??
      lookup(catalogs.get(locale.split("-")[0]), key) ??
      lookup(catalogs.get("en"), key);
    if (value !== null && typeof value === "object") {
      const forms = value as Record<string, string>;
      const count = Number(vars.count ?? 0);
      value = forms[count === 0 && forms.zero ? "zero" : rules.select(count)] ?? forms.other;
    }
    if (typeof value !== "string") return key;
    return value.replace(/\{\{\{?\s*(\w+)\s*\}?\}\}/g, (_, name: string) =>
      vars[name] === undefined ? "" : String(vars[name]),
    );
  };
}

/** The best supported locale for an Accept-Language header. */
export function negotiateLocale(header: string | undefined, supported: string[], fallback = "en"): string {
  if (!header) return fallback;
  const wanted = header
    .split(",")
    .map((part) => {
      const [tag, q] = part.trim().split(";q=");
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of wanted) {
    if (supported.includes(tag)) return tag;
    const base = tag.split("-")[0];
    if (supported.includes(base)) return base;
  }
  return fallback;
}
