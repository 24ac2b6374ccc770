/**
 * What is wrong with a document that was meant to be OPML, in terms of what
 * the person gave rather than what the XML parser met: a list of addresses,
 * a web page, a file that is not text, text after the end, a broken line.
 * The admin words each kind in the owner's language; `describeOpmlProblem`
 * gives the English kept as a source's last error.
 */
export type OpmlProblem =
  /** One or more web addresses, not a document (an OPML address belongs in an "OPML address" source). */
  | { kind: "address" }
  /** Not text at all: an image, a PDF, an archive. */
  | { kind: "binary" }
  /** Text that does not start with a tag (JSON, a plain list, prose). */
  | { kind: "not-xml" }
  /** An HTML page. */
  | { kind: "web-page" }
  /** Something after the document's last closing tag, from `line` on. */
  | { kind: "after-end"; line: number }
  /** XML broken at `line`; `detail` is the parser's own word for it. */
  | { kind: "malformed"; line: number; detail: string }
  /** The parser's message, already plain (empty, too large, no body, entities, limits). */
  | { kind: "other"; detail: string };

/** Characters XML 1.0 never allows (C0 controls but tab, LF and CR): text holding one was not written as a document. */
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** True when decoded bytes are not a text document (OPML or any other XML cannot hold them). */
export function isBinaryText(text: string): boolean {
  return NOT_IN_XML.test(text);
}

/** `parseOpml`'s "Malformed XML at line N: detail." (lib/opml/parse.ts). */
const MALFORMED = /^Malformed XML at line (\d+): (.+?)\.?$/;

/** Classifies why `text` was refused by `parseOpml` with `message`. */
export function opmlProblemOf(text: string, message: string): OpmlProblem {
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (isBinaryText(text)) return { kind: "binary" };
  if (/^https?:\/\/\S+(\s+https?:\/\/\S+)*\s*$/i.test(start)) return { kind: "address" };
  if (start !== "" && !start.startsWith("<")) return { kind: "not-xml" };
  if (/root element is <html>/i.test(message) || /^<!doctype html/i.test(start)) return { kind: "web-page" };
  const malformed = MALFORMED.exec(message);
  if (malformed) {
    const line = Number(malformed[1]);
    return /outside of root node/.test(malformed[2])
      ? { kind: "after-end", line }
      : { kind: "malformed", line, detail: malformed[2] };
  }
  return { kind: "other", detail: message };
}

/** The English sentence for a problem, as a source's last error or a preview's complaint. */
export function describeOpmlProblem(problem: OpmlProblem): string {
  switch (problem.kind) {
    case "address":
      return "This is a web address, not an OPML document";
    case "binary":
      return "This is not a text document (an image, a PDF or an archive?), so it cannot be OPML";
    case "not-xml":
      return "This is not an OPML document: OPML is XML and starts with a tag";
    case "web-page":
      return "This is a web page, not an OPML document";
    case "after-end":
      return `Text follows the end of the OPML document, at line ${problem.line}`;
    case "malformed":
      return `The OPML document is broken at line ${problem.line} (${problem.detail})`;
    case "other":
      return /^Not an OPML document/.test(problem.detail)
        ? problem.detail
        : `Not a valid OPML document: ${problem.detail}`;
  }
}
