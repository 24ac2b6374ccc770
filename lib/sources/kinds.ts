import type { SourceType } from "../storage/types.js";
import { blogrollSource } from "./blogroll.js";
import { feedlandSource } from "./feedland.js";
import type { ListSourceKind } from "./list-kind.js";
import { manualSource } from "./manual.js";
import { microsubSource } from "./microsub.js";
import { opmlFileSource } from "./opml-file.js";
import { opmlUrlSource } from "./opml-url.js";
import type { SourceKind } from "./types.js";

/** The kinds whose blogs are a list they read: refresh imports it, the admin's preview shows it. */
export const LIST_KINDS = {
  opml_url: opmlUrlSource,
  opml_file: opmlFileSource,
  feedland: feedlandSource,
  blogroll: blogrollSource,
} satisfies Record<string, ListSourceKind>;

/** Every kind of source, by its type. */
export const SOURCE_KINDS: Record<SourceType, SourceKind> = {
  ...LIST_KINDS,
  manual: manualSource,
  microsub: microsubSource,
};
