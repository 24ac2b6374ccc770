import { Parser } from "htmlparser2";
import { FeedParseError } from "../errors.js";
import { boundXmlNesting } from "../nesting.js";
import { decodeReferences, type DeclaredEntities } from "./entities.js";

/** An element of a parsed feed document, with its namespace resolved. */
export interface XmlElement {
  /** Qualified name as written ("content:encoded", "a:entry"). */
  qname: string;
  /** Local name, lower-cased (feeds disagree on "pubDate" / "pubdate"). */
  local: string;
  /** Namespace URI ("" for none). */
  ns: string;
  /** Attribute values, decoded, by qualified name as written. */
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Effective xml:base (absolute), or null when no xml:base is in scope. */
  base: string | null;
  /**
   * Set when the element's end tag is missing: it was closed by an ancestor's
   * end tag or by the end of the document (a truncated or broken feed).
   */
  broken?: true;
}

export type XmlNode = XmlElement | string;

/** Elements deeper than this are dropped, their text kept in their ancestor at the limit. */
const MAX_DEPTH = 128;

/** Thrown by a tree build that meets an element deeper than MAX_DEPTH. */
class TooDeep extends FeedParseError {
  constructor() {
    super(`Feed elements are nested deeper than ${MAX_DEPTH} levels`);
  }
}

interface OpenElement {
  element: XmlElement | null;
  /** Prefix -> namespace declarations in scope after this element's own. */
  namespaces: Map<string, string>;
}

const PREDECLARED = new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]);

/**
 * Reads feed XML into a small element tree, leniently: a bare "&", an
 * undeclared HTML entity, a stray "<" or badly nested end tags do not stop
 * it (real feeds have all of these). Built on htmlparser2's tokenizer, one
 * pass, no DTD processing: the document is read from its root element;
 * only the internal entities the caller passes in `options.entities` (read
 * from the DOCTYPE, bounded) are expanded. Namespaces and xml:base are resolved here, so readers match
 * elements by namespace URI, not by whatever prefix a feed chose.
 *
 * @param xml text starting at (or before) the root element
 * @param documentUrl base for relative xml:base values
 * @param defaultNamespace namespace for unprefixed names when the document declares none
 * @param options.base the base in scope outside the root element (the HTTP Content-Location), as an
 *   xml:base around the document would be
 * @returns the root element, or null when there is none
 */
export function parseXmlTree(
  xml: string,
  documentUrl: string,
  defaultNamespace = "",
  options: { entities?: DeclaredEntities | null; base?: string | null } = {},
): XmlElement | null {
  const entities = options.entities ?? null;
  const outerBase = options.base ?? null;
  const budget = entities?.budget ?? 0;
  try {
    return buildTree(xml, documentUrl, outerBase, defaultNamespace, entities);
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    // htmlparser2's element stack costs time growing with the square of the depth (hostile feeds nest
    // 10^6 elements): read a copy with the deep tags dropped instead. Only such feeds pay for the copy,
    // and the copy gets the whole entity budget again.
    if (entities) entities.budget = budget;
    return buildTree(boundXmlNesting(xml, MAX_DEPTH), documentUrl, outerBase, defaultNamespace, entities);
  }
}

function buildTree(
  xml: string,
  documentUrl: string,
  outerBase: string | null,
  defaultNamespace: string,
  entities: DeclaredEntities | null,
): XmlElement | null {
  const rootNamespaces = new Map(PREDECLARED);
  rootNamespaces.set("", defaultNamespace);
  const stack: OpenElement[] = [{ element: null, namespaces: rootNamespaces }];
  let root: XmlElement | null = null;
  let inCdata = false;
  // The element opened last, while nothing has been added to it: an implied close then is a self-closing tag.
  let justOpened: XmlElement | null = null;

  const current = (): XmlElement | null => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i].element) return stack[i].element;
    return null;
  };

  const parser = new Parser(
    {
      onopentag(qname, rawAttrs) {
        const parent = stack[stack.length - 1];
        if (root && stack.length === 1) {
          // Content after the root element closed: ignore, like any XML reader.
          stack.push({ element: null, namespaces: parent.namespaces });
          return;
        }
        if (stack.length > MAX_DEPTH) throw new TooDeep();
        const attrs: Record<string, string> = {};
        let namespaces = parent.namespaces;
        for (const name in rawAttrs) {
          const value = decodeReferences(rawAttrs[name], entities);
          attrs[name] = value;
          if (name === "xmlns" || name.startsWith("xmlns:")) {
            if (namespaces === parent.namespaces) namespaces = new Map(namespaces);
            namespaces.set(name === "xmlns" ? "" : name.slice(6), value);
          }
        }
        const colon = qname.indexOf(":");
        const prefix = colon === -1 ? "" : qname.slice(0, colon);
        const parentElement = current();
        const element: XmlElement = {
          qname,
          local: (colon === -1 ? qname : qname.slice(colon + 1)).toLowerCase(),
          ns: namespaces.get(prefix) ?? "",
          attrs,
          children: [],
          base: resolveBase(attrs["xml:base"], parentElement ? parentElement.base : outerBase, documentUrl),
        };
        if (parentElement) parentElement.children.push(element);
        else root = element;
        stack.push({ element, namespaces });
        justOpened = element;
      },
      onclosetag(_name, isImplied) {
        if (stack.length <= 1) return;
        const element = stack.pop()!.element;
        // htmlparser2 reports "<x/>" as an implied close too; an element closed that way right away is whole.
        if (isImplied && element && element !== justOpened) element.broken = true;
        justOpened = null;
      },
      ontext(text) {
        const element = current();
        if (!element) return;
        justOpened = null;
        element.children.push(inCdata ? text : decodeReferences(text, entities));
      },
      oncdatastart() {
        inCdata = true;
      },
      oncdataend() {
        inCdata = false;
      },
    },
    { xmlMode: true, decodeEntities: false },
  );
  parser.end(xml);
  return root;
}

/** The base an element's xml:base gives, resolved against the enclosing one (or the document URL). */
function resolveBase(value: string | undefined, parentBase: string | null, documentUrl: string): string | null {
  if (value === undefined) return parentBase;
  return URL.parse(value.trim(), parentBase ?? documentUrl)?.href ?? parentBase;
}

/** The text of an element and its descendants, concatenated. */
export function textOf(element: XmlElement): string {
  if (element.children.length === 1 && typeof element.children[0] === "string") return element.children[0];
  let out = "";
  const pending: XmlNode[] = [...element.children].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (typeof node === "string") out += node;
    else for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]);
  }
  return out;
}

/** The children of an element written back as markup (Atom XHTML content). */
export function innerXml(element: XmlElement): string {
  let out = "";
  // Iterative, with explicit close markers: nesting depth never reaches the call stack.
  const pending: Array<XmlNode | { close: string }> = [...element.children].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (typeof node === "string") {
      out += escapeText(node);
    } else if ("close" in node) {
      out += `</${node.close}>`;
    } else {
      out += `<${node.qname}`;
      for (const name in node.attrs) out += ` ${name}="${escapeText(node.attrs[name]).replace(/"/g, "&quot;")}"`;
      out += ">";
      pending.push({ close: node.qname });
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]);
    }
  }
  return out;
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
