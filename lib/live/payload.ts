import { serializeBlogContext, serializeItem } from "../api/serialize.js";
import type { LiveEvent } from "../storage/types.js";
import { eventFrame } from "./frames.js";

/**
 * What a live event sends, or null when the public must not see it: a post of
 * a blog not visible now (or no longer stored), a blog added or updated that is
 * not visible now (its `removed` follows in the log). A post's data is an Item
 * with blog context, as /api/items gives it; a blog's is its id and change.
 */
export function liveFrame(event: LiveEvent, now: Date): Buffer | null {
  if (event.kind === "post") {
    if (!event.item || !event.blog) return null;
    return eventFrame(event.seq, "post", { ...serializeItem(event.item, now), blog: serializeBlogContext(event.blog) });
  }
  if (event.change !== "removed" && !event.blog) return null;
  return eventFrame(event.seq, "blog", { id: event.blogId, change: event.change });
}

/** Tells a client it missed more than the log keeps: reload everything, then go on from `id`. */
export const resetFrame = (id: number): Buffer => eventFrame(id, "reset", {});
