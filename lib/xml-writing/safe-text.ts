/** Text made safe for xmlbuilder2, shared by every XML document this project writes (the OPML export, the river's Atom and RSS). Reading feed XML is lib/feeds/xml/. */

/**
 * Text ready for xmlbuilder2: characters outside the XML 1.0 `Char` production
 * (C0 controls, lone surrogates, U+FFFE/U+FFFF) removed, and every `&`
 * pre-escaped. Why the latter: xmlbuilder2 leaves anything shaped like an
 * entity reference (`&nbsp;`, `&#0;`) unescaped, which would turn a title such
 * as "Tom &nbsp; Jerry" into an undefined entity (malformed XML), and
 * "&amp;" into "&". It does not re-escape our `&amp;`, so each `&` survives.
 */
export function xmlSafe(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "").replace(/&/g, "&amp;");
}

/**
 * For attribute values: also turn tabs and line breaks into spaces, since a
 * parser would do so anyway (attribute-value normalisation) and xmlbuilder2
 * writes them literally.
 */
export function attributeSafe(value: string): string {
  return xmlSafe(value).replace(/[\t\n\r]/g, " ");
}
