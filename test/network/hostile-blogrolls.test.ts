import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BLOGROLL_MAX_OUTLINES, createBlogrollLookups } from "../../lib/network/blogroll-lookups.js";
import { MAX_INCLUDED_DOCUMENTS } from "../../lib/network/opml-tree.js";
import { HostLimiter } from "../../lib/http/host-limiter.js";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { MAX_RECOMMENDATIONS_PER_BLOG, type Blog } from "../../lib/storage/types.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { addBlog, openTempStorage, testOptions, type TempStorage } from "../sync/harness.js";
import { feedOutline, rssOf } from "./web.js";

after(() => closeParsePool());

const outlines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) =>
    feedOutline(`${prefix}${index}`, `https://${prefix}${index}.example/feed`),
  ).join("");
const opml = (body: string) => `<?xml version="1.0"?><opml version="2.0"><head/><body>${body}</body></opml>`;

/**
 * Blogs whose own blogrolls are hostile: huge, deeply nested, thousands of
 * outlines, an endless chain of includes, not OPML at all. Each costs a
 * bounded number of requests and bytes, and nothing of it is public.
 */
describe("hostile blogrolls cost bounded requests and memory (SQLite, loopback)", () => {
  let site: FixtureServer;
  let temp: TempStorage;
  const blogs = new Map<string, Blog>();
  const kinds = ["huge", "deep", "many", "chain", "html", "slowloris-free"] as const;

  before(async () => {
    site = await startFixtureServer();
    temp = await openTempStorage();
    const serve = (path: string, body: string | (() => string), type = "text/x-opml") =>
      site.route(
        path,
        (_request, response) =>
          void response.writeHead(200, { "content-type": type }).end(typeof body === "function" ? body() : body),
      );
    serve("/huge.opml", opml(outlines(40_000, "h")));
    serve(
      "/deep.opml",
      opml(
        "<outline text='a'>".repeat(5000) +
          feedOutline("deep", "https://deep.example/feed") +
          "</outline>".repeat(5000),
      ),
    );
    serve("/many.opml", opml(outlines(BLOGROLL_MAX_OUTLINES - 10, "m")));
    for (let index = 0; index < 60; index++)
      serve(
        `/chain-${index}.opml`,
        opml(
          feedOutline(`c${index}`, `https://c${index}.example/feed`) +
            `<outline type="include" url="${site.url}/chain-${index + 1}.opml"/>`,
        ),
      );
    serve("/chain.opml", opml(`<outline type="include" url="${site.url}/chain-0.opml"/>`));
    serve("/html.opml", "<!doctype html><title>my blogroll</title><p>not OPML", "text/html");
    serve("/slowloris-free.opml", opml(outlines(3, "s")));
    for (const kind of kinds) {
      serve(
        `/${kind}/feed.xml`,
        rssOf(kind, `${site.url}/${kind}/`, `<source:blogroll>${site.url}/${kind}.opml</source:blogroll>`),
        "application/rss+xml",
      );
      blogs.set(kind, await addBlog(temp.storage, `${site.url}/${kind}/feed.xml`, kind));
    }
  });
  after(async () => {
    await temp.cleanup();
    await site.close();
  });

  it("a sync reads what fits and drops what does not, within the caps", async () => {
    const stats = await createSyncRunner({ options: testOptions({ concurrency: 4 }) })(temp.storage, {
      signal: new AbortController().signal,
      progress: () => undefined,
    });
    assert.equal(stats.blogs.success, kinds.length);
    const entries = async (kind: string) => (await temp.storage.recommendations.entries(blogs.get(kind)!.id)).length;
    assert.equal(await entries("huge"), 0, "past the size cap: nothing read");
    assert.equal(await entries("deep"), 0, "past the nesting limit: nothing read");
    assert.equal(
      await entries("many"),
      MAX_RECOMMENDATIONS_PER_BLOG,
      "thousands of outlines: the first ones kept, capped",
    );
    assert.equal(
      (await temp.storage.recommendations.getBlogroll(blogs.get("many")!.id))?.count,
      BLOGROLL_MAX_OUTLINES - 10,
    );
    assert.equal(await entries("chain"), 3, "includes are followed three levels deep, no further");
    assert.equal(site.hits("/chain-3.opml"), 0);
    assert.ok(
      [...Array(60).keys()].reduce((sum, index) => sum + site.hits(`/chain-${index}.opml`), 0) <=
        MAX_INCLUDED_DOCUMENTS,
    );
    assert.equal(await entries("html"), 0);
    assert.equal(await entries("slowloris-free"), 3);
    assert.ok((stats.blogrolls?.requests ?? 0) <= kinds.length + 3, `${stats.blogrolls?.requests} requests`);
    const publicBlogs = await temp.storage.blogs.list({ visibility: "public", limit: 100, offset: 0 });
    assert.equal(publicBlogs.total, kinds.length, "nothing from the blogrolls became a blog");
  });

  it("the run's request budget holds: what does not fit waits for the next run", async () => {
    for (const blog of blogs.values())
      await temp.storage.recommendations.saveBlogroll(
        { blogId: blog.id, url: null, via: null, checkedAt: new Date(0), etag: null, lastModified: null, count: 0 },
        [],
      );
    site.reset();
    const lookups = createBlogrollLookups({
      storage: temp.storage,
      options: testOptions(),
      limiter: new HostLimiter(2),
      lane: new HostLimiter(4),
      knownPage: () => null,
      signal: new AbortController().signal,
      now: () => new Date(),
      log: () => undefined,
      requestBudget: 2,
    });
    for (const kind of kinds) lookups.want(blogs.get(kind)!, `${site.url}/${kind}.opml`);
    const stats = await lookups.settled();
    assert.equal(stats.requests, 2);
    assert.equal(stats.deferred, kinds.length - 2);
    const total = kinds.reduce((sum, kind) => sum + site.hits(`/${kind}.opml`), 0) + site.hits("/chain-0.opml");
    assert.equal(total, 2);
  });

  it("once the run's budget is spent, the blogs that follow wait unread: no storage read for each", async () => {
    for (const blog of blogs.values())
      await temp.storage.recommendations.saveBlogroll(
        { blogId: blog.id, url: null, via: null, checkedAt: new Date(0), etag: null, lastModified: null, count: 0 },
        [],
      );
    /** Calls to the stores a look reads (its blogroll record, the site's page record, the well-known miss). */
    const reads: string[] = [];
    const counted = <T extends object>(name: string, store: T): T =>
      new Proxy(store, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => (reads.push(`${name}.${String(key)}`), value.apply(target, args));
        },
      });
    const storage = {
      ...temp.storage,
      recommendations: counted("recommendations", temp.storage.recommendations),
      meta: counted("meta", temp.storage.meta),
    };
    const lookups = createBlogrollLookups({
      storage,
      options: testOptions(),
      limiter: new HostLimiter(2),
      lane: new HostLimiter(4),
      knownPage: () => null,
      signal: new AbortController().signal,
      now: () => new Date(),
      log: () => undefined,
      requestBudget: 1,
    });
    lookups.want(blogs.get("many")!, `${site.url}/many.opml`);
    await lookups.settled();
    reads.length = 0;
    // The sync asks for each blog as its feed is read: these come after the budget is spent.
    for (const kind of kinds.filter((kind) => kind !== "many"))
      lookups.want(blogs.get(kind)!, `${site.url}/${kind}.opml`);
    const stats = await lookups.settled();
    assert.deepEqual(reads, []);
    assert.equal(stats.requests, 1);
    assert.equal(stats.deferred, kinds.length - 1);
    // A blog whose feed names the list already read this run costs no request: still taken.
    lookups.want(blogs.get("html")!, `${site.url}/many.opml`);
    assert.equal((await lookups.settled()).deferred, kinds.length - 1);
    assert.equal((await temp.storage.recommendations.getBlogroll(blogs.get("html")!.id))?.url, `${site.url}/many.opml`);
  });
});
