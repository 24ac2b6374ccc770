import { addBlog, addItems, item } from "../support/seed.js";
import type { TestServer } from "../support/server.js";

/**
 * Seeds a store so that every admin page has something to show (a failing blog
 * and a fine one, a source, a suggestion two blogs recommend) and returns the
 * path of each page. The page checkers (labels and headings, axe-core) walk the
 * same list, so a page added here is checked by both.
 */
export async function seedEveryAdminPage(server: TestServer): Promise<string[]> {
  const mount = server.plugin.mountPath;
  const failing = await addBlog(server.storage, { title: "Checked", category: "Tech" });
  await addItems(server.storage, failing.id, [item("a", new Date())]);
  await server.storage.blogs.recordFetch(failing.id, {
    at: new Date(),
    status: "error",
    error: "HTTP 500",
    nextFetchAt: null,
    failureCount: 1,
  });
  const fine = await addBlog(server.storage, { title: "Fine", category: "Tech", siteUrl: "https://fine.example/" });
  await addItems(server.storage, fine.id, [item("b", new Date())]);
  const source = await server.storage.sources.create({
    type: "opml_url",
    name: "List",
    settings: { url: "https://lists.example/a.opml" },
  });
  const second = (
    await server.storage.blogs.upsertFromSource({
      feedUrl: "https://second.example/feed.xml",
      title: "Second",
      source: "manual",
    })
  ).blog;
  for (const recommender of [failing, second]) {
    await server.storage.recommendations.saveBlogroll(
      {
        blogId: recommender.id,
        url: "https://list.example/b.opml",
        via: "well-known",
        checkedAt: new Date(),
        etag: null,
        lastModified: null,
        count: 1,
      },
      [
        {
          feedUrl: "https://suggested.example/feed.xml",
          siteUrl: "https://suggested.example/",
          title: "Suggested",
          description: "A blog",
        },
      ],
    );
  }
  return [
    mount,
    `${mount}/clear-resync`,
    `${mount}/sources`,
    `${mount}/sources/new`,
    ...["opml_url", "opml_file", "feedland", "blogroll"].map((type) => `${mount}/sources/new?type=${type}`),
    `${mount}/sources/${source.id}/edit`,
    `${mount}/sources/${source.id}/delete`,
    `${mount}/blogs`,
    `${mount}/blogs?q=check&status=error`,
    `${mount}/blogs/new`,
    `${mount}/blogs/${failing.id}`,
    `${mount}/blogs/${fine.id}`,
    `${mount}/blogs/${failing.id}/delete`,
    `${mount}/blogs/ffffffffffffffffffffffff`,
    `${mount}/suggestions`,
  ];
}
