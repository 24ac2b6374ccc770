import { QuoteType, Tokenizer } from "htmlparser2";

/**
 * Deepest element nesting passed on to an HTML tree builder. Browsers stop
 * nesting at 512; real feed content and pages stay far below this.
 */
export const MAX_HTML_DEPTH = 256;

/** Thrown by a parser pass (see `withBoundedNesting`) on meeting an element nested deeper than MAX_HTML_DEPTH. */
export class NestedTooDeep extends Error {
  constructor() {
    super(`HTML nested deeper than ${MAX_HTML_DEPTH} elements`);
  }
}

/**
 * Runs a parser pass over HTML that throws NestedTooDeep once its parser's
 * element stack passes MAX_HTML_DEPTH; then runs it again over a copy
 * bounded by `boundHtmlNesting` (told by `checkDepth: false`). htmlparser2's
 * stack costs time growing with the square of its depth, so deep nesting is
 * stopped early, and only such (hostile) content pays for the copy.
 */
export function withBoundedNesting<T>(html: string, pass: (html: string, checkDepth: boolean) => T): T {
  try {
    return pass(html, true);
  } catch (error) {
    if (!(error instanceof NestedTooDeep)) throw error;
    return pass(boundHtmlNesting(html), false);
  }
}

/** Elements with no end tag (the ones every HTML parser agrees on). */
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/** Raw-text elements whose content is dropped: nothing downstream reads it, and parsers disagree on where it ends. */
const RAW_TEXT_DROPPED = new Set(["script", "style", "xmp"]);
/** Raw-text elements whose content is kept as text (with "<" escaped, like all text, so no parser reads tags in it). */
const RAW_TEXT_KEPT = new Set(["title", "textarea"]);

const CLOSES_P = [
  "address",
  "article",
  "aside",
  "blockquote",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dd",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "ul",
];

/** Open elements that opening a given element closes when they are the innermost one (HTML's optional end tags). */
const IMPLIED_CLOSE: Record<string, Set<string>> = {
  li: new Set(["li", "p"]),
  dt: new Set(["dt", "dd", "p"]),
  dd: new Set(["dt", "dd", "p"]),
  option: new Set(["option"]),
  optgroup: new Set(["option", "optgroup"]),
  tr: new Set(["tr", "td", "th"]),
  td: new Set(["td", "th"]),
  th: new Set(["td", "th"]),
  thead: new Set(["tbody", "tfoot"]),
  tbody: new Set(["tbody", "thead", "tfoot"]),
  tfoot: new Set(["tbody", "thead"]),
  rt: new Set(["rt", "rp"]),
  rp: new Set(["rt", "rp"]),
};
for (const name of CLOSES_P) (IMPLIED_CLOSE[name] ??= new Set()).add("p");

/**
 * Elements HTML inserts around a table row or cell written straight into
 * its table (`<table><tr>` is `<table><tbody><tr>`), by the element opened
 * and the innermost open one: written out, so the depth counted is the one
 * parse5 builds.
 */
const IMPLIED_WRAPPERS: Record<string, Record<string, string[]>> = {
  tr: { table: ["tbody"] },
  td: { table: ["tbody", "tr"], tbody: ["tr"], thead: ["tr"], tfoot: ["tr"] },
  th: { table: ["tbody", "tr"], tbody: ["tr"], thead: ["tr"], tfoot: ["tr"] },
};

/**
 * HTML rewritten so that no element is nested deeper than `maxDepth`: tags
 * below that depth are dropped (their text is kept). Hostile content nests
 * hundreds of thousands of elements, and tree builders (htmlparser2's
 * element stack, parse5, the microformats parser's recursion) spend time
 * growing with the square of the depth on it; this pass is linear.
 *
 * The depth counted here is never less than what htmlparser2 builds (and
 * parse5's stays within a few levels of it), because what this pass infers
 * is written out: optional end tags (`<li>`, `<p>`, table cells) and the
 * elements a misnested end tag closes are closed explicitly, the tbody/tr a
 * table row or cell implies is opened explicitly, stray end tags are dropped. Comments, CDATA,
 * declarations and processing instructions are dropped, the content of
 * script/style is dropped and "<" in text is escaped, so parsers that
 * tokenise those differently (parse5 ends `<!-->` at once, htmlparser2 does
 * not) cannot see tags this pass did not count. Entities are left as written.
 */
export function boundHtmlNesting(html: string, maxDepth = MAX_HTML_DEPTH): string {
  const open: string[] = [];
  // How many of each name are in `open`: a stray end tag is told apart without a search.
  const openCount = new Map<string, number>();
  let dropped = 0;
  let out = "";
  let rawText: string | null = null;

  const push = (name: string) => {
    open.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  };
  const pop = (): string => {
    const name = open.pop()!;
    openCount.set(name, openCount.get(name)! - 1);
    return name;
  };

  const tag = startTagWriter(html, false, (name, written, selfClosing) => {
    if (VOID.has(name)) {
      out += written;
      return;
    }
    const closes = IMPLIED_CLOSE[name];
    while (closes && dropped === 0 && open.length > 0 && closes.has(open[open.length - 1])) out += `</${pop()}>`;
    // `<script/>` starts no raw text; it is still an open element (in HTML only foreign elements close themselves).
    if (!selfClosing && (RAW_TEXT_DROPPED.has(name) || RAW_TEXT_KEPT.has(name))) rawText = name;
    for (const wrapper of (dropped === 0 && IMPLIED_WRAPPERS[name]?.[open[open.length - 1]]) || []) {
      if (open.length >= maxDepth) break;
      push(wrapper);
      out += `<${wrapper}>`;
    }
    if (dropped > 0 || open.length >= maxDepth) {
      dropped++;
      return;
    }
    push(name);
    out += written;
  });

  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: false },
    {
      ...tag.callbacks,
      ontext(start, end) {
        if (rawText === null || !RAW_TEXT_DROPPED.has(rawText)) out += html.slice(start, end).replace(/</g, "&lt;");
      },
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        rawText = null;
        if (VOID.has(name)) {
          // `</br>` is a <br> to every parser; other void end tags are nothing.
          if (name === "br") out += "<br>";
        } else if (dropped > 0) {
          dropped--;
        } else if ((openCount.get(name) ?? 0) > 0) {
          let closed = pop();
          while (closed !== name) {
            out += `</${closed}>`;
            closed = pop();
          }
          out += `</${name}>`;
        } else if (name === "p") {
          // A stray </p> is an empty paragraph to every parser: no depth, keep it.
          out += "</p>";
        }
      },
      oncdata() {},
      ...IGNORED,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return out;
}

/**
 * XML rewritten so that no element is nested deeper than `maxDepth` (tags
 * below are dropped, their text and CDATA kept). The same tokenizer and the
 * same rules as htmlparser2's XML mode (end tags close the innermost open
 * element of their name, stray ones nothing, `<a/>` is empty), so the depth
 * counted is exactly the one the tree builder reaches. Comments, declarations
 * and processing instructions, which the feed reader ignores, are dropped.
 */
export function boundXmlNesting(xml: string, maxDepth: number): string {
  const open: string[] = [];
  const openCount = new Map<string, number>();
  let dropped = 0;
  let out = "";

  const tag = startTagWriter(xml, true, (name, written, selfClosing) => {
    if (dropped > 0 || open.length >= maxDepth) {
      if (!selfClosing) dropped++;
      return;
    }
    out += written;
    if (selfClosing) return;
    open.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  });

  const tokenizer = new Tokenizer(
    { xmlMode: true, decodeEntities: false },
    {
      ...tag.callbacks,
      ontext(start, end) {
        out += xml.slice(start, end).replace(/</g, "&lt;");
      },
      oncdata(start, end, offset) {
        out += `<![CDATA[${xml.slice(start, end - offset)}]]>`;
      },
      onclosetag(start, end) {
        const name = xml.slice(start, end);
        if (dropped > 0) {
          dropped--;
        } else if ((openCount.get(name) ?? 0) > 0) {
          let closed = "";
          while (closed !== name) {
            closed = open.pop()!;
            openCount.set(closed, openCount.get(closed)! - 1);
          }
          out += `</${name}>`;
        }
      },
      ...IGNORED,
    },
  );
  tokenizer.write(xml);
  tokenizer.end();
  return out;
}

type TokenizerCallbacks = ConstructorParameters<typeof Tokenizer>[1];
type StartTagCallbacks = Pick<
  TokenizerCallbacks,
  "onopentagname" | "onattribname" | "onattribdata" | "onattribend" | "onopentagend" | "onselfclosingtag"
>;

/** What neither pass writes out; entity callbacks never come (entities are not decoded). */
const IGNORED: Pick<
  TokenizerCallbacks,
  "oncomment" | "ondeclaration" | "onprocessinginstruction" | "onend" | "ontextentity" | "onattribentity"
> = {
  oncomment() {},
  ondeclaration() {},
  onprocessinginstruction() {},
  onend() {},
  ontextentity() {},
  onattribentity() {},
};

/**
 * Tokenizer callbacks that rebuild each start tag from its raw parts (name,
 * attribute names and values as written, quoted as written) and hand it
 * over once it is complete: a tag cut off by the end of the text is nothing.
 */
function startTagWriter(
  source: string,
  xmlMode: boolean,
  onTag: (name: string, written: string, selfClosing: boolean) => void,
): { callbacks: StartTagCallbacks } {
  let name = "";
  let written = "";
  let value = "";
  return {
    callbacks: {
      onopentagname(start, end) {
        const raw = source.slice(start, end);
        name = xmlMode ? raw : raw.toLowerCase();
        written = `<${raw}`;
      },
      onattribname(start, end) {
        written += ` ${source.slice(start, end)}`;
        value = "";
      },
      onattribdata(start, end) {
        value += source.slice(start, end);
      },
      onattribend(quote) {
        if (quote === QuoteType.Double) written += `="${value}"`;
        else if (quote === QuoteType.Single) written += `='${value}'`;
        else if (quote === QuoteType.Unquoted) written += `=${value}`;
      },
      onopentagend() {
        onTag(name, `${written}>`, false);
      },
      onselfclosingtag() {
        onTag(name, `${written}/>`, true);
      },
    },
  };
}
