import { SaxesParser } from "saxes";
import { FeedParseError } from "../errors.js";
import { findRootElement } from "../sniff.js";

const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";

/** Characters XML 1.0 forbids: C0 controls except tab, LF and CR, and U+FFFE/U+FFFF. */
const ILLEGAL_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/**
 * saxes errors that do not make a feed unreadable: HTML entities such as
 * &nbsp; that no DTD declares (the feed reader decodes them), and stray
 * forbidden characters.
 */
const TOLERATED_ERRORS = /undefined entity|disallowed character/i;

/**
 * Makes decoded feed text ready for the XML reader: drops characters XML
 * forbids, gives a namespace-less `<feed>` root the Atom namespace (common
 * in hand-written feeds; the reader only recognises Atom by namespace) and
 * refuses text that is not well-formed XML.
 */
export function prepareXml(text: string): string {
  const xml = addMissingAtomNamespace(text.replace(ILLEGAL_XML_CHARS, ""));
  assertWellFormed(xml);
  return xml;
}

function addMissingAtomNamespace(xml: string): string {
  const root = findRootElement(xml);
  if (!root || root.name !== "feed" || /\sxmlns\s*=/.test(root.tag)) return xml;
  const insertAt = root.start + "<feed".length;
  return `${xml.slice(0, insertAt)} xmlns="${ATOM_NAMESPACE}"${xml.slice(insertAt)}`;
}

/** Throws FeedParseError with line and column of the first real XML error. */
function assertWellFormed(xml: string): void {
  const parser = new SaxesParser({ xmlns: false });
  let failure: Error | null = null;
  parser.on("error", (error) => {
    if (!failure && !TOLERATED_ERRORS.test(error.message)) failure = error;
  });
  parser.write(xml).close();
  if (failure) throw new FeedParseError(`Not well-formed XML: ${(failure as Error).message}`, { cause: failure });
}
