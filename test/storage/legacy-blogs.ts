/**
 * Blogs as stored before origins were recorded (source ids, an `inactive`
 * status), and what each becomes: shared by the SQLite and MongoDB migration
 * tests, which write them in their own backend's older shape.
 */
import assert from "node:assert/strict";
import { OWNER_ORIGIN, type Storage } from "../../lib/storage/types.js";

/** The sources of the older database: an OPML address and a FeedLand account ("gone" was deleted before). */
export type LegacySourceName = "opml" | "feedland" | "gone";

export interface LegacyCase {
  name: string;
  source: string | null;
  sourceIds: LegacySourceName[];
  status: "active" | "inactive";
  ownerEdited: string[];
  title: string;
  category: string | null;
  /** Expected: who lists it ([source name or owner, kind, values]), and whether the public sees it. */
  origins: Array<[LegacySourceName | "owner", string | null, Record<string, string>]>;
  public: boolean;
}

export const LEGACY_CASES: LegacyCase[] = [
  {
    name: "added by hand, later listed by a source too",
    source: "manual",
    sourceIds: ["opml"],
    status: "active",
    ownerEdited: ["title", "pinned"],
    title: "Typed",
    category: "Mine",
    origins: [
      ["owner", "manual", { category: "Mine" }],
      ["opml", "opml", {}],
    ],
    public: true,
  },
  {
    name: "added by hand, then marked no longer listed when that source dropped it",
    source: "manual",
    sourceIds: ["opml"],
    status: "inactive",
    ownerEdited: [],
    title: "Mine too",
    category: null,
    origins: [["owner", "manual", {}]],
    public: true,
  },
  {
    name: "dropped by its only source",
    source: "opml",
    sourceIds: ["opml"],
    status: "inactive",
    ownerEdited: [],
    title: "Dropped",
    category: "Old",
    origins: [],
    public: false,
  },
  {
    name: "listed by two sources",
    source: "opml",
    sourceIds: ["opml", "feedland"],
    status: "active",
    ownerEdited: [],
    title: "Shared",
    category: "Friends",
    origins: [
      ["opml", "opml", { category: "Friends" }],
      ["feedland", "feedland", {}],
    ],
    public: true,
  },
  {
    name: "from a source, with the owner's notes",
    source: "opml",
    sourceIds: ["opml"],
    status: "active",
    ownerEdited: ["notes"],
    title: "Noted",
    category: null,
    origins: [
      ["opml", "opml", {}],
      ["owner", "manual", {}],
    ],
    public: true,
  },
  {
    name: "from a source, only hidden by the owner",
    source: "opml",
    sourceIds: ["opml"],
    status: "active",
    ownerEdited: ["hidden"],
    title: "Hidden",
    category: null,
    origins: [["opml", "opml", {}]],
    public: false,
  },
  {
    name: "followed in Microsub, named after its host",
    source: "microsub",
    sourceIds: [],
    status: "active",
    ownerEdited: [],
    title: "follow.example",
    category: "News",
    origins: [["owner", "microsub", { category: "News" }]],
    public: true,
  },
  {
    name: "from a source deleted long ago",
    source: "opml",
    sourceIds: ["gone"],
    status: "active",
    ownerEdited: [],
    title: "Orphan",
    category: null,
    origins: [["owner", "manual", {}]],
    public: true,
  },
];

/** Each case's feed address (the Microsub follow's host is its title). */
export const legacyFeedUrl = (index: number): string =>
  index === 6 ? "https://follow.example/feed" : `https://legacy${index}.example/feed`;

/** Reads every migrated case through the port and checks it; `sourceIds` maps names to the ids written. */
export async function checkMigrated(storage: Storage, sourceIds: Record<LegacySourceName, string>): Promise<void> {
  const idOf = (name: LegacySourceName | "owner") => (name === "owner" ? OWNER_ORIGIN : sourceIds[name]);
  const publicIds = new Set(
    (await storage.blogs.list({ visibility: "public", limit: 100, offset: 0 })).items.map((blog) => blog.id),
  );
  for (const [index, legacy] of LEGACY_CASES.entries()) {
    const blog = await storage.blogs.getByFeedUrl(legacyFeedUrl(index));
    assert.ok(blog, legacy.name);
    assert.deepEqual(
      blog.origins.map((origin) => [origin.id, origin.kind, origin.values]),
      legacy.origins.map(([name, kind, values]) => [idOf(name), kind, values]),
      legacy.name,
    );
    assert.equal(publicIds.has(blog.id), legacy.public, `${legacy.name}: public`);
    assert.equal(blog.status, "active", `${legacy.name}: its feed's status`);
    assert.equal(blog.title, legacy.title, `${legacy.name}: title unchanged`);
    assert.equal(blog.source, legacy.origins[0]?.[1] ?? null, `${legacy.name}: source is the first origin's kind`);
    // A typed title is the owner's, a host-name title a placeholder: neither is what the feed said.
    const fed = index === 6 || legacy.ownerEdited.includes("title") ? undefined : legacy.title;
    assert.equal(blog.feedValues.title, fed, `${legacy.name}: the feed's title as far as known`);
  }
  for (const source of await storage.sources.list())
    assert.deepEqual([source.etag, source.lastModified], [null, null], "each list is read in full once more");
}
