/** The one error `parseOpml` throws: the document is not usable OPML. */
export class OpmlParseError extends Error {
  override name = "OpmlParseError";
}
