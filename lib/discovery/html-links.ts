import { Parser } from "htmlparser2";
import { httpUrl } from "../url/http-url.js";

/** A `<link>` element as written in the page. */
export interface PageLink {
  /** Absolute http(s) URL, resolved against the page's base. */
  href: string;
  /** Lower-cased rel tokens. */
  rel: string[];
  /** Lower-cased MIME type without parameters, or null. */
  type: string | null;
  title: string | null;
  /** The `sizes` attribute (icons), or null. */
  sizes: string | null;
}

export interface PageHead {
  /** The document's `<title>`, whitespace folded, or null. */
  title: string | null;
  /** `<link>` elements with an href, in document order. */
  links: PageLink[];
}

function clean(value: string | undefined): string | null {
  const text = value?.replace(/\s+/g, " ").trim();
  return text ? text : null;
}

/**
 * Reads an HTML page's title and link elements with a real HTML tokenizer
 * (entities decoded, any attribute order or quoting). Hrefs resolve against
 * the first `<base href>`, else the page URL. A `<title>` inside inline SVG
 * is not the page's title.
 */
export function readPageHead(html: string, pageUrl: string): PageHead {
  let base = pageUrl;
  let baseSeen = false;
  // Written from parser callbacks: kept in an object so the types stay honest.
  const state: { title: string | null; titleText: string | null } = { title: null, titleText: null };
  let svgDepth = 0;
  const pending: Array<Record<string, string>> = [];

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "svg") svgDepth++;
        else if (name === "base" && !baseSeen && attributes.href) {
          baseSeen = true;
          base = httpUrl(attributes.href, pageUrl) ?? pageUrl;
        } else if (name === "link" && attributes.href) pending.push(attributes);
        else if (name === "title" && svgDepth === 0 && state.title === null && state.titleText === null)
          state.titleText = "";
      },
      ontext(text) {
        if (state.titleText !== null) state.titleText += text;
      },
      onclosetag(name) {
        if (name === "svg" && svgDepth > 0) svgDepth--;
        else if (name === "title" && state.titleText !== null) {
          state.title = clean(state.titleText) ?? "";
          state.titleText = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  // Resolved after the whole page is read: <base> applies to links written before it too.
  const links: PageLink[] = [];
  for (const attributes of pending) {
    const href = httpUrl(attributes.href, base);
    if (!href) continue;
    links.push({
      href,
      rel: (attributes.rel ?? "").toLowerCase().split(/\s+/).filter(Boolean),
      type: clean(attributes.type?.split(";")[0])?.toLowerCase() ?? null,
      title: clean(attributes.title),
      sizes: clean(attributes.sizes),
    });
  }
  return { title: state.title || null, links };
}
