import { findBlogroll, type FoundBlogroll } from "../network/find-blogroll.js";
import type { Source } from "../storage/types.js";
import { feedUrlKey } from "../url/normalise.js";
import { listSourceKind } from "./list-kind.js";
import { fetchRemoteOpml } from "./remote-opml.js";
import { SourceError, type SourceContext } from "./types.js";
import { DAY } from "../time/durations.js";

/** How long a found blogroll address is trusted before the site is asked again. */
const FOUND_TTL = 7 * DAY;

/** Where a blogroll source's list was last found, kept in the meta store. */
export interface FoundRecord extends FoundBlogroll {
  /** The site address it was found for (the source's setting then). */
  site: string;
  foundAt: string;
}

export const foundRecordKey = (sourceId: string) => `blogrollSource:${sourceId}`;

/** The recorded blogroll of the source's site, when it is for the current address and not older than a week. */
async function recorded(source: Source, context: SourceContext, now: Date): Promise<FoundRecord | null> {
  const record = await context.storage.meta.get<FoundRecord>(foundRecordKey(source.id));
  if (!record || record.site !== source.settings.url) return null;
  return now.getTime() - Date.parse(record.foundAt) < FOUND_TTL ? record : null;
}

/** Asks the site where its blogroll is. */
async function lookUp(source: Source, context: SourceContext): Promise<FoundBlogroll> {
  const found = await findBlogroll(source.settings.url ?? "", context.options, context.signal);
  if (!found.ok) throw new SourceError(found.error);
  return found.blogroll;
}

async function find(source: Source, context: SourceContext, now: Date): Promise<FoundRecord> {
  const record: FoundRecord = {
    ...(await lookUp(source, context)),
    site: source.settings.url ?? "",
    foundAt: now.toISOString(),
  };
  await context.storage.meta.set(foundRecordKey(source.id), record);
  return record;
}

/**
 * Someone's blogroll (`settings.url`: their site's address): the OPML list
 * the site announces (lib/network/find-blogroll.ts, asked again weekly, or
 * at once when the list's address stops answering), mirrored like an OPML
 * URL source: conditional requests, owner edits kept, the blogs it drops
 * no longer listed by it, never deleted.
 */
export const blogrollSource = listSourceKind("blogroll", async (source, context) => {
  if (!(source.settings.url ?? "").trim()) throw new SourceError("The source has no site address");
  // A preview asks the site afresh and keeps nothing.
  if (context.readOnly) return fetchRemoteOpml((await lookUp(source, context)).url, source, context);
  const now = new Date();
  const previous = await context.storage.meta.get<FoundRecord>(foundRecordKey(source.id));
  const known = await recorded(source, context, now);
  // Validators belong to the list they came from: a list found at another address is read afresh.
  const readList = (where: FoundRecord) =>
    fetchRemoteOpml(
      where.url,
      previous && feedUrlKey(previous.url) === feedUrlKey(where.url)
        ? source
        : { ...source, etag: null, lastModified: null },
      context,
    );
  if (!known) return readList(await find(source, context, now));
  try {
    return await readList(known);
  } catch (error) {
    // A remembered address that stopped answering: the site may have moved its list; ask the site once more.
    if (!(error instanceof SourceError)) throw error;
    const again = await find(source, context, now);
    if (feedUrlKey(again.url) === feedUrlKey(known.url)) throw error;
    return readList(again);
  }
});
