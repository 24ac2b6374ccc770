import { Parser } from "htmlparser2";
import { MAX_HTML_DEPTH, NestedTooDeep, withBoundedNesting } from "./nesting.js";
import { DROPPED_WITH_CONTENT } from "./sanitize.js";

/** Maximum length of an item summary, ellipsis included. */
export const SUMMARY_MAX_LENGTH = 300;

/**
 * Elements whose content is never readable text: the ones the sanitiser
 * drops with their content. Everything else keeps its text when its markup
 * goes (the fallback text of an object or iframe, noscript, unknown elements).
 */
const SKIPPED = DROPPED_WITH_CONTENT;

/** Elements that separate words when their markup is removed. */
const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "td",
  "th",
  "tr",
  "ul",
]);

/** Names of HTML elements, for telling markup in a title from text that only has angle brackets. */
const HTML_ELEMENTS = new Set([
  "a",
  "abbr",
  "acronym",
  "address",
  "applet",
  "area",
  "article",
  "aside",
  "audio",
  "b",
  "big",
  "blockquote",
  "body",
  "br",
  "button",
  "canvas",
  "caption",
  "center",
  "cite",
  "code",
  "col",
  "colgroup",
  "dd",
  "del",
  "details",
  "dfn",
  "div",
  "dl",
  "dt",
  "em",
  "embed",
  "fieldset",
  "figcaption",
  "figure",
  "font",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "header",
  "hr",
  "html",
  "i",
  "iframe",
  "img",
  "input",
  "ins",
  "kbd",
  "label",
  "li",
  "link",
  "main",
  "mark",
  "meta",
  "nav",
  "noscript",
  "object",
  "ol",
  "p",
  "param",
  "picture",
  "pre",
  "q",
  "s",
  "samp",
  "script",
  "section",
  "small",
  "source",
  "span",
  "strike",
  "strong",
  "style",
  "sub",
  "summary",
  "sup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "time",
  "title",
  "tr",
  "tt",
  "u",
  "ul",
  "var",
  "video",
]);

/** What marks text as HTML: a closing tag, a line break or image, or a character reference. */
const HTML_MARK =
  /<\/[A-Za-z][A-Za-z0-9]*\s*>|<(?:br|hr|img)\b[^>]*>|&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/i;

/**
 * Whether text of unknown kind (an RSS title) is HTML: it has a closing tag,
 * a void element or a character reference, and every tag in it names an
 * HTML element. So "History of the <blink> tag" and "a <b" are text,
 * "A &amp; B" and "<b>bold</b>" HTML.
 */
export function looksLikeHtml(value: string): boolean {
  if (!value.includes("<") && !value.includes("&")) return false;
  if (!HTML_MARK.test(value)) return false;
  for (const [, name] of value.matchAll(/<\/?([A-Za-z][A-Za-z0-9]*)/g))
    if (!HTML_ELEMENTS.has(name.toLowerCase())) return false;
  return true;
}

/** Collapses runs of whitespace to one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Characters of HTML fed to the parser at a time when only the start of the text is wanted. */
const CHUNK = 4096;

/**
 * Readable text of an HTML fragment: tags removed, entities decoded, script
 * and style content dropped, whitespace collapsed. Block elements count as
 * word breaks so "<p>a</p><p>b</p>" reads "a b".
 *
 * With `atLeast`, reading may stop once the text is longer than that: the
 * result then starts exactly as the full text does (summaries only need
 * their first 300 characters, not a long post's every word).
 */
export function htmlToText(html: string, atLeast = Number.POSITIVE_INFINITY): string {
  if (!/[<&]/.test(html)) return collapseWhitespace(html);
  // Content nested deeper than MAX_HTML_DEPTH is read from a bounded copy.
  return withBoundedNesting(html, (source, checkDepth) => textPass(source, atLeast, checkDepth));
}

function textPass(html: string, atLeast: number, checkDepth: boolean): string {
  const out: string[] = [];
  let skipDepth = 0;
  // Elements htmlparser2 has open: it reports every element it opens and closes (void and implied ones too).
  let depth = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (checkDepth && ++depth > MAX_HTML_DEPTH) throw new NestedTooDeep();
        if (SKIPPED.has(name)) skipDepth++;
        else if (BLOCKS.has(name)) out.push(" ");
      },
      onclosetag(name, isImplied) {
        depth--;
        if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (BLOCKS.has(name) && !isImplied) out.push(" ");
      },
      ontext(text) {
        if (skipDepth === 0) out.push(text);
      },
    },
    { decodeEntities: true },
  );
  if (html.length > CHUNK && Number.isFinite(atLeast)) {
    for (let offset = 0; offset < html.length; offset += CHUNK) {
      parser.write(html.slice(offset, offset + CHUNK));
      // +1: the last character read may be whitespace that more text would keep.
      if (collapseWhitespace(out.join("")).length > atLeast + 1) return collapseWhitespace(out.join(""));
    }
    parser.end();
  } else {
    parser.end(html);
  }
  return collapseWhitespace(out.join(""));
}

/** `htmlToText`, but null for empty results. */
export function textOrNull(html: string | null | undefined): string | null {
  if (!html) return null;
  return htmlToText(html) || null;
}

/**
 * Shortens text to at most `max` characters, cutting at a word boundary and
 * ending with "…" when something was cut. A text with no usable space (such
 * as Chinese or Japanese) is cut mid-run.
 */
export function truncateText(text: string, max = SUMMARY_MAX_LENGTH): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // never split a surrogate pair
  // A cut that falls just before whitespace already ends on a whole word.
  const space = /\s/.test(text.charAt(cut.length)) ? cut.length : cut.lastIndexOf(" ");
  if (space >= max * 0.5) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, "")}…`;
}
