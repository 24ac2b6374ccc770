import { mf2 } from "microformats-parser";
import { Parser } from "htmlparser2";
import { FeedParseError } from "./errors.js";
import { boundHtmlNesting } from "./nesting.js";
import { html, text, type RawEntry, type RawFeed, type RawText } from "./raw.js";
import { collapseWhitespace } from "./text.js";

type Mf2Item = ReturnType<typeof mf2>["items"][number];
type Mf2Property = Mf2Item["properties"][string][number];

/**
 * Reads an HTML page's h-feed into the format-neutral RawFeed. Without an
 * explicit h-feed, top-level h-entries form an implied feed. URLs come out
 * absolute (the microformats parser resolves them against `pageUrl`).
 */
export function readHFeed(hostilePage: string, pageUrl: string): RawFeed {
  // parse5 and the microformats parser slow down with the square of the nesting depth: bound it first.
  const page = boundHtmlNesting(hostilePage);
  const doc = mf2(page, { baseUrl: pageUrl });
  const feed = findFirst(doc.items, "h-feed");
  const entries = feed ? (feed.children ?? []).filter(isEntry) : doc.items.filter(isEntry);
  if (!feed && entries.length === 0) throw new FeedParseError("HTML page has no h-feed or h-entry");
  const props = feed?.properties ?? {};
  return {
    type: "hfeed",
    title: text(firstText(props.name)) ?? text(documentTitle(page)),
    description: text(firstText(props.summary) ?? firstText(props.content)),
    link: firstText(props.url) ?? pageUrl,
    // The feed's own photo or logo, else its author's h-card photo (a personal site's usual picture): the blog's image, so no icon lookup.
    images: [...allText(props.photo), ...allText(props.logo), ...personPhotos(props.author)],
    author: personName(props.author),
    language: feed?.lang ?? null,
    entries: entries.map(toRawEntry),
    ...pagePushLinks(doc.rels),
  };
}

/** A page's rel=hub and rel=self links (WebSub discovery in HTML), as `{ push }` when it has a hub. */
function pagePushLinks(rels: Record<string, string[]>): { push?: RawFeed["push"] } {
  const hubs = [...new Set(rels.hub ?? [])];
  return hubs.length > 0 ? { push: { hubs, self: rels.self?.[0] ?? null, cloud: null } } : {};
}

function toRawEntry(entry: Mf2Item): RawEntry {
  const props = entry.properties;
  const content = contentOf(props.content?.[0]);
  const contentText = valueText(props.content?.[0] ?? "");
  return {
    id: firstText(props.uid),
    link: firstText(props.url),
    title: text(explicitName(firstText(props.name), contentText)),
    summary: text(firstText(props.summary)),
    content,
    dates: [firstText(props.published), firstText(props.updated)],
    author: personName(props.author),
    images: allText(props.photo).concat(allText(props.featured)),
    categories: allText(props.category),
  };
}

/**
 * The entry's name unless it merely repeats the content, which is how a
 * note without a title looks once the parser implies a name from its text.
 */
function explicitName(name: string | null, contentText: string | null): string | null {
  if (!name || !contentText) return name;
  const prefix = collapseWhitespace(name).replace(/(…|\.\.\.)$/, "");
  return collapseWhitespace(contentText).startsWith(prefix) ? null : name;
}

function contentOf(property: Mf2Property | undefined): RawText | null {
  if (typeof property === "string") return text(property);
  if (property && "html" in property) return html(property.html);
  return null;
}

function findFirst(items: Mf2Item[], type: string): Mf2Item | null {
  for (const item of items) {
    if (item.type?.includes(type)) return item;
    const nested = findFirst(item.children ?? [], type);
    if (nested) return nested;
  }
  return null;
}

function isEntry(item: Mf2Item): boolean {
  return item.type?.includes("h-entry") ?? false;
}

/** A property value as text: strings as they are, images by URL, nested items by value or name. */
function valueText(property: Mf2Property): string | null {
  if (typeof property === "string") return property.trim() || null;
  if ("properties" in property) {
    const value = property.value;
    if (typeof value === "string" && value.trim()) return value.trim();
    return firstText(property.properties.name);
  }
  if ("value" in property && typeof property.value === "string") return property.value.trim() || null;
  return null;
}

function firstText(values: Mf2Property[] | undefined): string | null {
  for (const value of values ?? []) {
    const result = valueText(value);
    if (result) return result;
  }
  return null;
}

function allText(values: Mf2Property[] | undefined): string[] {
  return (values ?? []).map(valueText).filter((value): value is string => value !== null);
}

/** An author given as a string or an h-card. */
function personName(values: Mf2Property[] | undefined): string | null {
  const first = values?.[0];
  if (!first) return null;
  if (typeof first === "object" && "properties" in first) return firstText(first.properties.name) ?? valueText(first);
  return valueText(first);
}

/** The photos of an author given as an h-card (none for a name alone). */
function personPhotos(values: Mf2Property[] | undefined): string[] {
  const first = values?.[0];
  return first && typeof first === "object" && "properties" in first ? allText(first.properties.photo) : [];
}

/** The page's <title>, for h-feeds that do not name themselves. */
function documentTitle(page: string): string | null {
  let inTitle = false;
  let done = false;
  let title = "";
  const parser = new Parser(
    {
      onopentagname(name) {
        if (name === "title" && !done) inTitle = true;
      },
      ontext(chunk) {
        if (inTitle) title += chunk;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          done = true;
          parser.pause();
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(page);
  return collapseWhitespace(title) || null;
}
