/**
 * Decides by content which reader a body needs. The Content-Type is not
 * consulted: servers label feeds text/html, text/plain or octet-stream often
 * enough that the bytes are the better witness.
 */

export type BodyFormat = "json" | "xml-feed" | "html" | "other-xml" | "unknown";

export interface RootElement {
  /** Qualified name as written, e.g. "rss", "rdf:RDF", "a:feed". */
  name: string;
  /** Offset of the "<" of its start tag. */
  start: number;
  /** The start tag, "<" to ">". */
  tag: string;
}

/** Elements an HTML page or fragment may open with. */
const HTML_ROOTS = new Set([
  "html",
  "head",
  "body",
  "base",
  "meta",
  "link",
  "title",
  "script",
  "style",
  "header",
  "footer",
  "nav",
  "main",
  "section",
  "article",
  "aside",
  "div",
  "p",
  "a",
  "span",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "img",
  "table",
  "figure",
  "time",
]);

/** Classifies a decoded body by its first meaningful character and root element. */
export function sniffFormat(body: string): BodyFormat {
  const first = /\S/.exec(body);
  if (!first) return "unknown";
  if (first[0] === "{") return "json";
  if (first[0] !== "<") return "unknown";
  if (/^\s*<!doctype\s+html/i.test(body)) return "html";
  const root = findRootElement(body);
  if (!root) return "unknown";
  const local = localName(root.name).toLowerCase();
  if (local === "rss" || local === "rdf" || local === "feed") return "xml-feed";
  if (HTML_ROOTS.has(root.name.toLowerCase())) return "html";
  return "other-xml";
}

/** The element after the prolog (declaration, comments, PIs, doctype), or null. */
export function findRootElement(body: string): RootElement | null {
  let i = 0;
  while (i < body.length) {
    const ws = /\s*/y;
    ws.lastIndex = i;
    ws.exec(body);
    i = ws.lastIndex;
    if (body.startsWith("<?", i)) i = after(body, "?>", i);
    else if (body.startsWith("<!--", i)) i = after(body, "-->", i);
    else if (body.startsWith("<!", i)) i = afterDoctype(body, i);
    else if (body[i] === "<") {
      const name = /<([A-Za-z_][\w.:-]*)/y;
      name.lastIndex = i;
      const match = name.exec(body);
      if (!match) return null;
      const end = body.indexOf(">", i);
      return { name: match[1], start: i, tag: body.slice(i, end === -1 ? body.length : end + 1) };
    } else return null;
    if (i < 0) return null;
  }
  return null;
}

function localName(name: string): string {
  const colon = name.lastIndexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

function after(body: string, terminator: string, from: number): number {
  const end = body.indexOf(terminator, from);
  return end === -1 ? -1 : end + terminator.length;
}

/** Skips `<!DOCTYPE ...>`, including an internal subset in brackets. */
function afterDoctype(body: string, from: number): number {
  const close = body.indexOf(">", from);
  const bracket = body.indexOf("[", from);
  if (bracket === -1 || close === -1 || bracket > close) return close === -1 ? -1 : close + 1;
  const subsetEnd = body.indexOf("]", bracket);
  return subsetEnd === -1 ? -1 : after(body, ">", subsetEnd);
}
