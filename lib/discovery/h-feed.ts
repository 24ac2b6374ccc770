import { mf2 } from "microformats-parser";

type Mf2Item = ReturnType<typeof mf2>["items"][number];

function findHFeed(items: Mf2Item[]): Mf2Item | null {
  for (const item of items) {
    if (item.type?.includes("h-feed")) return item;
    const nested = findHFeed(item.children ?? []);
    if (nested) return nested;
  }
  return null;
}

function nameOf(item: Mf2Item): string | null {
  const value = item.properties.name?.[0];
  const text = typeof value === "string" ? value : null;
  return text?.replace(/\s+/g, " ").trim() || null;
}

/**
 * Whether the page itself is an h-feed: it has an explicit h-feed, or at
 * least two top-level h-entries (an implied feed). One lone h-entry is a post
 * page, not a feed. Returns the feed's name when it has one.
 */
export function findPageHFeed(html: string, pageUrl: string): { title: string | null } | null {
  let items: Mf2Item[];
  try {
    items = mf2(html, { baseUrl: pageUrl }).items;
  } catch {
    return null;
  }
  const feed = findHFeed(items);
  if (feed) return { title: nameOf(feed) };
  const entries = items.filter((item) => item.type?.includes("h-entry"));
  return entries.length >= 2 ? { title: null } : null;
}
