import { Parser } from "htmlparser2";
import { MAX_HTML_DEPTH, NestedTooDeep, withBoundedNesting } from "./nesting.js";

/**
 * What feed HTML may keep: text formatting, links, images, lists, quotes,
 * code, tables and figures. No scripts, styles, frames, plugins or forms, no
 * event handlers, no `style` or `class`.
 */
const ALLOWED_TAGS = new Set([
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "div",
  "span",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "strike",
  "del",
  "ins",
  "sub",
  "sup",
  "small",
  "mark",
  "abbr",
  "cite",
  "q",
  "dfn",
  "time",
  "kbd",
  "samp",
  "var",
  "code",
  "pre",
  "blockquote",
  "a",
  "img",
  "figure",
  "figcaption",
  "ul",
  "ol",
  "li",
  "dl",
  "dt",
  "dd",
  "table",
  "caption",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "colgroup",
  "col",
]);

/** Allowed elements that have no end tag; written as `<br />`. */
const VOID_TAGS = new Set(["br", "hr", "img", "col"]);

const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  a: ["href", "title", "rel"],
  img: ["src", "alt", "title", "width", "height"],
  abbr: ["title"],
  dfn: ["title"],
  blockquote: ["cite"],
  q: ["cite"],
  del: ["cite", "datetime"],
  ins: ["cite", "datetime"],
  time: ["datetime"],
  ol: ["start", "reversed"],
  th: ["colspan", "rowspan", "scope"],
  td: ["colspan", "rowspan"],
  col: ["span"],
  colgroup: ["span"],
};

/**
 * Elements dropped together with everything inside them: their content is
 * code or inert markup, never text for a reader, and SVG and MathML, whose
 * foreign-content parsing rules would let their markup re-parse differently
 * once outside them. Every other element not allowed goes but keeps its
 * content (an object's or iframe's fallback text, noscript, unknown
 * elements), itself sanitised.
 */
export const DROPPED_WITH_CONTENT: ReadonlySet<string> = new Set(["script", "style", "template", "svg", "math"]);

const URL_ATTRIBUTES = new Set(["href", "src", "cite"]);
const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);
const IMAGE_SCHEMES = new Set(["http:", "https:"]);

/**
 * Sanitises feed HTML for display on another site. Relative URLs are made
 * absolute against `baseUrl`; URLs may only be http(s) or mailto (images
 * http(s) only), anything else loses its attribute; links get
 * `rel="noopener noreferrer"`. Returns "" for nothing left.
 *
 * One htmlparser2 pass writes the output directly: allow-listed elements
 * and attributes are re-serialised (text and values escaped), elements not
 * on the list are dropped but keep their content, and the elements in
 * DROPPED_WITH_CONTENT go with everything inside them. The output is
 * canonical markup, so sanitising it again changes nothing. (It replaced
 * sanitize-html, which applied the same allow-list at about a third of the
 * speed: see BENCHMARKS.md.)
 */
export function sanitizeHtml(html: string, baseUrl?: string): string {
  // Content nested deeper than MAX_HTML_DEPTH is sanitised from a bounded copy.
  return withBoundedNesting(html, (source, checkDepth) => sanitizePass(source, baseUrl, checkDepth));
}

function sanitizePass(html: string, baseUrl: string | undefined, checkDepth: boolean): string {
  let out = "";
  // The end tag to write for each open element ("" when it was dropped or is void).
  const ends: string[] = [];
  // Open elements inside (and including) a dropped-with-content element.
  let droppedDepth = 0;
  const parser = new Parser(
    {
      onopentag(rawName, attribs) {
        const name = unprefixed(rawName);
        // `ends` holds one entry per element htmlparser2 has open, so this is its stack depth.
        if (checkDepth && ends.length >= MAX_HTML_DEPTH) throw new NestedTooDeep();
        if (droppedDepth > 0 || DROPPED_WITH_CONTENT.has(name)) {
          droppedDepth++;
          ends.push("");
        } else if (!ALLOWED_TAGS.has(name)) {
          ends.push("");
        } else {
          const isVoid = VOID_TAGS.has(name);
          out += `<${name}${serialiseAttributes(name, attribs, baseUrl)}${isVoid ? " />" : ">"}`;
          ends.push(isVoid ? "" : `</${name}>`);
        }
      },
      onclosetag() {
        // htmlparser2 closes every element it opened (implied ones too), innermost first.
        if (droppedDepth > 0) droppedDepth--;
        out += ends.pop() ?? "";
      },
      ontext(text) {
        if (droppedDepth === 0) out += escapeText(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return out.trim();
}

/** The allowed attributes of an element, URLs resolved and checked, values escaped; links get rel. */
function serialiseAttributes(name: string, attribs: Record<string, string>, baseUrl: string | undefined): string {
  const allowed = ALLOWED_ATTRIBUTES[name];
  let out = "";
  if (allowed) {
    for (const attribute in attribs) {
      if (!allowed.includes(attribute) || (name === "a" && attribute === "rel")) continue;
      let value: string | null = attribs[attribute];
      if (URL_ATTRIBUTES.has(attribute))
        value = resolveUrl(value, baseUrl, name === "img" ? IMAGE_SCHEMES : LINK_SCHEMES);
      if (value !== null) out += ` ${attribute}="${escapeAttribute(value)}"`;
    }
  }
  return name === "a" ? `${out} rel="noopener noreferrer"` : out;
}

function escapeText(text: string): string {
  return /[&<>]/.test(text) ? text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") : text;
}

function escapeAttribute(value: string): string {
  return /[&<>"]/.test(value) ? escapeText(value).replace(/"/g, "&quot;") : value;
}

/**
 * Atom XHTML content may use a prefix for the XHTML namespace (`<h:ul>`):
 * read such elements by their local name; the allow-list still applies.
 */
function unprefixed(tagName: string): string {
  const colon = tagName.indexOf(":");
  return colon === -1 ? tagName : tagName.slice(colon + 1);
}

/**
 * A URL attribute's value made absolute, or null when it does not resolve
 * to an allowed scheme. Parsing with WHATWG URL first means the check sees
 * what a browser would (tabs, entities and case tricks removed).
 */
function resolveUrl(value: string, baseUrl: string | undefined, schemes: Set<string>): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(trimmed, baseUrl);
  } catch {
    // Unresolvable without a base: keep only plain relative references. Browsers drop tabs and newlines
    // and read "\" as "/", so "/\evil.com" and "/\t/evil.com" lead to another host like "//evil.com".
    const compact = trimmed.replace(/[\s\u0000-\u001f]/g, "");
    return !compact.includes(":") && !/^[/\\]{2}/.test(compact) ? trimmed : null;
  }
  return schemes.has(url.protocol) ? url.href : null;
}
