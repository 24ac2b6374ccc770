/**
 * Raised when a body is not a feed this package can read: not XML/JSON/HTML,
 * malformed XML, a JSON document that is not a JSON Feed, an HTML page with
 * no h-feed or h-entry, an XML document whose root is not rss/rdf/feed.
 */
export class FeedParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FeedParseError";
  }
}
