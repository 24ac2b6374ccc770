import { html, text, type RawText } from "../raw.js";
import { childrenByKey, clean, personName, resolved, textOfFirst, withBase, type Fields } from "./fields.js";
import { innerXml, textOf, type XmlElement } from "./tree.js";

/**
 * Atom's constructs (RFC 4287): text, link and person. Atom feeds are made
 * of them, and RSS feeds borrow them (atom:link for the channel's hubs and
 * self, atom:content in an item), so both readers use these.
 */

/**
 * Atom text constructs and content, as RFC 4287 defines them: "text" (the
 * default) is plain text, so escaped markup in it stays text; "html" is
 * escaped HTML; "xhtml" inline markup. Other media types are base64 unless
 * textual (text/*, XML). Atom 0.3 spelled these as MIME types with a `mode`
 * of "xml", "escaped" or "base64".
 */
export function atomText(element: XmlElement | null | undefined): RawText | null {
  if (!element) return null;
  const type = (element.attrs.type ?? "").trim().toLowerCase();
  const mode = (element.attrs.mode ?? "").trim().toLowerCase();
  if (mode === "base64" || (type.includes("/") && !/^text\/|[/+]xml$/.test(type))) {
    const decoded = decodeBase64Text(textOf(element));
    return type === "text/plain" ? text(decoded) : withBase(html(decoded), element);
  }
  if (
    type === "xhtml" ||
    type === "application/xhtml+xml" ||
    (mode === "xml" && type !== "" && type !== "text/plain")
  ) {
    return withBase(html(innerXml(element)), element);
  }
  if (type === "html" || type === "text/html" || mode === "escaped") return withBase(html(textOf(element)), element);
  return text(textOf(element));
}

/**
 * href of the first Atom link with this rel ("alternate" also matches a link
 * without rel), so an enclosure, related or self link never stands for the
 * post whatever their order. Atom feeds sometimes write RSS-style
 * <link>text</link>: such a link counts when its rel matches.
 */
export function atomLink(fields: Fields, rel: string): string | null {
  let plain: XmlElement | null = null;
  for (const link of fields.get("atom:link") ?? []) {
    if ((link.attrs.rel ?? "alternate").trim().toLowerCase() !== rel) continue;
    const href = link.attrs.href;
    if (href && href.trim()) return resolved(href, link);
    if (!plain && href === undefined && textOf(link).trim()) plain = link;
  }
  return plain ? resolved(textOf(plain), plain) : null;
}

/** An Atom person's name, else email, else URI; a bare text person (Atom 0.3 habit) by personName. */
export function atomPerson(person: XmlElement): string | null {
  const fields = childrenByKey(person);
  return (
    textOfFirst(fields, "atom:name") ??
    textOfFirst(fields, "atom:email") ??
    textOfFirst(fields, "atom:uri") ??
    personName(clean(textOf(person)))
  );
}

/** Base64 content as UTF-8 text; null when it is not text (an image, say). */
function decodeBase64Text(value: string): string | null {
  const bytes = Buffer.from(value.replace(/\s+/g, ""), "base64");
  const decoded = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return decoded && !/[\uFFFD\u0000]/.test(decoded) ? decoded : null;
}
