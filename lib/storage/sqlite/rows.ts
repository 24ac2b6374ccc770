import type {
  Blog,
  BlogOrigin,
  BlogStatus,
  EditableBlogField,
  FeedType,
  FeedValues,
  ImportCounts,
  Item,
  ListedValues,
  PublicBlog,
  Source,
  SourceType,
} from "../types.js";
import { StorageError } from "../types.js";

/*
 * Rows as SQLite holds them, and their mapping to port types. Dates are
 * fixed-width ISO-8601 UTC text (24 characters), so text order is date
 * order and MAX()/"<" work on them; booleans are 0/1; arrays are JSON text.
 */

/** A date as stored: `toISOString()`, refused when it would not sort as a date. */
export function toIso(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new StorageError("Invalid date");
  const iso = date.toISOString();
  // Years outside 0000-9999 get a sign and 6 digits, which would break text order.
  if (iso.length !== 24) throw new StorageError(`Date out of the storable range: ${iso}`);
  return iso;
}

export const toIsoOrNull = (date: Date | null | undefined): string | null => (date ? toIso(date) : null);
export const fromIso = (text: string | null): Date | null => (text === null ? null : new Date(text));

/** The lower-cased title kept beside it, so title order ignores case the way JavaScript folds it. */
export const titleSortKey = (title: string): string => title.toLowerCase();

export interface BlogRow {
  id: string;
  title: string;
  title_sort: string;
  description: string | null;
  feed_url: string;
  feed_url_key: string;
  site_url: string | null;
  feed_type: string | null;
  category: string | null;
  tags: string;
  photo: string | null;
  author: string | null;
  status: string;
  item_count: number;
  pinned: number;
  hidden: number;
  notes: string | null;
  source: string | null;
  origins: string;
  feed_values: string;
  microsub_feed_id: string | null;
  microsub_channel_id: string | null;
  microsub_channel_name: string | null;
  skip_item_fetch: number;
  last_fetch_at: string | null;
  last_item_at: string | null;
  last_error: string | null;
  next_fetch_at: string | null;
  failure_count: number;
  failing_since: string | null;
  dead_end_since: string | null;
  recent_posts: string;
  last_post_at: string | null;
  fetch_interval: number | null;
  fetch_reason: string | null;
  wait_until: string | null;
  hint_budget_at: string | null;
  moved_from: string | null;
  moved_at: string | null;
  relationship: string;
  note: string | null;
  fediverse: string | null;
  fediverse_url: string | null;
  etag: string | null;
  last_modified: string | null;
  icon_url: string | null;
  owner_edited: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Origins as stored: JSON with ISO dates, in listing order. */
interface OriginJson {
  id: string;
  kind: string | null;
  since: string;
  values: ListedValues;
}

const originsFromJson = (text: string): BlogOrigin[] =>
  (JSON.parse(text) as OriginJson[]).map((origin) => ({
    id: origin.id,
    kind: origin.kind,
    since: new Date(origin.since),
    values: origin.values,
  }));

/** The origins column's text; `[]` exactly when none (the listed-blog conditions compare with it). */
export const originsToJson = (origins: BlogOrigin[]): string =>
  JSON.stringify(
    origins.map((origin): OriginJson => ({
      id: origin.id,
      kind: origin.kind,
      since: toIso(origin.since),
      values: origin.values,
    })),
  );

/** The columns of a blog's public fields (PUBLIC_BLOG_FIELDS), for the reads that need no more. */
export const PUBLIC_BLOG_COLUMNS = [
  "id",
  "title",
  "description",
  "feed_url",
  "site_url",
  "feed_type",
  "category",
  "tags",
  "photo",
  "icon_url",
  "author",
  "status",
  "item_count",
  "pinned",
  "last_fetch_at",
  "last_item_at",
  "source",
  "microsub_channel_name",
  "relationship",
  "note",
  "fediverse",
  "fediverse_url",
] as const satisfies readonly (keyof BlogRow)[];

export type PublicBlogRow = Pick<BlogRow, (typeof PUBLIC_BLOG_COLUMNS)[number]>;

export function rowToPublicBlog(row: PublicBlogRow): PublicBlog {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    feedUrl: row.feed_url,
    siteUrl: row.site_url,
    feedType: row.feed_type as FeedType | null,
    category: row.category,
    tags: JSON.parse(row.tags) as string[],
    photo: row.photo,
    iconUrl: row.icon_url,
    author: row.author,
    status: row.status as BlogStatus,
    itemCount: row.item_count,
    pinned: row.pinned === 1,
    lastFetchAt: fromIso(row.last_fetch_at),
    lastItemAt: fromIso(row.last_item_at),
    source: row.source,
    microsubChannelName: row.microsub_channel_name,
    relationship: JSON.parse(row.relationship) as string[],
    note: row.note,
    fediverse: row.fediverse,
    fediverseUrl: row.fediverse_url,
  };
}

export function rowToBlog(row: BlogRow): Blog {
  // Every field written out, not spread from rowToPublicBlog: a Blog built by spreading another
  // object weighed on the main thread's heap in a sync (bench/scale.ts, BENCHMARKS.md).
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    feedUrl: row.feed_url,
    siteUrl: row.site_url,
    feedType: row.feed_type as FeedType | null,
    category: row.category,
    tags: JSON.parse(row.tags) as string[],
    photo: row.photo,
    iconUrl: row.icon_url,
    author: row.author,
    status: row.status as BlogStatus,
    itemCount: row.item_count,
    pinned: row.pinned === 1,
    lastFetchAt: fromIso(row.last_fetch_at),
    lastItemAt: fromIso(row.last_item_at),
    source: row.source,
    microsubChannelName: row.microsub_channel_name,
    relationship: JSON.parse(row.relationship) as string[],
    note: row.note,
    fediverse: row.fediverse,
    fediverseUrl: row.fediverse_url,
    hidden: row.hidden === 1,
    notes: row.notes,
    origins: originsFromJson(row.origins),
    feedValues: JSON.parse(row.feed_values) as FeedValues,
    microsubFeedId: row.microsub_feed_id,
    microsubChannelId: row.microsub_channel_id,
    skipItemFetch: row.skip_item_fetch === 1,
    lastError: row.last_error,
    nextFetchAt: fromIso(row.next_fetch_at),
    failureCount: row.failure_count,
    failingSince: fromIso(row.failing_since),
    deadEndSince: fromIso(row.dead_end_since),
    recentPosts: (JSON.parse(row.recent_posts) as string[]).map((text) => new Date(text)),
    lastPostAt: fromIso(row.last_post_at),
    fetchInterval: row.fetch_interval,
    fetchReason: row.fetch_reason,
    waitUntil: fromIso(row.wait_until),
    hintBudgetAt: fromIso(row.hint_budget_at),
    movedFrom: row.moved_from,
    movedAt: fromIso(row.moved_at),
    etag: row.etag,
    lastModified: row.last_modified,
    ownerEdited: JSON.parse(row.owner_edited) as EditableBlogField[],
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deletedAt: fromIso(row.deleted_at),
  };
}

/** Named parameters for writing every column of a blog row. */
export function blogToParams(blog: Blog, feedUrlKey: string): BlogRow {
  return {
    id: blog.id,
    title: blog.title,
    title_sort: titleSortKey(blog.title),
    description: blog.description,
    feed_url: blog.feedUrl,
    feed_url_key: feedUrlKey,
    site_url: blog.siteUrl,
    feed_type: blog.feedType,
    category: blog.category,
    tags: JSON.stringify(blog.tags),
    photo: blog.photo,
    author: blog.author,
    status: blog.status,
    item_count: blog.itemCount,
    pinned: blog.pinned ? 1 : 0,
    hidden: blog.hidden ? 1 : 0,
    notes: blog.notes,
    source: blog.source,
    origins: originsToJson(blog.origins),
    feed_values: JSON.stringify(blog.feedValues),
    microsub_feed_id: blog.microsubFeedId,
    microsub_channel_id: blog.microsubChannelId,
    microsub_channel_name: blog.microsubChannelName,
    skip_item_fetch: blog.skipItemFetch ? 1 : 0,
    last_fetch_at: toIsoOrNull(blog.lastFetchAt),
    last_item_at: toIsoOrNull(blog.lastItemAt),
    last_error: blog.lastError,
    next_fetch_at: toIsoOrNull(blog.nextFetchAt),
    failure_count: blog.failureCount,
    failing_since: toIsoOrNull(blog.failingSince),
    dead_end_since: toIsoOrNull(blog.deadEndSince),
    recent_posts: JSON.stringify(blog.recentPosts.map(toIso)),
    last_post_at: toIsoOrNull(blog.lastPostAt),
    fetch_interval: blog.fetchInterval === null ? null : Math.round(blog.fetchInterval),
    fetch_reason: blog.fetchReason,
    wait_until: toIsoOrNull(blog.waitUntil),
    hint_budget_at: toIsoOrNull(blog.hintBudgetAt),
    moved_from: blog.movedFrom,
    moved_at: toIsoOrNull(blog.movedAt),
    relationship: JSON.stringify(blog.relationship),
    note: blog.note,
    fediverse: blog.fediverse,
    fediverse_url: blog.fediverseUrl,
    etag: blog.etag,
    last_modified: blog.lastModified,
    icon_url: blog.iconUrl,
    owner_edited: JSON.stringify(blog.ownerEdited),
    created_at: toIso(blog.createdAt),
    updated_at: toIso(blog.updatedAt),
    deleted_at: toIsoOrNull(blog.deletedAt),
  };
}

/** The blog columns in table order, for INSERT and UPDATE statements. */
export const BLOG_COLUMNS: readonly (keyof BlogRow)[] = [
  "id",
  "title",
  "title_sort",
  "description",
  "feed_url",
  "feed_url_key",
  "site_url",
  "feed_type",
  "category",
  "tags",
  "photo",
  "author",
  "status",
  "item_count",
  "pinned",
  "hidden",
  "notes",
  "source",
  "origins",
  "feed_values",
  "microsub_feed_id",
  "microsub_channel_id",
  "microsub_channel_name",
  "skip_item_fetch",
  "last_fetch_at",
  "last_item_at",
  "last_error",
  "next_fetch_at",
  "failure_count",
  "etag",
  "last_modified",
  "icon_url",
  "owner_edited",
  "created_at",
  "updated_at",
  "deleted_at",
  "failing_since",
  "recent_posts",
  "last_post_at",
  "fetch_interval",
  "fetch_reason",
  "wait_until",
  "moved_from",
  "moved_at",
  "relationship",
  "note",
  "fediverse",
  "fediverse_url",
  "dead_end_since",
  "hint_budget_at",
];

export interface ItemRow {
  id: string;
  blog_id: string;
  uid: string;
  url: string | null;
  title: string | null;
  summary: string | null;
  content: string | null;
  published: string | null;
  author: string | null;
  photo: string | null;
  categories: string;
  fetched_at: string;
}

/** An item's columns but its content, for the reads that never send it (ItemListQuery `content: false`). */
export const ITEM_COLUMNS_BUT_CONTENT = [
  "id",
  "blog_id",
  "uid",
  "url",
  "title",
  "summary",
  "published",
  "author",
  "photo",
  "categories",
  "fetched_at",
] as const satisfies readonly (keyof ItemRow)[];

/** An items query (`SELECT i.* …`) reading every column, or all but the content. */
export const itemColumnsRead = (sql: string, content: boolean): string =>
  content ? sql : sql.replace(/^SELECT i\.\* /, `SELECT ${ITEM_COLUMNS_BUT_CONTENT.map((c) => `i.${c}`).join(", ")} `);

/** A row read with or without its content (then null). */
export function rowToItem(row: Omit<ItemRow, "content"> & { content?: string | null }): Item {
  return {
    id: row.id,
    blogId: row.blog_id,
    uid: row.uid,
    url: row.url,
    title: row.title,
    summary: row.summary,
    content: row.content ?? null,
    published: fromIso(row.published),
    author: row.author,
    photo: row.photo,
    categories: JSON.parse(row.categories) as string[],
    fetchedAt: new Date(row.fetched_at),
  };
}

export interface SourceRow {
  id: string;
  type: string;
  name: string;
  enabled: number;
  settings: string;
  status: string;
  last_error: string | null;
  last_sync_at: string | null;
  last_import: string | null;
  etag: string | null;
  last_modified: string | null;
  created_at: string;
  updated_at: string;
}

export function rowToSource(row: SourceRow): Source {
  return {
    id: row.id,
    type: row.type as SourceType,
    name: row.name,
    enabled: row.enabled === 1,
    settings: JSON.parse(row.settings) as Record<string, string>,
    status: row.status as Source["status"],
    lastError: row.last_error,
    lastSyncAt: fromIso(row.last_sync_at),
    lastImport: row.last_import === null ? null : (JSON.parse(row.last_import) as ImportCounts),
    etag: row.etag,
    lastModified: row.last_modified,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function sourceToParams(source: Source): SourceRow {
  return {
    id: source.id,
    type: source.type,
    name: source.name,
    enabled: source.enabled ? 1 : 0,
    settings: JSON.stringify(source.settings),
    status: source.status,
    last_error: source.lastError,
    last_sync_at: toIsoOrNull(source.lastSyncAt),
    last_import: source.lastImport === null ? null : JSON.stringify(source.lastImport),
    etag: source.etag,
    last_modified: source.lastModified,
    created_at: toIso(source.createdAt),
    updated_at: toIso(source.updatedAt),
  };
}
