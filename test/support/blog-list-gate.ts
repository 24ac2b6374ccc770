import type { BlogStore } from "../../lib/storage/types.js";

/**
 * A gate the reads of the public blog list (the blogroll page's rebuilds)
 * wait at while it is closed; counts the full rebuilds it saw begin (reads
 * from the list's start).
 */
export function gateBlogList(blogs: BlogStore) {
  const list = blogs.list.bind(blogs);
  let open: Promise<void> = Promise.resolve();
  let release = () => {};
  const gate = {
    /** Reads of the list from its start (offset 0), one per full rebuild of the page's data. */
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
  return gate;
}
