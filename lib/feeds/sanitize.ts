import sanitize from "sanitize-html";

/**
 * What feed HTML may keep: text formatting, links, images, lists, quotes,
 * code, tables and figures. No scripts, styles, frames, plugins or forms, no
 * event handlers, no `style` or `class`.
 */
const ALLOWED_TAGS = [
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "div", "span",
  "strong", "b", "em", "i", "u", "s", "strike", "del", "ins", "sub", "sup", "small", "mark", "abbr", "cite", "q",
  "dfn", "time", "kbd", "samp", "var", "code", "pre", "blockquote",
  "a", "img", "figure", "figcaption",
  "ul", "ol", "li", "dl", "dt", "dd",
  "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td", "colgroup", "col",
];

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

/** Elements dropped together with everything inside them. */
const DROPPED_WITH_CONTENT = [
  "script", "style", "noscript", "template", "textarea", "option", "select", "iframe", "frame", "frameset",
  "object", "embed", "applet", "title", "head", "svg", "math",
];

const URL_ATTRIBUTES = ["href", "src", "cite"];
const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);
const IMAGE_SCHEMES = new Set(["http:", "https:"]);

/**
 * Sanitises feed HTML for display on another site. Relative URLs are made
 * absolute against `baseUrl`; URLs may only be http(s) or mailto (images
 * http(s) only), anything else loses its attribute; links get
 * `rel="noopener noreferrer"`. Returns "" for nothing left.
 */
export function sanitizeHtml(html: string, baseUrl?: string): string {
  return sanitize(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: ["http", "https"] },
    allowedSchemesAppliedToAttributes: URL_ATTRIBUTES,
    allowProtocolRelative: false,
    allowVulnerableTags: false,
    disallowedTagsMode: "discard",
    nonTextTags: DROPPED_WITH_CONTENT,
    // Feeds put fragments, never whole documents, in content: keep text around stray <html> tags.
    enforceHtmlBoundary: false,
    transformTags: {
      "*": (tagName, attribs) => {
        const name = unprefixed(tagName);
        const resolved = resolveUrlAttributes(name, attribs, baseUrl);
        return { tagName: name, attribs: name === "a" ? { ...resolved, rel: "noopener noreferrer" } : resolved };
      },
    },
  }).trim();
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
 * Rewrites URL attributes to absolute URLs, dropping any that do not
 * resolve to an allowed scheme. Parsing with WHATWG URL first means the
 * check sees what a browser would (tabs, entities and case tricks removed).
 */
function resolveUrlAttributes(
  tagName: string,
  attribs: Record<string, string>,
  baseUrl: string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(attribs)) {
    if (!URL_ATTRIBUTES.includes(name)) {
      out[name] = value;
      continue;
    }
    const schemes = tagName === "img" ? IMAGE_SCHEMES : LINK_SCHEMES;
    const resolved = resolveUrl(value, baseUrl, schemes);
    if (resolved !== null) out[name] = resolved;
  }
  return out;
}

function resolveUrl(value: string, baseUrl: string | undefined, schemes: Set<string>): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(trimmed, baseUrl);
  } catch {
    // Unresolvable without a base: keep only plain relative references.
    return /^[^:]*$/.test(trimmed.replace(/[\s\u0000-\u001f]/g, "")) && !trimmed.startsWith("//") ? trimmed : null;
  }
  return schemes.has(url.protocol) ? url.href : null;
}
