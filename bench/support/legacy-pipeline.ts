/**
 * The earlier plugin's parsing path, rebuilt for comparison only: feedparser
 * on the raw bytes, then sanitize-html on every item's HTML and for its text
 * summary, and a sha256 per item for its id. Nothing in the product uses it.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import FeedParser from "feedparser";
import sanitize from "sanitize-html";

const CONTENT_OPTIONS: sanitize.IOptions = {
  allowedTags: [...sanitize.defaults.allowedTags, "img"],
  allowedAttributes: { a: ["href", "title"], img: ["src", "alt", "title", "width", "height"] },
};
const TEXT_OPTIONS: sanitize.IOptions = { allowedTags: [], allowedAttributes: {} };

/** Items as the earlier plugin stored them; resolves with how many items the feed gave. */
export function legacyParse(bytes: Uint8Array, feedUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const parser = new FeedParser({ feedurl: feedUrl });
    let count = 0;
    parser.on("error", reject);
    parser.on("readable", () => {
      let item: FeedParser.Item | null;
      while ((item = parser.read()) !== null) {
        const html = item.description ?? item.summary ?? "";
        sanitize(html, CONTENT_OPTIONS);
        sanitize(item.summary ?? html, TEXT_OPTIONS).slice(0, 300);
        createHash("sha256")
          .update(`${feedUrl}\n${item.guid ?? item.link ?? item.title}`)
          .digest("hex");
        count++;
      }
    });
    parser.on("end", () => resolve(count));
    Readable.from([Buffer.from(bytes)]).pipe(parser);
  });
}
