/**
 * OPML import: a bounded, streaming read of an OPML 1.0/2.0 subscription list
 * into feeds with one category each. Untrusted input by design (uploads and
 * remote URLs), so: no DTD entities, no resolution of anything external, and
 * hard limits on size, nesting depth and outline count.
 */
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";
import { OpmlParseError } from "./errors.js";
import { categoryFromAttribute, checkFeedUrl, cleanSiteUrl, cleanText, lowerCaseAttributes } from "./outline.js";

/** One feed found in an OPML document. */
export interface OpmlFeed {
  xmlUrl: string;
  title: string;
  htmlUrl: string | null;
  description: string | null;
  type: string | null;
  category: string | null;
}

/** What an OPML document holds, with the feed outlines that were left out and why. */
export interface ParsedOpml {
  title: string | null;
  dateCreated?: string | null;
  feeds: OpmlFeed[];
  skipped: Array<{ xmlUrl: string; reason: string }>;
  /** OPML 2.0 `<outline type="include" url="…">`: other documents this one pulls in, in document order. */
  includes: OpmlInclude[];
  /** `<outline>` elements read (folders and includes too), counted against the outline limit. */
  outlineCount: number;
}

/** An included document: its absolute http(s) address and the category its feeds take when they name none. */
export interface OpmlInclude {
  url: string;
  category: string | null;
}

export interface ParseOpmlOptions {
  /** Most `<outline>` elements accepted (folders included). Default 20 000. */
  maxOutlines?: number;
  /** Largest document accepted, in UTF-8 bytes. Default 10 MB. */
  maxBytes?: number;
  /** Base for relative include addresses (the document's own URL); without it only absolute ones are kept. */
  url?: string;
}

export { OpmlParseError } from "./errors.js";

const DEFAULT_MAX_OUTLINES = 20_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Deeper than any real folder tree; stops hostile nesting long before memory matters. */
const MAX_DEPTH = 1000;

type FrameKind = "root" | "head" | "body" | "headField" | "outline" | "other";

interface Frame {
  kind: FrameKind;
  /** True for elements inside `<body>`, where outlines count. */
  inBody: boolean;
  /** Category a feed outline directly inside this element belongs to. */
  category: string | null;
  /** For `headField`: which field, and its text so far. */
  field?: "title" | "datecreated";
  text?: string;
}

/**
 * Parse an OPML document. Feeds are the outlines with an `xmlUrl`, at any
 * depth; the category of a feed is its own `category` attribute when it has
 * one, otherwise the nearest enclosing folder (an outline without `xmlUrl`).
 * Unusable or repeated feed URLs are listed in `skipped`.
 *
 * @throws {OpmlParseError} for malformed XML, a DTD with entity declarations,
 *   a non-OPML document or one past the size, depth or outline limits.
 */
export function parseOpml(text: string, options: ParseOpmlOptions = {}): ParsedOpml {
  const maxOutlines = options.maxOutlines ?? DEFAULT_MAX_OUTLINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  // A UTF-16 string never has more code units than its UTF-8 bytes: check the cheap bound first.
  if (text.length > maxBytes || Buffer.byteLength(text, "utf8") > maxBytes) {
    throw new OpmlParseError(`OPML document is larger than ${maxBytes} bytes`);
  }
  // Leading whitespace before the XML declaration is a common export bug; forgive it but keep line numbers true.
  const leading = /^\uFEFF?\s*/.exec(text)?.[0] ?? "";
  const body = text.slice(leading.length);
  if (body === "") throw new OpmlParseError("OPML document is empty");
  const lineOffset = leading.split("\n").length - 1;

  const collector = new OpmlCollector(maxOutlines, options.url);
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const lineNow = () => parser.line + lineOffset;
  parser.on("error", (error) => {
    const message = error.message.replace(/^\d+:\d+: /, "");
    throw new OpmlParseError(`Malformed XML at line ${lineNow()}: ${message}`);
  });
  parser.on("doctype", (doctype) => {
    // Entity declarations are the door to billion laughs, quadratic blowup and XXE; OPML never needs them.
    if (/<!ENTITY/i.test(doctype)) {
      throw new OpmlParseError(`DTD/entities are not allowed in OPML (line ${lineNow()})`);
    }
  });
  parser.on("opentag", (tag) => collector.open(tag, lineNow()));
  parser.on("closetag", () => collector.close());
  parser.on("text", (chunk) => collector.text(chunk));
  parser.on("cdata", (chunk) => collector.text(chunk));

  try {
    parser.write(body).close();
  } catch (error) {
    if (error instanceof OpmlParseError) throw error;
    throw new OpmlParseError(`Malformed XML at line ${lineNow()}: ${(error as Error).message}`);
  }
  return collector.result();
}

/** Builds the result from saxes events, keeping an explicit stack (no recursion, so no stack overflow). */
class OpmlCollector {
  private readonly stack: Frame[] = [];
  private readonly seenKeys = new Set<string>();
  private readonly feeds: OpmlFeed[] = [];
  private readonly skipped: Array<{ xmlUrl: string; reason: string }> = [];
  private readonly includes: OpmlInclude[] = [];
  private outlineCount = 0;
  private rootSeen = false;
  private bodySeen = false;
  private title: string | null = null;
  private dateCreated: string | null = null;

  constructor(
    private readonly maxOutlines: number,
    private readonly baseUrl: string | undefined,
  ) {}

  open(tag: SaxesTagPlain, line: number): void {
    if (this.stack.length >= MAX_DEPTH) {
      throw new OpmlParseError(`OPML nesting is deeper than ${MAX_DEPTH} levels (line ${line})`);
    }
    const name = tag.name.toLowerCase();
    const parent = this.stack.at(-1);
    if (!parent) {
      if (name !== "opml") throw new OpmlParseError(`Not an OPML document: the root element is <${tag.name}>`);
      this.rootSeen = true;
      this.stack.push({ kind: "root", inBody: false, category: null });
      return;
    }
    if (parent.kind === "root" && name === "head") {
      this.stack.push({ kind: "head", inBody: false, category: null });
    } else if (parent.kind === "root" && name === "body") {
      this.bodySeen = true;
      this.stack.push({ kind: "body", inBody: true, category: null });
    } else if (parent.kind === "head" && (name === "title" || name === "datecreated")) {
      this.stack.push({ kind: "headField", inBody: false, category: null, field: name, text: "" });
    } else if (name === "outline") {
      this.countOutline(line);
      const category = parent.inBody ? this.readOutline(tag, parent.category) : parent.category;
      this.stack.push({ kind: "outline", inBody: parent.inBody, category });
    } else {
      this.stack.push({ kind: "other", inBody: parent.inBody, category: parent.category });
    }
  }

  close(): void {
    const frame = this.stack.pop();
    if (frame?.kind !== "headField") return;
    const value = cleanText(frame.text);
    if (frame.field === "title") this.title = value;
    else this.dateCreated = value;
  }

  text(chunk: string): void {
    const top = this.stack.at(-1);
    if (top?.kind === "headField") top.text += chunk;
  }

  result(): ParsedOpml {
    if (!this.rootSeen) throw new OpmlParseError("Not an OPML document: no root element");
    if (!this.bodySeen) throw new OpmlParseError("Not an OPML document: <opml> has no <body>");
    return {
      title: this.title,
      dateCreated: this.dateCreated,
      feeds: this.feeds,
      skipped: this.skipped,
      includes: this.includes,
      outlineCount: this.outlineCount,
    };
  }

  private countOutline(line: number): void {
    this.outlineCount += 1;
    if (this.outlineCount > this.maxOutlines) {
      throw new OpmlParseError(`OPML document has more than ${this.maxOutlines} outlines (line ${line})`);
    }
  }

  /** An include outline stands for the other document's outlines in its place: they take its label as their folder. */
  private readInclude(rawUrl: string | undefined, category: string | null): string | null {
    const url = parseHttpUrl(rawUrl, this.baseUrl);
    if (url) this.includes.push({ url: url.href, category });
    else if (rawUrl?.trim())
      this.skipped.push({ xmlUrl: rawUrl.trim(), reason: "include address is not an absolute http(s) URL" });
    return category;
  }

  /**
   * Record a feed outline, or name a folder. Returns the category that
   * outlines nested inside this one inherit: a folder's own name, or for a
   * feed outline (some readers nest feeds in feeds) the enclosing category.
   * A folder with neither `text` nor `title` is transparent.
   */
  private readOutline(tag: SaxesTagPlain, enclosing: string | null): string | null {
    const attributes = lowerCaseAttributes(tag.attributes);
    const rawUrl = attributes.get("xmlurl")?.trim() ?? "";
    const label = cleanText(attributes.get("text")) ?? cleanText(attributes.get("title"));
    if (rawUrl === "" && attributes.get("type")?.trim().toLowerCase() === "include")
      return this.readInclude(attributes.get("url"), label ?? enclosing);
    // An empty xmlUrl="" is written by some exporters on folders: treat it as absent.
    if (rawUrl === "") return label ?? enclosing;

    const checked = checkFeedUrl(rawUrl);
    if (!checked.ok) {
      this.skipped.push({ xmlUrl: rawUrl, reason: checked.reason });
      return enclosing;
    }
    const key = feedUrlKey(checked.url);
    if (this.seenKeys.has(key)) {
      this.skipped.push({ xmlUrl: rawUrl, reason: "duplicate" });
      return enclosing;
    }
    this.seenKeys.add(key);
    this.feeds.push({
      xmlUrl: checked.url,
      title: label ?? new URL(checked.url).hostname,
      htmlUrl: cleanSiteUrl(attributes.get("htmlurl")),
      description: cleanText(attributes.get("description")),
      type: cleanText(attributes.get("type")),
      category: categoryFromAttribute(attributes.get("category")) ?? enclosing,
    });
    return enclosing;
  }
}
