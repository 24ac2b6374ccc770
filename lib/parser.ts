/**
 * Public parser entry, `indiekit-endpoint-blogroll/parser`: turns fetched
 * feed and OPML bodies into plain data. Pure functions, no storage or network.
 */
export { parseFeed } from "./feeds/parse.js";
export { FeedParseError } from "./feeds/errors.js";
export { sanitizeHtml } from "./feeds/sanitize.js";
export { parseFeedDate } from "./feeds/dates.js";
export { decodeText } from "./encoding/decode.js";
export type { FeedInfo, NormalisedItem, ParsedFeed, ParseFeedOptions } from "./feeds/types.js";
export { parseOpml, OpmlParseError } from "./opml/parse.js";
export type { OpmlFeed, ParsedOpml, ParseOpmlOptions } from "./opml/parse.js";
