import { decodeText } from "../encoding/decode.js";
import { httpUrl } from "../url/http-url.js";
import { FeedParseError } from "./errors.js";
import { readHFeed } from "./h-feed.js";
import { readJsonFeed } from "./json-feed.js";
import { normaliseFeed } from "./normalise.js";
import type { RawFeed } from "./raw.js";
import { findRootElement, sniffFormat } from "./sniff.js";
import type { ParsedFeed, ParseFeedOptions } from "./types.js";
import { readXmlFeed } from "./xml/reader.js";

/**
 * Parses a fetched body into a normalised feed: RSS 0.9x/1.0/2.0, Atom
 * 0.3/1.0, JSON Feed 1.0/1.1 or an HTML h-feed, told apart by content.
 * Bytes are decoded with the Content-Type charset, the XML declaration or
 * the HTML meta. Pure CPU work, no I/O: safe to run in a worker thread.
 *
 * @throws FeedParseError when the body is not a feed.
 * @throws TypeError when `options.url` is not an absolute URL.
 */
export async function parseFeed(body: string | Uint8Array, options: ParseFeedOptions): Promise<ParsedFeed> {
  if (!URL.canParse(options.url))
    throw new TypeError(`parseFeed: options.url must be an absolute URL, got ${options.url}`);
  // Text is read as its UTF-8 bytes would be: a lone surrogate (no character of any encoding) becomes U+FFFD.
  const text =
    typeof body === "string"
      ? body.replace(/^\uFEFF/, "").replace(/\p{Cs}/gu, "\uFFFD")
      : decodeText(body, options.contentType);
  const raw = await readAnyFormat(text, options);
  raw.language ||= options.contentLanguage?.split(",")[0].trim() || null;
  return normaliseFeed(raw, { url: options.url, maxItems: options.maxItems });
}

async function readAnyFormat(text: string, options: ParseFeedOptions): Promise<RawFeed> {
  switch (sniffFormat(text)) {
    case "json":
      return readJsonFeed(text);
    case "xml-feed":
      return readXmlFeed(text, options.url, httpUrl(options.contentLocation, options.url));
    case "html":
      return readHtmlFeed(text, options.url);
    case "other-xml":
      throw new FeedParseError(
        `XML document with root <${findRootElement(text)?.name}> is not an RSS, RDF or Atom feed`,
      );
    case "unknown":
      throw new FeedParseError(
        `Not a feed: the body is not XML, HTML or JSON${options.contentType ? ` (Content-Type: ${options.contentType})` : ""}`,
      );
  }
}

/**
 * The microformats parser throws plain errors on some hostile pages (and
 * overflows the stack on very deep nesting): report those as FeedParseError
 * like every other unreadable body.
 */
function readHtmlFeed(text: string, url: string): RawFeed {
  try {
    return readHFeed(text, url);
  } catch (error) {
    if (error instanceof FeedParseError) throw error;
    throw new FeedParseError("HTML page could not be read as an h-feed", { cause: error });
  }
}
