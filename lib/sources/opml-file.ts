import { importFeeds } from "./import.js";
import { readOpmlText } from "./remote-opml.js";
import { SourceError, type SourceKind } from "./types.js";

/** An uploaded OPML document, kept as text in `settings.xml`; re-imported on every refresh. */
export const opmlFileSource: SourceKind = {
  type: "opml_file",
  async refresh(source, context) {
    const xml = source.settings.xml ?? "";
    if (xml.trim() === "") throw new SourceError("The source holds no OPML document");
    const list = await readOpmlText(xml, context);
    return { report: await importFeeds(context.storage, source, list), title: list.title };
  },
};
