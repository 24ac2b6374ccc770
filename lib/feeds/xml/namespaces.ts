import type { XmlElement } from "./tree.js";

/**
 * The namespaces the feed readers know, each under one short prefix: an
 * element is matched as "prefix:local" whatever prefix the feed chose, and
 * the old spellings of a vocabulary (RSS 0.90/1.0, Atom 0.3, Media RSS
 * without its slash) share the prefix of the current one.
 */
const NAMESPACES: Record<string, string> = {
  "": "rss",
  "http://purl.org/rss/1.0/": "rss",
  "http://my.netscape.com/rdf/simple/0.9/": "rss",
  "http://backend.userland.com/rss2": "rss",
  "http://backend.userland.com/rss": "rss",
  "http://www.w3.org/2005/Atom": "atom",
  "http://purl.org/atom/ns#": "atom",
  "http://purl.org/rss/1.0/modules/content/": "content",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://search.yahoo.com/mrss/": "media",
  "http://search.yahoo.com/mrss": "media",
  "http://www.itunes.com/dtds/podcast-1.0.dtd": "itunes",
  "http://rssnamespace.org/feedburner/ext/1.0": "feedburner",
  "http://www.pheedo.com/namespace/pheedo": "pheedo",
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
  "http://www.w3.org/1999/xhtml": "xhtml",
  "http://source.scripting.com/": "source",
  "http://backend.userland.com/blogchannelmodule": "blogchannel",
  "http://purl.org/rss/1.0/modules/syndication/": "sy",
};

export const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";
export const RSS_NAMESPACE = "";

/**
 * "prefix:local" of an element, by namespace; unknown namespaces keep their
 * URI so they never match. Namespace URIs are matched regardless of case,
 * as feeds write them ("http://www.itunes.com/DTDs/Podcast-1.0.dtd").
 */
export function keyOf(element: XmlElement): string {
  return `${NAMESPACES[element.ns] ?? NAMESPACES[element.ns.toLowerCase()] ?? element.ns}:${element.local}`;
}

/**
 * A root in a namespace this reader does not know (Atom's pre-1.0 drafts
 * used several, "http://purl.org/pie/", "http://example.com/newformat#", and
 * RSS has "http://backend.userland.com/rss2.1") is read as the format its
 * name says: its namespace is renamed to the known one throughout.
 */
export function inVocabulary(root: XmlElement, prefix: string, namespace: string): XmlElement {
  const known = NAMESPACES[root.ns] ?? NAMESPACES[root.ns.toLowerCase()];
  if (known === prefix) return root;
  // A root in another known vocabulary is left alone; no namespace (a bare <feed>) or an unknown one is renamed.
  if (known !== undefined && root.ns !== "") return root;
  const from = root.ns;
  const pending: XmlElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    if (element.ns === from) element.ns = namespace;
    for (const child of element.children) if (typeof child !== "string") pending.push(child);
  }
  return root;
}
