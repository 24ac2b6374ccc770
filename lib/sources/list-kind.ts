import type { Source, SourceType } from "../storage/types.js";
import { importFeeds } from "./import.js";
import type { ListedFeed, ListRead, SourceContext, SourceKind } from "./types.js";

/** A source kind whose blogs are the list it reads. */
export type ListSourceKind = SourceKind & { read: NonNullable<SourceKind["read"]> };

/**
 * A kind whose refresh imports what `read` gives (nothing to do after a 304),
 * keeping the list's validators and title. `categoryOf`: the category a listed
 * feed takes (default: its outline's).
 */
export function listSourceKind(
  type: SourceType,
  read: (source: Source, context: SourceContext) => Promise<ListRead>,
  categoryOf?: (source: Source) => (feed: ListedFeed) => string | null,
): ListSourceKind {
  return {
    type,
    read,
    async refresh(source, context) {
      const remote = await read(source, context);
      if (remote.notModified) return { report: null };
      const report = await importFeeds(context.storage, source, remote.list, categoryOf?.(source));
      return { report, etag: remote.etag, lastModified: remote.lastModified, title: remote.list.title };
    },
  };
}
