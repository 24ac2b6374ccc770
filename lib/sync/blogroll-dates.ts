import { createHash } from "node:crypto";
import type { Blog, Storage } from "../storage/types.js";
import { SECOND } from "../time/durations.js";
import { wholeSecond } from "../time/whole-second.js";

/** When the public blogroll began and last changed, as the OPML export's head says. */
export interface BlogrollDates {
  created: Date;
  modified: Date;
}

interface DatesRecord {
  fingerprint: string;
  created: string;
  modified: string;
}

const META_KEY = "opml:blogroll";
const PAGE = 1000;
/** The OPML import's outline cap: a blogroll beyond it is not fingerprinted further. */
const MAX_BLOGS = 20_000;

/** What the exports and the blogroll page say about a blog: a change to any of these changes the blogroll's `modified` date. */
function exportedFields(blog: Blog): unknown[] {
  // What the owner says about a blog joins only when said, so a blogroll without any keeps its dates.
  const said =
    blog.note || blog.relationship.length > 0 || blog.fediverse
      ? [blog.note, blog.relationship, blog.fediverse, blog.fediverseUrl]
      : [];
  return [blog.id, blog.title, blog.feedUrl, blog.siteUrl, blog.description, blog.category, blog.pinned, ...said];
}

/**
 * Whether a write may have changed the exported blogroll: a field it shows,
 * or whether the blog shows at all (status, hidden). Sync runs record the
 * dates only then, rather than digesting every blog after each run.
 */
export function changesBlogroll(before: Blog, after: Blog | null): boolean {
  if (!after) return false;
  return (
    before.status !== after.status ||
    before.hidden !== after.hidden ||
    JSON.stringify(exportedFields(before)) !== JSON.stringify(exportedFields(after))
  );
}

/** A digest of what the exports and the blogroll page say about every visible blog, and the oldest blog's creation. */
async function fingerprint(storage: Storage): Promise<{ digest: string; oldest: Date | null }> {
  const hash = createHash("sha1");
  let oldest: Date | null = null;
  for (let offset = 0; offset < MAX_BLOGS; offset += PAGE) {
    const { items } = await storage.blogs.list({ visibility: "public", sort: "title", limit: PAGE, offset });
    for (const blog of items) {
      hash.update(JSON.stringify(exportedFields(blog)));
      if (!oldest || blog.createdAt < oldest) oldest = blog.createdAt;
    }
    if (items.length < PAGE) break;
  }
  return { digest: hash.digest("base64url"), oldest };
}

const validDate = (value: unknown) =>
  typeof value === "string" && Number.isFinite(Date.parse(value)) ? new Date(value) : null;

/**
 * The blogroll's dates, kept in the meta store with a digest of its content:
 * `modified` moves to `now` only when the digest changes (a blog added,
 * removed, hidden, renamed, moved to another category, ...), so the export
 * is the same document, with the same ETag, until the blogroll changes.
 * `created` is the oldest visible blog's creation when first recorded.
 */
export async function recordBlogrollDates(storage: Storage, now = new Date()): Promise<BlogrollDates> {
  const { digest, oldest } = await fingerprint(storage);
  const kept = await storage.meta.get<DatesRecord>(META_KEY);
  const keptCreated = validDate(kept?.created);
  const keptModified = validDate(kept?.modified);
  if (kept?.fingerprint === digest && keptCreated && keptModified)
    return { created: keptCreated, modified: keptModified };
  const created = new Date(wholeSecond((keptCreated ?? oldest ?? now).getTime()));
  // Forward by at least a second, so If-Modified-Since never mistakes a newer list for the one it has.
  const modified = new Date(Math.max(wholeSecond(now.getTime()), (keptModified?.getTime() ?? 0) + SECOND));
  await storage.meta.set(META_KEY, {
    fingerprint: digest,
    created: created.toISOString(),
    modified: modified.toISOString(),
  } satisfies DatesRecord);
  return { created, modified };
}
