/** Longest values of the owner's blog fields (edit form, new blog, a followed suggestion's category), in characters. */
export const LIMITS = { title: 200, category: 100, tags: 20, tag: 50, notes: 2000 } as const;
