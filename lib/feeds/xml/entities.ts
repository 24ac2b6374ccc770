import { Parser } from "htmlparser2";

/** The five entities XML predefines. */
const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** HTML named entities met so far (name -> text, or null when unknown). */
const htmlEntityCache = new Map<string, string | null>();

const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,8})|([A-Za-z][A-Za-z0-9]{0,31}));/g;

/**
 * Decodes character and entity references in raw XML text or attribute
 * values: numeric references, the five XML entities, and HTML named
 * entities such as `&nbsp;` that feeds use without declaring them. Only
 * references ending in ";" count; anything else (a bare "&", "&copy=2")
 * stays as written, so lenient input never fails. DTD-declared entities are
 * never expanded: a name HTML does not define is left untouched, which is
 * what keeps entity-expansion attacks inert.
 */
export function decodeReferences(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(REFERENCE, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return XML_ENTITIES[name] ?? htmlEntity(name) ?? whole;
    return codePointText(decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16));
  });
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
