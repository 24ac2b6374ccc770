import type { Collection, Document } from "mongodb";
import { isObjectId, objectIdsFor, refHex } from "../mongo/object-ids.js";
import type { Item } from "../types.js";
import { StorageError } from "../types.js";
import { sanitizeHtml } from "../../feeds/sanitize.js";
import { collapseWhitespace } from "../../feeds/text.js";
import { httpUrl } from "../../url/http-url.js";
import type { MicrosubChannel, MicrosubFeed, MicrosubStore } from "../../microsub/types.js";

const SUMMARY_LENGTH = 300;
/** HTML of one Microsub item sanitised at most (a post is far shorter; the rest is cut, the sanitiser closing what is open). */
const MAX_CONTENT_CHARS = 256 * 1024;

/** An id (ObjectId of the host's driver, or text) as text. */
function hex(value: unknown): string {
  return refHex(value) ?? String(value ?? "");
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** Plain-text summary from a Microsub item, cut at a word like our own summaries. */
function summaryOf(doc: Document): string | null {
  const raw = text(doc.summary) ?? text(doc.content?.text);
  if (!raw) return null;
  const flat = raw.replace(/\s+/g, " ").trim();
  if (flat.length <= SUMMARY_LENGTH) return flat;
  const cut = flat.slice(0, SUMMARY_LENGTH);
  const space = cut.lastIndexOf(" ");
  return `${(space > 200 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Text with whitespace collapsed, or null. */
function plain(value: unknown): string | null {
  const found = text(value);
  return found ? collapseWhitespace(found) || null : null;
}

/**
 * A Microsub item as the blogroll serves it, under the rules of items it
 * fetches itself (the Microsub plugin stored what remote feeds said): only
 * absolute http(s) links and images, HTML through the same sanitiser (at
 * most MAX_CONTENT_CHARS of it: this runs on every request that lists it).
 */
function toItem(doc: Document): Item {
  const published = doc.published instanceof Date ? doc.published : doc.published ? new Date(doc.published) : null;
  const photos: unknown[] = Array.isArray(doc.photo) ? doc.photo : doc.photo ? [doc.photo] : [];
  const url = httpUrl(doc.url);
  const html = text(doc.content?.html);
  return {
    id: hex(doc._id),
    blogId: hex(doc.feedId),
    uid: String(doc.uid ?? hex(doc._id)),
    url,
    title: plain(doc.name),
    summary: summaryOf(doc),
    content: html ? sanitizeHtml(html.slice(0, MAX_CONTENT_CHARS), url ?? undefined) || null : null,
    published: published && !Number.isNaN(published.getTime()) ? published : null,
    author: plain(doc.author?.name),
    photo: photos.map((photo) => httpUrl(photo)).find((photo) => photo !== null) ?? null,
    categories: Array.isArray(doc.category) ? doc.category.map(plain).filter((c): c is string => c !== null) : [],
    fetchedAt: published ?? storedAt(doc._id),
  };
}

/** When the Microsub plugin stored an item: the time its ObjectId carries (the epoch if it has none). */
function storedAt(id: unknown): Date {
  return isObjectId(id) ? id.getTimestamp() : new Date(0);
}

/**
 * MicrosubStore on the Microsub plugin's MongoDB collections. The host hands
 * them over, so ids in filters are made with the class of its driver.
 */
export function createMongoMicrosubStore(collections: {
  channels: Collection;
  feeds: Collection;
  items?: Collection | null;
}): MicrosubStore {
  const ids = objectIdsFor(collections.channels);
  const wrap = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new StorageError("Microsub collections could not be read", { cause: error });
    }
  };
  return {
    listChannels: () =>
      wrap(async () => {
        const docs = await collections.channels.find({}).sort({ order: 1, _id: 1 }).toArray();
        return docs.map((doc): MicrosubChannel => ({
          id: hex(doc._id),
          uid: String(doc.uid ?? ""),
          name: String(doc.name ?? doc.uid ?? ""),
          order: Number(doc.order ?? 0),
        }));
      }),
    listFeeds: (channelId) =>
      wrap(async () => {
        const filter = channelId ? { channelId: { $in: ids.refCandidates(channelId) } } : {};
        const docs = await collections.feeds.find(filter).sort({ _id: 1 }).toArray();
        return docs
          .filter((doc) => typeof doc.url === "string")
          .map((doc): MicrosubFeed => ({
            id: hex(doc._id),
            channelId: hex(doc.channelId),
            url: doc.url,
            title: text(doc.title),
            photo: text(doc.photo),
          }));
      }),
    listItems: ({ feedIds, limit, offset }) =>
      wrap(async () => {
        if (!collections.items || feedIds.length === 0 || limit <= 0) return [];
        const docs = await collections.items
          // Items the Microsub plugin has stripped (past its retention: no title or content left) are out, as in its own timelines.
          .find({ feedId: { $in: ids.ofList(feedIds) }, _stripped: { $ne: true } })
          .sort({ published: -1, _id: -1 })
          .skip(offset)
          .limit(limit)
          .toArray();
        return docs.map(toItem);
      }),
  };
}
