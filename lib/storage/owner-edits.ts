import { isHostTitle } from "../url/normalise.js";
import { withOwnerEdits } from "./provenance.js";
import { EDITABLE_BLOG_FIELDS, type Blog, type BlogEdit, type EditableBlogField } from "./types.js";

/* What an admin edit changes on a blog, for both adapters. */

/**
 * An admin edit: fields become owner-edited; a status re-enables fetching
 * from scratch. A title that is only the host name is the placeholder, never
 * the owner's: it is stored untyped, so the feed's own title replaces it.
 */
export function applyEdit(stored: Blog, edit: BlogEdit, now: Date): Blog {
  const blog: Blog = { ...stored, ownerEdited: [...stored.ownerEdited] };
  const edited: EditableBlogField[] = [];
  for (const field of EDITABLE_BLOG_FIELDS) {
    const value = edit[field];
    if (value === undefined) continue;
    (blog as unknown as Record<string, unknown>)[field] = Array.isArray(value) ? [...value] : value;
    edited.push(field);
    if (!blog.ownerEdited.includes(field)) blog.ownerEdited.push(field);
  }
  // The profile page belongs to the handle: a new handle brings its own, or none.
  if (edit.fediverse !== undefined) blog.fediverseUrl = edit.fediverse === null ? null : (edit.fediverseUrl ?? null);
  if (edit.title !== undefined && isHostTitle(edit.title, blog.feedUrl, blog.movedFrom)) {
    blog.ownerEdited = blog.ownerEdited.filter((field) => field !== "title");
  }
  if (edit.status) {
    blog.status = edit.status;
    blog.failureCount = 0;
    blog.deadEndSince = null;
    blog.nextFetchAt = null;
  }
  return { ...withOwnerEdits(blog, edited, now), updatedAt: now };
}
