import type { BlogStore } from "../../lib/storage/types.js";

/**
 * A gate the blogroll page's reads of blogs wait at while it is closed: a
 * full read of the public blog list, and a refresh's read of the blogs a
 * change touched (`getMany`). Counts the rebuilds of the page's data it saw
 * begin (full reads from the list's start, and refreshes).
 */
export function gateBlogList(blogs: BlogStore) {
  const list = blogs.list.bind(blogs);
  const getMany = blogs.getMany.bind(blogs);
  let open: Promise<void> = Promise.resolve();
  let release = () => {};
  const gate = {
    /** Reads of the data begun: a full read (the list from its start) or a refresh (the touched blogs). */
    rebuilds: 0,
    close() {
      open = new Promise((resolve) => (release = resolve));
    },
    open: () => release(),
  };
  blogs.list = async (query) => {
    if ((query.offset ?? 0) === 0 && query.visibility === "public") gate.rebuilds++;
    await open;
    return list(query);
  };
  blogs.getMany = async (ids) => {
    gate.rebuilds++;
    await open;
    return getMany(ids);
  };
  return gate;
}
