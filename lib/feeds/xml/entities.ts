import { Parser } from "htmlparser2";

/**
 * Entities a document declares in its DOCTYPE's internal subset, with what
 * their expansion may still produce. Shared by every reference in one
 * document, so the budget bounds the document's whole expansion.
 */
export interface DeclaredEntities {
  values: Map<string, string>;
  /** Characters expansions may still add; a reference past it stays as written. */
  budget: number;
}

/** The five entities XML predefines. */
const XML_ENTITIES = new Map([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
]);

/** HTML named entities met so far (name -> text, or null when unknown). */
const htmlEntityCache = new Map<string, string | null>();

/** What may stand between "&" and ";" in a reference we decode: at most 32 characters. */
const REFERENCE_NAME = /^(?:#\d{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{0,31})$/;
const LONGEST_NAME = 32;
const SEMICOLON = 59;

/**
 * Decodes character and entity references in raw XML text or attribute
 * values: numeric references, the five XML entities, and HTML named
 * entities such as `&nbsp;` that feeds use without declaring them. Only
 * references ending in ";" count; anything else (a bare "&", "&copy=2")
 * stays as written, so lenient input never fails. Entities the document
 * declared (`declared`, read by doctype.ts) are expanded while their shared
 * budget lasts; any other name HTML does not define is left untouched.
 */
export function decodeReferences(raw: string, declared?: DeclaredEntities | null): string {
  let at = raw.indexOf("&");
  if (at === -1) return raw;
  // A scan rather than a regex replace: escaped HTML is full of &lt; and &gt;, and this is ~4x faster.
  let out = "";
  let copied = 0;
  while (at !== -1) {
    // The ";" is looked for only as far as the longest name: each "&" costs a bounded look-ahead,
    // so decoding stays linear however many "&" there are without a ";".
    const limit = Math.min(raw.length, at + LONGEST_NAME + 2);
    let semicolon = -1;
    for (let index = at + 1; index < limit; index++) {
      if (raw.charCodeAt(index) === SEMICOLON) {
        semicolon = index;
        break;
      }
    }
    const name = semicolon === -1 ? "" : raw.slice(at + 1, semicolon);
    const value = name && REFERENCE_NAME.test(name) ? referenceText(name, declared) : null;
    if (value === null) {
      at = raw.indexOf("&", at + 1);
      continue;
    }
    out += raw.slice(copied, at) + value;
    copied = semicolon + 1;
    at = raw.indexOf("&", copied);
  }
  return copied === 0 ? raw : out + raw.slice(copied);
}

/** The text of a well-formed reference name ("lt", "#38", "#x26", "nbsp"), or null when it names nothing. */
function referenceText(name: string, declared: DeclaredEntities | null | undefined): string | null {
  if (name.charCodeAt(0) !== 35 /* # */)
    return XML_ENTITIES.get(name) ?? (declared && declaredEntity(name, declared)) ?? htmlEntity(name);
  const hex = name[1] === "x" || name[1] === "X";
  return codePointText(Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10));
}

/** A declared entity's value, drawn from the document's expansion budget; null past it. */
function declaredEntity(name: string, declared: DeclaredEntities): string | null {
  const value = declared.values.get(name);
  if (value === undefined || value.length > declared.budget) return null;
  declared.budget -= value.length;
  return value;
}

/** A code point as text; references to nothing or to surrogates become U+FFFD. */
function codePointText(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
  return String.fromCodePoint(code);
}

/** Looks an HTML entity up once through htmlparser2's own table, then from the cache. */
function htmlEntity(name: string): string | null {
  const cached = htmlEntityCache.get(name);
  if (cached !== undefined) return cached;
  let decoded = "";
  new Parser({ ontext: (text) => void (decoded += text) }, { decodeEntities: true }).end(`&${name};`);
  // Unknown names come back as written; a legacy prefix match ("&nbspx;" -> "\u00a0x;") keeps its
  // ";". Either way the reference is not an entity.
  const result = decoded.endsWith(";") ? null : decoded;
  // Bounded: a hostile feed could otherwise grow the cache with made-up names.
  if (htmlEntityCache.size < 4096) htmlEntityCache.set(name, result);
  return result;
}
