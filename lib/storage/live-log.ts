import type { Blog } from "./types.js";
import { HOUR } from "../time/durations.js";

/*
 * What both adapters agree on for the live event log (LiveEventStore).
 */

/**
 * Blog fields the public page and the API show: on a publicly visible blog,
 * a change to any of them is an `updated` event. Counters and fetch state
 * (itemCount, lastFetchAt, status) are left out: a new post has its own event.
 */
export const PAGE_FIELDS = [
  "title",
  "description",
  "feedUrl",
  "siteUrl",
  "feedType",
  "category",
  "tags",
  "photo",
  "iconUrl",
  "author",
  "pinned",
  "relationship",
  "note",
  "fediverse",
  "fediverseUrl",
] as const satisfies readonly (keyof Blog)[];

/** How long events are kept: a client that was away longer is told to reload (`reset`). */
export const LIVE_LOG_KEPT_MS = HOUR;
