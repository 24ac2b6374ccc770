/**
 * The storage port: every piece of the product talks to data through these
 * interfaces. Adapters (SQLite, MongoDB) implement them; no driver type
 * appears here. All identifiers are 24-hex-digit strings (ObjectId form) and
 * all dates are real `Date` values.
 */

/**
 * Lifecycle of a blog's feed. `deleted` is a soft delete: sync never
 * re-creates it. Whether anyone lists the blog is not a status: see `origins`.
 */
export type BlogStatus =
  | "pending" // known, never fetched
  | "active" // last fetch succeeded
  | "error" // last fetch failed; backing off
  | "gone" // 410, or redirects ending in 404/410 for 7 days: off every public surface, checked weekly
  | "deleted"; // soft-deleted by the owner or by Microsub

export type FeedType = "rss" | "atom" | "json" | "hfeed";

/** Fields the owner may edit in the admin UI; once edited, sync leaves them alone. */
export type EditableBlogField =
  | "title"
  | "description"
  | "siteUrl"
  | "category"
  | "tags"
  | "photo"
  | "author"
  | "pinned"
  | "hidden"
  | "notes"
  | "relationship"
  | "note"
  | "fediverse";

/** Every EditableBlogField, for adapters that check or walk them. */
export const EDITABLE_BLOG_FIELDS: readonly EditableBlogField[] = [
  "title",
  "description",
  "siteUrl",
  "category",
  "tags",
  "photo",
  "author",
  "pinned",
  "hidden",
  "notes",
  "relationship",
  "note",
  "fediverse",
];

/** The owner as the origin of a blog: added by hand, from Suggestions, re-added, followed in Microsub, edited, or kept when its source went. */
export const OWNER_ORIGIN = "owner";

/** Fields an origin's listing may give a blog (an outline's title, its folder as category, ...). */
export type ListedField = "title" | "description" | "siteUrl" | "category" | "photo" | "author";
/** The values one origin gives; a field left out is one it gives none of. */
export type ListedValues = Partial<Record<ListedField, string>>;
/** What the feed itself says of the fields it can name (all but category). */
export type FeedValues = Partial<Record<Exclude<ListedField, "category">, string>>;

/** One origin that lists a blog. */
export interface BlogOrigin {
  /** The id of the source that lists it, or OWNER_ORIGIN. */
  id: string;
  /** The blog's public `source` while this origin is its first: "opml", "feedland", "microsub", "blogroll", "manual" (null: unknown). */
  kind: string | null;
  /** When it began listing the blog. */
  since: Date;
  values: ListedValues;
}

export interface Blog {
  id: string;
  title: string;
  description: string | null;
  feedUrl: string;
  siteUrl: string | null;
  feedType: FeedType | null;
  category: string | null;
  tags: string[];
  photo: string | null;
  author: string | null;
  status: BlogStatus;
  itemCount: number;
  pinned: boolean;
  hidden: boolean;
  /** The owner's private notes (admin only). */
  notes: string | null;
  /** Who the blog's author is to the owner: XFN 1.1 values (lib/owner-fields/relationship.ts), [] when none. */
  relationship: string[];
  /** The owner's public line about the blog: plain text, at most 280 characters. */
  note: string | null;
  /** The author's fediverse handle, `@user@host`. */
  fediverse: string | null;
  /** The profile page WebFinger gave for `fediverse` (null when none was found). */
  fediverseUrl: string | null;
  /** The kind of its first origin ("opml" | "manual" | "feedland" | "microsub" | "blogroll"), null when none: the public API's `source`. */
  source: string | null;
  /**
   * Every origin that lists the blog, the first to list it first. A blog no
   * origin lists is unlisted: kept for the admin, never public, not fetched.
   */
  origins: BlogOrigin[];
  /** What the feed said of itself at the fetches that said it: used where neither the owner nor an origin gives a value. */
  feedValues: FeedValues;
  microsubFeedId: string | null;
  microsubChannelId: string | null;
  microsubChannelName: string | null;
  /** True for blogs whose items live elsewhere (Microsub): never fetched. */
  skipItemFetch: boolean;
  lastFetchAt: Date | null;
  lastItemAt: Date | null;
  lastError: string | null;
  /** When the scheduler should fetch this blog next (null = due now). */
  nextFetchAt: Date | null;
  /** Consecutive failed fetches, for exponential back-off. */
  failureCount: number;
  /** When the current run of failures began (null unless status is `error`). */
  failingSince: Date | null;
  /** When its feed's redirects began to end in 404 or 410, every fetch since (null otherwise): 7 days of it and the blog is gone. */
  deadEndSince: Date | null;
  /** Publication dates of the newest posts its feed showed, newest first (at most RECENT_POSTS): the posting rate. */
  recentPosts: Date[];
  /** The newest publication date its feed ever showed (kept after the items themselves expire). */
  lastPostAt: Date | null;
  /** The interval the schedule chose at the last fetch, in milliseconds (null before any). */
  fetchInterval: number | null;
  /** Why the next fetch is when it is (a ScheduleReason of lib/schedule/policy.ts), null before any fetch. */
  fetchReason: string | null;
  /** A server's Retry-After: not fetched before this, not even by "Sync now". */
  waitUntil: Date | null;
  /**
   * The push notifications' budget (lib/schedule/hints.ts): when every hint
   * taken so far is paid back, so the whole burst is available again; null
   * while none was taken. Kept with the blog, so a restart does not refill it.
   */
  hintBudgetAt: Date | null;
  /** The feed URL it had before a permanent redirect moved it, and when (null if never moved). */
  movedFrom: string | null;
  movedAt: Date | null;
  etag: string | null;
  lastModified: string | null;
  /** Site icon found by the sync's lookup, used when the feed has no image; "" when the site has none, null before any lookup. */
  iconUrl: string | null;
  /** Fields the owner edited; sync never overwrites these. */
  ownerEdited: EditableBlogField[];
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/**
 * A blog as one origin lists it. The listed fields (title, description,
 * siteUrl, category, photo, author) are the values this origin gives; absent,
 * null or blank, it gives none (and clears nobody else's).
 */
export interface NewBlog {
  feedUrl: string;
  title?: string | null;
  description?: string | null;
  siteUrl?: string | null;
  category?: string | null;
  photo?: string | null;
  author?: string | null;
  /** The origin's kind (see BlogOrigin.kind). */
  source: string | null;
  /** The source that lists it; absent or null: the owner. */
  sourceId?: string | null;
  /** A new blog only: what is known of the feed before its first fetch (discovery, a recommender's outline); fetches replace it. */
  feed?: FeedValues;
  /** A new blog only: the format a listing names (the feed itself says what it is). */
  feedType?: FeedType | null;
  tags?: string[];
  microsubFeedId?: string | null;
  microsubChannelId?: string | null;
  microsubChannelName?: string | null;
  skipItemFetch?: boolean;
  status?: BlogStatus;
}

export type UpsertOutcome = "added" | "updated" | "unchanged" | "reactivated" | "skipped-deleted";

export interface UpsertResult {
  outcome: UpsertOutcome;
  blog: Blog;
}

/**
 * What the admin can change on a blog. Setting a field marks it owner-edited;
 * an edit of anything but `hidden` makes the owner one of its origins.
 */
export type BlogEdit = Partial<Pick<Blog, EditableBlogField>> & {
  /** Admin may re-enable a gone or failing blog. */
  status?: "active" | "pending";
  /** The profile page found for `fediverse`: only read with `fediverse`, which it always follows (absent: null). */
  fediverseUrl?: string | null;
};

/** Metadata sync learned from the feed itself; it shows where neither the owner nor an origin gives a value. */
export type FeedMetadata = Partial<Pick<Blog, "title" | "description" | "siteUrl" | "photo" | "author" | "feedType">>;

/** The outcome of one fetch, written in one step. */
export interface FetchRecord {
  at: Date;
  status: BlogStatus; // active | error | gone
  error?: string | null;
  /** The feed's redirects ended in 404 or 410 (starts or continues `deadEndSince`; anything else ends it). */
  deadEnd?: boolean;
  nextFetchAt: Date | null;
  failureCount: number;
  etag?: string | null;
  lastModified?: string | null;
  /** New feed URL after a permanent redirect (adapter refuses if taken). */
  feedUrl?: string;
  metadata?: FeedMetadata;
  iconUrl?: string | null;
  /** The schedule's state after this fetch; absent: left as it was. */
  schedule?: {
    recentPosts: Date[];
    fetchInterval: number | null;
    fetchReason: string;
    waitUntil: Date | null;
  };
}

export type BlogSort = "title" | "recent";

/** The fields of a blog the public reads show (the API's Blog object, the river's source): see PUBLIC_BLOG_FIELDS. */
export type PublicBlogField = (typeof PUBLIC_BLOG_FIELDS)[number];

/**
 * What the public answers read of a blog: a storage reads these alone for
 * them (`listPublic`, `getManyPublic`), not the rest of its row (origins,
 * schedule, the feed's values, recent post dates), which costs several
 * times as much to read and decode.
 */
export const PUBLIC_BLOG_FIELDS = [
  "id",
  "title",
  "description",
  "feedUrl",
  "siteUrl",
  "feedType",
  "category",
  "tags",
  "photo",
  "iconUrl",
  "author",
  "status",
  "itemCount",
  "pinned",
  "lastFetchAt",
  "lastItemAt",
  "source",
  "microsubChannelName",
  "relationship",
  "note",
  "fediverse",
  "fediverseUrl",
] as const satisfies readonly (keyof Blog)[];

export type PublicBlog = Pick<Blog, PublicBlogField>;

export interface BlogListQuery {
  category?: string;
  source?: string;
  sort?: BlogSort;
  limit: number;
  offset: number;
  /** public: hides hidden, deleted, unlisted and gone blogs. admin: everything but deleted. */
  visibility: "public" | "admin";
  /** admin only: substring of title or URL, case-insensitive */
  search?: string;
  /** admin only: a status, hidden blogs, or unlisted ones (no origin lists them) */
  status?: BlogStatus | "hidden" | "unlisted";
  /** admin only: blogs in a health condition (see BlogHealthQuery). */
  health?: { condition: "dormant" | "failing" | "moved" } & BlogHealthQuery;
  /** Blogs this origin (a source id or OWNER_ORIGIN) lists; `shared`: only those another origin lists too (true) or none does (false). */
  origin?: { id: string; shared?: boolean };
}

/**
 * The blogs a bulk action covers: ticked ones by id, or every blog the
 * admin's list shows under a query's filters (its sort, limit and offset do
 * not matter; deleted blogs are never covered).
 */
export type BlogSelection = { ids: string[] } | { matching: Omit<BlogListQuery, "visibility"> };

export interface Page<T> {
  items: T[];
  total: number;
}

export interface CategoryCount {
  name: string;
  count: number;
}

export interface Item {
  id: string;
  blogId: string;
  uid: string;
  url: string | null;
  title: string | null;
  summary: string | null;
  content: string | null;
  /** Absent (null) when the feed gave no parseable date: never invented. */
  published: Date | null;
  author: string | null;
  photo: string | null;
  categories: string[];
  fetchedAt: Date;
}

export type NewItem = Omit<Item, "id" | "blogId" | "fetchedAt">;

export interface ItemListQuery {
  blogId?: string;
  category?: string;
  limit: number;
  offset: number;
  /** false: each item's content is not read (it is null), for answers that never send it. */
  content?: boolean;
}

export interface ItemUpsertResult {
  added: number;
  updated: number;
}

export type SourceType = "opml_url" | "opml_file" | "manual" | "feedland" | "microsub" | "blogroll";

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  missing: number;
}

export interface Source {
  id: string;
  type: SourceType;
  name: string;
  enabled: boolean;
  /** Type-specific settings: url, xml, instance, screenName, category, channelUid, categoryPrefix. */
  settings: Record<string, string>;
  status: "pending" | "ok" | "error";
  lastError: string | null;
  lastSyncAt: Date | null;
  lastImport: ImportCounts | null;
  etag: string | null;
  lastModified: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewSource {
  type: SourceType;
  name: string;
  enabled?: boolean;
  settings?: Record<string, string>;
}

export type SourcePatch = Partial<
  Pick<
    Source,
    "name" | "enabled" | "settings" | "status" | "lastError" | "lastSyncAt" | "lastImport" | "etag" | "lastModified"
  >
>;

/** Where health conditions begin: dormant (newest post before `dormantBefore`), failing (in error since `failingSince` or earlier). */
export interface BlogHealthQuery {
  dormantBefore: Date;
  failingSince: Date;
}

/** Blogs (not deleted) counted by how they are kept fresh and by health. */
export interface BlogHealthCounts {
  /**
   * Fetched ones by the reason of their schedule: `schedule` (their posting
   * rate), `server` (a server's floor), `push` (safety poll of a pushed blog),
   * `backoff` (failing, or told to wait); `pending` never fetched yet;
   * `external` never fetched (Microsub brings their posts); `off` gone or
   * unlisted.
   */
  freshness: {
    schedule: number;
    server: number;
    push: number;
    backoff: number;
    pending: number;
    external: number;
    off: number;
  };
  /** `healthy`: fetched well and not dormant. The others as the list filters; `moved` overlaps the rest. */
  health: { healthy: number; dormant: number; failing: number; erroring: number; gone: number; moved: number };
}

/** Where a page of `listDue` ended: its last blog's id and nextFetchAt (ignored with `everyone`, which goes by id). */
export interface DueCursor {
  id: string;
  nextFetchAt: Date | null;
}

export interface BlogStore {
  list(query: BlogListQuery): Promise<Page<Blog>>;
  /** As `list` with visibility "public", reading only the public fields of each blog. */
  listPublic(query: Omit<BlogListQuery, "visibility">): Promise<Page<PublicBlog>>;
  /** Any blog by id, deleted included; callers decide visibility. */
  get(id: string): Promise<Blog | null>;
  /** Looks up by the normalised form of the URL (see lib/url/normalise.ts). */
  getByFeedUrl(feedUrl: string): Promise<Blog | null>;
  /** Blogs by id, in no particular order; unknown ids are left out. */
  getMany(ids: string[]): Promise<Blog[]>;
  /** As `getMany`, reading only the public fields (whatever the blogs' visibility: callers decide it). */
  getManyPublic(ids: string[]): Promise<PublicBlog[]>;
  /**
   * An origin lists a blog: inserts it, or records the origin and the values
   * it gives now (lib/storage/provenance.ts says which value shows).
   * Never resurrects a deleted blog (`skipped-deleted`); an unlisted blog is
   * listed again (`reactivated`); a listing that changes nothing writes
   * nothing (`unchanged`).
   */
  upsertFromSource(blog: NewBlog): Promise<UpsertResult>;
  /** Admin edit; marks the given fields owner-edited (and the owner an origin, unless only `hidden` changes). */
  edit(id: string, edit: BlogEdit): Promise<Blog | null>;
  softDelete(id: string, at?: Date): Promise<boolean>;
  /**
   * Hides the selected blogs as the owner's edit of `hidden` would, in one
   * write however many (one statement in SQLite, one updateMany in MongoDB);
   * already hidden and unknown ones are left alone. Returns the ids it hid.
   */
  hideMany(selection: BlogSelection): Promise<string[]>;
  /** Soft-deletes the selected blogs in one write however many (unknown ones left alone); returns the ids it deleted. */
  softDeleteMany(selection: BlogSelection, at?: Date): Promise<string[]>;
  /**
   * The origin no longer lists some blogs: those it lists `except` the given
   * ids, or `only` the given ids. Returns the ids of blogs no origin lists any
   * more (unlisted now; deleted ones left out).
   */
  unlist(originId: string, which: { except: string[] } | { only: string[] }): Promise<string[]>;
  /**
   * A source is deleted: no blog lists it any more. Blogs no other origin
   * lists are, with `keep`, listed by the owner with the values the source
   * gave them (the values shown stay; their `source` becomes "manual");
   * without, their ids are returned (to be purged). Deleted blogs are never
   * returned.
   */
  detachSource(sourceId: string, keep: boolean): Promise<string[]>;
  /** Removes a blog and its items for good (source deletion "remove" choice). */
  purge(id: string): Promise<void>;
  categories(): Promise<CategoryCount[]>;
  /**
   * Blogs the scheduler should fetch: listed, not deleted, not
   * skipItemFetch, nextFetchAt due (a gone blog's is its weekly check), in
   * order of nextFetchAt (never scheduled first), then id. With `everyone`
   * ("Sync now"), every such blog whatever its nextFetchAt, except those
   * told to wait (waitUntil after `now`) and gone ones not yet due, in id
   * order. `after` continues a listing after the last blog of its previous
   * page, so a run reads each row once however many there are.
   */
  listDue(now: Date, limit: number, options?: { everyone?: boolean; after?: DueCursor }): Promise<Blog[]>;
  /**
   * Blogs never fetched here (skipItemFetch: the Microsub plugin's follows,
   * whose posts it keeps), listed and not deleted, that have a fediverse
   * handle: by id after `afterId` ("" from the start), at most `limit`. The
   * sync looks their handles up again as it does beside other blogs' fetches.
   */
  listUnfetchedWithHandle(afterId: string, limit: number): Promise<Blog[]>;
  recordFetch(id: string, record: FetchRecord): Promise<Blog | null>;
  /**
   * Takes a push notification's hint (lib/push/notified-fetches.ts): sets the
   * blog's hint budget and, with `nextFetchAt`, brings its next fetch forward
   * to that time (a later one is left as it is). Unknown blogs are ignored.
   */
  recordHint(id: string, hint: { budgetAt: Date; nextFetchAt?: Date }): Promise<void>;
  /** Sets the site icon a lookup found ("" for none) on a blog that is not deleted; false when there is no such blog. */
  setIcon(id: string, iconUrl: string): Promise<boolean>;
  /** Recomputes itemCount and lastItemAt from stored items. */
  refreshItemStats(id: string): Promise<void>;
  count(filter?: { status?: BlogStatus; sourcePrefix?: string }): Promise<number>;
  /** Counts for the owner's status and the admin: see BlogHealthCounts. */
  healthCounts(query: BlogHealthQuery): Promise<BlogHealthCounts>;
  /** What the public sees: the publicly visible blogs (as `list` with visibility "public") and the sum of their itemCount. */
  publicTotals(): Promise<{ blogs: number; items: number }>;
}

export interface ItemStore {
  /** Upsert by (blogId, uid), in one transaction. */
  upsertMany(blogId: string, items: NewItem[], fetchedAt: Date): Promise<ItemUpsertResult>;
  /**
   * What a fetch or a push stores, in one go (one transaction on SQLite):
   * the items upserted as upsertMany does, the blog's items past its newest
   * `keep` (in `list` order) deleted, and its itemCount and lastItemAt refreshed.
   */
  store(
    blogId: string,
    items: NewItem[],
    fetchedAt: Date,
    keep: number,
  ): Promise<ItemUpsertResult & { trimmed: number }>;
  /** Newest first: published desc (undated last), then id desc. Visible blogs only unless blogId given. */
  list(query: ItemListQuery): Promise<Item[]>;
  /**
   * The first `perBlog` items of each of these blogs, in the order `list`
   * gives one blog's items, by blog id (whatever the blogs' visibility);
   * blogs without items, and unknown ids, are left out. One call for a
   * whole page of blogs (the blogroll page), rather than a list per blog.
   */
  latestByBlog(blogIds: string[], perBlog: number): Promise<Map<string, Item[]>>;
  /** Delete items published (or, if undated, fetched) before `cutoff`; future-dated items stay. Returns blog ids touched and count. */
  pruneOlderThan(cutoff: Date): Promise<{ deleted: number; blogIds: string[] }>;
  deleteAll(): Promise<number>;
  count(): Promise<number>;
}

export interface SourceStore {
  list(): Promise<Source[]>;
  get(id: string): Promise<Source | null>;
  create(source: NewSource): Promise<Source>;
  update(id: string, patch: SourcePatch): Promise<Source | null>;
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
}

export interface MetaStore {
  /** Small JSON documents by key (sync status record, ...). */
  get<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
  /**
   * Take or renew a lease: succeeds if free, expired, or already held by
   * `holder`. Atomic across processes sharing the database.
   */
  acquireLease(name: string, holder: string, ttlMs: number, now?: Date): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
}

/** How a blog pushes: a WebSub hub, or an rssCloud server. */
export type PushKind = "websub" | "rsscloud";

/**
 * Where a subscription stands. `requested`: asked, the hub has not verified
 * yet; `active`: verified (WebSub) or registered (rssCloud), until
 * `expiresAt`; `denied`: the hub refused (the blog is polled); `failed`: the
 * request failed (retried later); `unsubscribing`: asked to end, awaiting
 * the hub's verification.
 */
export type PushState = "requested" | "active" | "denied" | "failed" | "unsubscribing";

export interface PushSubscription {
  id: string;
  blogId: string;
  kind: PushKind;
  /** The WebSub hub, or the rssCloud server's registration endpoint. */
  hub: string;
  /** The topic subscribed to (WebSub), or the feed URL registered (rssCloud). */
  topic: string;
  /** The random last path segment of this subscription's callback: only the hub knows it. */
  callbackToken: string;
  /** hub.secret sent with the request (WebSub), null for rssCloud. */
  secret: string | null;
  state: PushState;
  /** Seconds of lease the hub granted (or we asked for, until it answers). */
  leaseSeconds: number | null;
  /** When the lease or registration ends; null before it is active. */
  expiresAt: Date | null;
  /** The hub's reason or the request's failure, for the owner. */
  lastError: string | null;
  requestedAt: Date | null;
  verifiedAt: Date | null;
  lastNotifiedAt: Date | null;
  /** Set when a safety poll found posts the push never brought: the push is not trusted (the blog is scheduled) until then. */
  distrustedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Push subscriptions, one per blog and kind. */
export interface PushStore {
  /** Inserts or replaces the subscription with this id (one per blogId + kind: another one of the pair is replaced). */
  put(subscription: PushSubscription): Promise<void>;
  get(id: string): Promise<PushSubscription | null>;
  getByToken(callbackToken: string): Promise<PushSubscription | null>;
  listByBlog(blogId: string): Promise<PushSubscription[]>;
  /** Subscriptions of one kind whose topic is exactly this URL. */
  listByTopic(kind: PushKind, topic: string): Promise<PushSubscription[]>;
  list(): Promise<PushSubscription[]>;
  /** Sets when a verified notification last came (only that field: a verification in flight is not undone). */
  noteNotified(id: string, at: Date): Promise<void>;
  delete(id: string): Promise<boolean>;
}

/** Where a blog's own blogroll was found (lib/network). */
export type BlogrollVia = "link-header" | "head" | "feed" | "well-known";

/** One blog another blog's blogroll lists. */
export interface Recommendation {
  feedUrl: string;
  siteUrl: string | null;
  title: string | null;
  description: string | null;
}

/** What is known of one followed blog's own blogroll. */
export interface BlogBlogroll {
  blogId: string;
  /** The blogroll's address; null when the blog announces none. */
  url: string | null;
  via: BlogrollVia | null;
  /** When it was last looked for or read. */
  checkedAt: Date;
  etag: string | null;
  lastModified: string | null;
  /** Blogs it listed when last read (its kept entries may be fewer: see MAX_RECOMMENDATIONS_PER_BLOG). */
  count: number;
}

/** A feed recommended by several followed blogs and not followed by the owner by feed address. */
export interface SuggestionCandidate {
  /** Each recommending blog's own outline of it, by blog id in ascending order (deleted blogs included: callers filter). */
  outlines: Array<Recommendation & { blogId: string }>;
}

/** Entries kept of one blog's blogroll: a stranger's list of 20 000 costs no more than this. */
export const MAX_RECOMMENDATIONS_PER_BLOG = 1000;

export interface RecommendationStore {
  getBlogroll(blogId: string): Promise<BlogBlogroll | null>;
  /** Records a look at a blog's blogroll; `entries`, when given, replace what it listed (capped, repeats by feed key dropped). */
  saveBlogroll(record: BlogBlogroll, entries?: Recommendation[]): Promise<void>;
  /** What a blog's blogroll listed when last read, in its order. */
  entries(blogId: string): Promise<Recommendation[]>;
  /**
   * Feeds listed by at least `minRecommenders` blogroll records, most listed
   * first (then by feed key), leaving out feeds a blog of the owner's has
   * (any status, by normalised feed address) and dismissed ones.
   */
  candidates(query: { minRecommenders: number; limit: number }): Promise<SuggestionCandidate[]>;
  /** Remembers that the owner does not want this feed suggested again. */
  dismiss(feedUrl: string, at?: Date): Promise<void>;
}

/** A post as a live event carries it. */
export type LivePost = Omit<Item, "content">;

/** What a blog event says happened to a blog, as the public sees it. */
export type BlogChange = "added" | "updated" | "removed";

/**
 * One entry of the live event log. The adapters write it themselves, where
 * posts are stored and where blogs change (SQLite in the same transaction, by
 * triggers; MongoDB right after the write), so every process sharing the
 * database reads the same log. `blog` is the blog as the public sees it now,
 * null when it is not publicly visible (or gone).
 */
export type LiveEvent =
  | {
      kind: "post";
      /** Position in the log: every event gets a larger one than any before it. */
      seq: number;
      at: Date;
      blogId: string;
      /** The stored post (without its content, which events never carry), null once it is no longer stored. */
      item: LivePost | null;
      blog: Blog | null;
    }
  | { kind: "blog"; seq: number; at: Date; blogId: string; change: BlogChange; blog: Blog | null };

/** The ends of the live event log. */
export interface LiveLogBounds {
  /** The largest seq ever given (0 before the first event), kept when the log is trimmed. */
  newest: number;
  /** The smallest seq still kept; null when the log is empty. */
  oldest: number | null;
}

/**
 * The live event log (see LiveEvent). A post event is recorded when a post is
 * stored that is newer than any its blog showed before (so a blog's first
 * fetch, a re-fetch after "Clear items" or an old post seen late are not news);
 * a blog event when a blog becomes publicly visible (`added`), stops being so
 * (`removed`), or, visible, changes a field the page shows or gets its first
 * posts (`updated`).
 */
export interface LiveEventStore {
  /** Events with a seq above `after`, in seq order, at most `limit`. */
  after(after: number, limit: number): Promise<LiveEvent[]>;
  bounds(): Promise<LiveLogBounds>;
  /** Forgets every event up to the newest one recorded before `cutoff`; returns how many went. */
  trimBefore(cutoff: Date): Promise<number>;
}

export interface Storage {
  readonly kind: "sqlite" | "mongodb";
  readonly blogs: BlogStore;
  readonly items: ItemStore;
  readonly sources: SourceStore;
  readonly meta: MetaStore;
  readonly push: PushStore;
  readonly recommendations: RecommendationStore;
  readonly events: LiveEventStore;
  /** Create tables/indexes, run migrations. Idempotent. */
  init(): Promise<void>;
  close(): Promise<void>;
}

/** Raised by adapters for anything the database refused. */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StorageError";
  }
}
