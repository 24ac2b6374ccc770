import type { BlogrollContext } from "../context.js";
import type { Source } from "../storage/types.js";
import { refreshSource, type SourceOutcome } from "./refresh.js";

/**
 * Reads a source's list now (a source just created, by the admin or a
 * BLOGROLL_CONFIG file) and has the blogs it newly lists fetched at once in
 * the background (Scheduler.fetchNewBlogs), rather than at the next sync.
 * A disabled source is not read.
 */
export async function readSourceNow(context: BlogrollContext, source: Source): Promise<SourceOutcome | null> {
  if (!source.enabled) return null;
  const storage = await context.getStorage();
  const outcome = await refreshSource(source, { storage, options: context.options, microsub: context.getMicrosub() });
  if (outcome.status !== "error") context.scheduler.fetchNewBlogs();
  return outcome;
}
