import { listSourceKind } from "./list-kind.js";
import { readOpmlText } from "./remote-opml.js";
import { SourceError } from "./types.js";

/** An uploaded OPML document, kept as text in `settings.xml`; re-imported on every refresh. */
export const opmlFileSource = listSourceKind("opml_file", async (source, context) => {
  const xml = source.settings.xml ?? "";
  if (xml.trim() === "") throw new SourceError("The source holds no OPML document");
  return { notModified: false, list: await readOpmlText(xml, context) };
});
