import assert from "node:assert/strict";
import { Readable } from "node:stream";
import FeedParser from "feedparser";
import { SaxesParser } from "saxes";

/**
 * Reading feeds the way their consumers do: a namespace-aware XML parser
 * (saxes) and a feed reader (feedparser), for the tests of what this
 * project publishes.
 */

/** One element of a namespace-aware parse: expanded name, attributes, text, children. */
export interface XmlNode {
  uri: string;
  local: string;
  attributes: Record<string, { uri: string; value: string }>;
  text: string;
  children: XmlNode[];
}

/** Parses with saxes in namespace mode (a real XML parser: it throws on anything not well-formed or namespace-correct). */
export function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlNode[] = [];
  let root: XmlNode | null = null;
  parser.on("opentag", (tag) => {
    const attributes: XmlNode["attributes"] = {};
    for (const attribute of Object.values(tag.attributes))
      attributes[attribute.local] = { uri: attribute.uri, value: attribute.value };
    const node: XmlNode = { uri: tag.uri, local: tag.local, attributes, text: "", children: [] };
    stack.at(-1)?.children.push(node);
    stack.push(node);
    root ??= node;
  });
  parser.on("text", (text) => {
    const top = stack.at(-1);
    if (top) top.text += text;
  });
  parser.on("closetag", () => void stack.pop());
  parser.write(xml).close();
  assert.ok(root, "a root element");
  return root;
}

export const child = (node: XmlNode, local: string) => node.children.find((entry) => entry.local === local);
export const children = (node: XmlNode, local: string) => node.children.filter((entry) => entry.local === local);
export const all = (node: XmlNode): XmlNode[] => [node, ...node.children.flatMap(all)];
/** Namespace declarations (xmlns="…") are reported as attributes in this namespace. */
export const XMLNS_NS = "http://www.w3.org/2000/xmlns/";
export const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** What a feed reader reads from the document (feedparser, a widely used Node feed parser). */
export function readWithFeedparser(xml: string): Promise<{ meta: FeedParser.Meta; items: FeedParser.Item[] }> {
  return new Promise((resolve, reject) => {
    const parser = new FeedParser({});
    const items: FeedParser.Item[] = [];
    parser.on("error", reject);
    parser.on("readable", () => {
      let entry: FeedParser.Item | null;
      while ((entry = parser.read())) items.push(entry);
    });
    parser.on("end", () => resolve({ meta: parser.meta, items }));
    Readable.from([xml]).pipe(parser);
  });
}
