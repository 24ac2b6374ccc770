import { decodeReferences, type DeclaredEntities } from "./entities.js";

/** `<!ENTITY name "value">` or with single quotes: an internal general entity (never %, SYSTEM or PUBLIC). */
const ENTITY_DECLARATION = /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)')\s*>/g;

/**
 * The internal general entities declared before the root element (feeds
 * write `<!ENTITY id "tag:example.com,">` to shorten repeats). Nothing is
 * fetched: external and parameter entities are not read. Expansion is
 * bounded by the size of the document, twice: a value that references
 * earlier entities is expanded once here, all declarations drawing on one
 * budget (a value that does not fit is not declared), and all references in
 * the document draw on a second one, so billion-laughs and quadratic
 * blow-ups end with their references left as written. Null when none.
 *
 * @param prolog the text before the root element
 * @param budget characters expansion may produce in all (the document's length)
 */
export function declaredEntities(prolog: string, budget: number): DeclaredEntities | null {
  if (!prolog.includes("<!ENTITY")) return null;
  const declaring: DeclaredEntities = { values: new Map(), budget };
  for (const match of prolog.matchAll(ENTITY_DECLARATION)) {
    const [, name, doubleQuoted, singleQuoted] = match;
    // The first declaration of a name binds (XML 1.0 §4.2).
    if (declaring.values.has(name)) continue;
    const raw = doubleQuoted ?? singleQuoted ?? "";
    const value = decodeReferences(raw, declaring);
    // A reference left as written means the budget ran out: the entity stays undeclared.
    if (value.length > budget || hasDeclaredReference(value, declaring)) continue;
    declaring.values.set(name, value);
  }
  return declaring.values.size > 0 ? { values: declaring.values, budget } : null;
}

/** Whether text still holds a reference to a declared entity (its expansion did not fit). */
function hasDeclaredReference(text: string, declared: DeclaredEntities): boolean {
  if (!text.includes("&")) return false;
  for (const [, name] of text.matchAll(/&([A-Za-z_][\w.-]*);/g)) if (declared.values.has(name)) return true;
  return false;
}
