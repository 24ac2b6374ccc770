import { parseHttpUrl } from "../url/http-url.js";
import { listSourceKind } from "./list-kind.js";
import { fetchRemoteOpml } from "./remote-opml.js";
import { SourceError } from "./types.js";

/** An OPML document at a URL (`settings.url`), fetched conditionally: 304 means nothing to do. */
export const opmlUrlSource = listSourceKind("opml_url", async (source, context) => {
  const url = parseHttpUrl(source.settings.url);
  if (!url) throw new SourceError("The source has no valid OPML address");
  return fetchRemoteOpml(url.href, source, context);
});
