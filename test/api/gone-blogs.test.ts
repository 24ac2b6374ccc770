/**
 * Dead blogs are not recommended: a blog whose feed answers 410 Gone leaves
 * every public surface (the blogs list and its total, a blog's page, items,
 * categories, the OPML exports, the well-known files, the rivers, the
 * blogroll page and the status counts) while the admin keeps showing it with its health; the
 * owner's Refresh brings it back once the feed answers again. A blog failing
 * for another reason stays listed with its status. The add form refuses a
 * site whose advertised feeds all fail, saying what it tried and got.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { rss, startFeedServer, type FeedServer } from "../sync/feed-server.js";
import { ADMIN_TOKEN, describeBackend, httpBackends, startTestServer, type TestServer } from "../support/server.js";
import { HOUR } from "../../lib/time/durations.js";

after(() => closeParsePool());

const recent = (hours: number) => new Date(Date.now() - hours * HOUR);

for (const backend of httpBackends()) {
  describe(`gone blogs leave every public surface (${describeBackend(backend)})`, () => {
    let feeds: FeedServer;
    let origin: string;
    let server: TestServer;
    const answers = new Map<string, number>();
    const ids: Record<string, string> = {};
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const mount = () => server.plugin.mountPath;

    /** A feed at /<name>.xml answering what `answers` says (200 with two posts by default). */
    const serve = (name: string) =>
      feeds.route(`/${name}.xml`, (_request, response) => {
        const status = answers.get(name) ?? 200;
        if (status !== 200) return void response.writeHead(status).end();
        const posts = [1, 2].map((n) => ({
          guid: `${name}-post-${n}`,
          title: `${name} post ${n}`,
          published: recent(n),
        }));
        response
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(posts, { title: name, link: `${origin}/${name}/` }));
      });
    /** The owner's "Refresh now" on a blog, as a script sends it. */
    const refresh = async (name: string) => {
      const response = await server.get(`${mount()}/blogs/${ids[name]}/refresh`, {
        method: "POST",
        headers: { ...bearer, accept: "application/json" },
      });
      assert.equal(response.status, 202);
      await response.body?.cancel();
    };
    const text = async (path: string) => {
      const response = await server.get(path);
      assert.equal(response.status, 200, path);
      return response.text();
    };
    const publicTitles = async () =>
      ((await (await server.get(`${server.api}/blogs`)).json()) as { items: Array<{ title: string }> }).items
        .map((blog) => blog.title)
        .sort();

    before(async () => {
      feeds = await startFeedServer();
      origin = feeds.origins[0];
      server = await startTestServer(backend);
      for (const name of ["lively", "dead", "hidden", "failing"]) {
        serve(name);
        const { blog } = await server.storage.blogs.upsertFromSource({
          feedUrl: `${origin}/${name}.xml`,
          title: name,
          category: "Friends",
          source: "manual",
        });
        ids[name] = blog.id;
      }
      await server.storage.blogs.edit(ids.hidden, { hidden: true });
      for (const name of Object.keys(ids)) await refresh(name);
      assert.deepEqual(await publicTitles(), ["dead", "failing", "lively"], "all fetched well at first");
      answers.set("dead", 410);
      answers.set("failing", 500);
      await refresh("dead");
      await refresh("failing");
    });
    after(async () => {
      await server?.close();
      await feeds?.close();
    });

    it("leaves /api/blogs, its total and a blog's own page; a blog failing otherwise stays with its status", async () => {
      const body = (await (await server.get(`${server.api}/blogs`)).json()) as {
        items: Array<{ title: string; status: string }>;
        total: number;
      };
      assert.deepEqual(
        body.items.map((blog) => [blog.title, blog.status]),
        [
          ["failing", "error"],
          ["lively", "active"],
        ],
      );
      assert.equal(body.total, 2);
      assert.equal(
        (await server.get(`${server.api}/blogs?category=Friends&limit=0`).then((response) => response.json())).total,
        2,
      );
      assert.equal((await server.get(`${server.api}/blogs/${ids.dead}`)).status, 404);
      assert.equal((await server.get(`${server.api}/blogs/${ids.failing}`)).status, 200);
    });

    it("leaves /api/items (all, by blog, by category) and the /api/categories counts", async () => {
      const items = (await (await server.get(`${server.api}/items`)).json()) as {
        items: Array<{ title: string; blog: { title: string } }>;
      };
      assert.deepEqual([...new Set(items.items.map((item) => item.blog.title))].sort(), ["failing", "lively"]);
      assert.deepEqual(await (await server.get(`${server.api}/items?blog=${ids.dead}`)).json(), {
        items: [],
        hasMore: false,
      });
      const friends = (await (await server.get(`${server.api}/items?category=Friends`)).json()) as {
        items: Array<{ title: string }>;
      };
      assert.ok(!friends.items.some((item) => item.title.startsWith("dead")));
      assert.deepEqual(await (await server.get(`${server.api}/categories`)).json(), {
        items: [{ name: "Friends", count: 2 }],
      });
    });

    it("leaves the OPML exports, the well-known files, the rivers and the blogroll page (HTML, fragment, JSON)", async () => {
      for (const path of [
        `${server.api}/opml`,
        `${server.api}/opml/Friends`,
        `${server.baseUrl}/.well-known/recommendations.opml`,
        `${server.baseUrl}/.well-known/recommendations.json`,
        `${server.baseUrl}${mount()}/river.atom`,
        `${server.baseUrl}${mount()}/river.json`,
        `${server.baseUrl}${mount()}/river.rss`,
        `${server.baseUrl}${mount()}/blogroll`,
        `${server.baseUrl}${mount()}/blogroll/embed`,
        `${server.baseUrl}${mount()}/blogroll.json`,
      ]) {
        const body = await text(path);
        assert.ok(body.includes(`${origin}/lively`), `${path} shows the lively blog`);
        assert.ok(
          !body.includes(`${origin}/dead`) && !body.includes("dead post") && !body.includes("dead-post"),
          `${path} shows nothing of the gone blog`,
        );
        assert.ok(!body.includes(`${origin}/hidden`), `${path} shows nothing of the hidden blog`);
      }
    });

    it("/api/status counts what the public list shows; the owner's status counts the rest apart", async () => {
      const status = (await (await server.get(`${server.api}/status`)).json()) as {
        blogs: Record<string, unknown>;
        items: { count: number };
      };
      assert.deepEqual(status.blogs, { count: 2 });
      assert.equal(status.items.count, 4, "the items of the two public blogs");
      const owner = (await (await server.get(`${server.api}/owner-status`, { headers: bearer })).json()) as {
        owner: {
          blogs: { count: number; public: number; hidden: number; byHealth: { gone: number } };
          items: { count: number };
        };
      };
      assert.deepEqual(
        [owner.owner.blogs.count, owner.owner.blogs.public, owner.owner.blogs.hidden, owner.owner.blogs.byHealth.gone],
        [4, 2, 1, 1],
      );
      assert.equal(owner.owner.items.count, 8, "every stored item");
    });

    it("the admin keeps showing it with its health, so the owner can fix or delete it", async () => {
      const admin = (path: string) =>
        server
          .get(`${mount()}${path}`, { headers: { ...bearer, accept: "text/html" } })
          .then((response) => response.text());
      const gone = await admin("/blogs?health=gone");
      assert.match(gone, />dead</);
      assert.doesNotMatch(gone, />lively</);
      const page = await admin(`/blogs/${ids.dead}`);
      assert.match(page, /HTTP 410 Gone/, "the last error");
      assert.match(page, /Not shown publicly: the feed is gone/);
      assert.match(page, /Next check\s*<\/dt>\s*<dd[^>]*>[^<]*\d{4}[^<]*<\/dd>/, "when its weekly check comes");
      assert.match(page, /Refresh now/);
    });

    it("comes back at once when the owner's Refresh finds the feed again", async () => {
      answers.set("dead", 200);
      await refresh("dead");
      assert.deepEqual(await publicTitles(), ["dead", "failing", "lively"]);
      assert.ok((await text(`${server.api}/opml`)).includes(`${origin}/dead.xml`));
      answers.set("dead", 410);
      await refresh("dead");
      assert.deepEqual(await publicTitles(), ["failing", "lively"]);
    });
  });
}

describe("the add form refuses a site whose advertised feeds all fail (SQLite)", () => {
  let feeds: FeedServer;
  let origin: string;
  let server: TestServer;
  const page = (links: string[]) => (_request: unknown, response: import("node:http").ServerResponse) =>
    void response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><html><head><title>A site</title>${links.map((href) => `<link rel="alternate" type="application/rss+xml" href="${href}">`).join("")}</head><body>Hello</body></html>`,
      );
  const add = (url: string) =>
    server.get(`${server.plugin.mountPath}/blogs`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body: new URLSearchParams({ url, action: "add" }),
      redirect: "manual",
    });

  before(async () => {
    feeds = await startFeedServer();
    origin = feeds.origins[0];
    feeds.route("/broken/", page(["/broken/feed.xml", "/broken/atom.xml"]));
    feeds.route("/broken/feed.xml", (_request, response) => void response.writeHead(404).end());
    feeds.route("/broken/atom.xml", (_request, response) => void response.writeHead(410).end());
    feeds.route("/mixed/", page(["/mixed/old.xml", "/mixed/feed.xml"]));
    feeds.route("/mixed/old.xml", (_request, response) => void response.writeHead(404).end());
    feeds.route(
      "/mixed/feed.xml",
      (_request, response) =>
        void response
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss([{ guid: "m1", published: recent(1) }], { title: "Mixed Feed" })),
    );
    server = await startTestServer("sqlite");
  });
  after(async () => {
    await server?.close();
    await feeds?.close();
  });

  it("names each address it tried and what it answered, and adds nothing", async () => {
    const response = await add(`${origin}/broken/`);
    assert.equal(response.status, 422, "not 'Blog added'");
    const html = await response.text();
    assert.ok(html.includes(`${origin}/broken/feed.xml: Not found (HTTP 404)`), "the first address and its status");
    assert.ok(html.includes(`${origin}/broken/atom.xml: Not found (HTTP 410)`), "the second address and its status");
    assert.equal((await server.storage.blogs.list({ visibility: "admin", limit: 10, offset: 0 })).total, 0);
    assert.equal((await (await server.get(`${server.api}/blogs`)).json()).total, 0);
  });

  it("takes the first advertised feed that answers, with its own title", async () => {
    const response = await add(`${origin}/mixed/`);
    assert.equal(response.status, 303);
    assert.match(response.headers.get("location") ?? "", /notice=blogAdded/);
    const blog = await server.storage.blogs.getByFeedUrl(`${origin}/mixed/feed.xml`);
    assert.equal(blog?.title, "Mixed Feed", "its own title, not the host name");
    assert.equal(await server.storage.blogs.getByFeedUrl(`${origin}/mixed/old.xml`), null);
  });
});
