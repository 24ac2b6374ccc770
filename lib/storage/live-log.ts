import { PUBLIC_BLOG_FIELDS, type PublicBlogField } from "./types.js";
import { HOUR } from "../time/durations.js";

/*
 * What both adapters agree on for the live event log (LiveEventStore).
 */

/** Public fields whose change is no `updated` event: the id, counters and fetch state (a new post has its own event), and where the blog came from. */
const NOT_AN_UPDATE = [
  "id",
  "status",
  "itemCount",
  "lastFetchAt",
  "lastItemAt",
  "source",
  "microsubChannelName",
] as const;
type NotAnUpdate = (typeof NOT_AN_UPDATE)[number];

/**
 * Blog fields the public page and the API show whose change, on a publicly
 * visible blog, is an `updated` event: every public field but NOT_AN_UPDATE,
 * so a field made public is one unless it is named there.
 */
export const PAGE_FIELDS: readonly Exclude<PublicBlogField, NotAnUpdate>[] = PUBLIC_BLOG_FIELDS.filter(
  (field): field is Exclude<PublicBlogField, NotAnUpdate> => !(NOT_AN_UPDATE as readonly string[]).includes(field),
);

/** How long events are kept: a client that was away longer is told to reload (`reset`). */
export const LIVE_LOG_KEPT_MS = HOUR;
