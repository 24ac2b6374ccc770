import { parseHttpUrl } from "../url/http-url.js";
import { importFeeds } from "./import.js";
import { fetchRemoteOpml } from "./remote-opml.js";
import { SourceError, type SourceKind } from "./types.js";

/** An OPML document at a URL (`settings.url`), fetched conditionally: 304 means nothing to do. */
export const opmlUrlSource: SourceKind = {
  type: "opml_url",
  async refresh(source, context) {
    const url = parseHttpUrl(source.settings.url);
    if (!url) throw new SourceError("The source has no valid OPML address");
    const remote = await fetchRemoteOpml(url.href, source, context);
    if (remote.notModified) return { report: null };
    const report = await importFeeds(context.storage, source, remote.list);
    return { report, etag: remote.etag, lastModified: remote.lastModified, title: remote.list.title };
  },
};
