/**
 * Every public API parameter fuzzed (types, lengths, unicode, __proto__,
 * operator-shaped keys and values) on SQLite and on the MongoDB adapter over
 * the mingo stand-in: answers are only the spec's bodies, filters never widen
 * (nothing reaches a query as an operator), nothing pollutes prototypes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { describeBackend, startTestServer, type TestServer } from "../support/server.js";
import { addBlog, addItems, daysAgo, item } from "../support/seed.js";

const RUNS = Number(process.env.HARDENING_RUNS ?? 60);

const SPEC_ERRORS = new Set(
  [
    "Invalid limit",
    "Invalid offset",
    "Invalid category",
    "Invalid source",
    "Invalid sort",
    "Invalid blog",
    "Invalid blog ID",
    "Blog not found",
    "Not found",
  ].map((error) => JSON.stringify({ error })),
);

/** Text a client might send: operators, prototype keys, unicode, control characters, long runs. */
const hostileValue = fc.oneof(
  fc.constantFrom(
    "$ne",
    "$gt",
    '{"$ne":null}',
    '{"$where":"sleep(1000)"}',
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "' OR 1=1 --",
    '" OR ""="',
    "%",
    "_",
    "*",
    ".*",
    "(a+)+$",
    "\\",
    "null",
    "undefined",
    "NaN",
    "-1",
    "1e3",
    "0x10",
    "9".repeat(30),
    " 5",
    "",
    "Tech",
    "tech",
    "TECH",
    "Friends",
    "opml",
    "manual",
    "recent",
    "title",
    "0123456789abcdef01234567",
    "0123456789ABCDEF01234567",
    "0123456789abcdef0123456",
    "0123456789abcdef012345678",
  ),
  fc.string({ unit: "binary", maxLength: 50 }),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.integer({ min: 200, max: 400 }).map((length) => "é".repeat(length)),
);

/** Parameter names, including the shapes that become arrays or objects in other query parsers. */
const parameterName = fc.oneof(
  fc.constantFrom("category", "source", "sort", "limit", "offset", "blog"),
  fc.constantFrom(
    "category[$ne]",
    "category[]",
    "blog[$gt]",
    "__proto__",
    "__proto__[polluted]",
    "constructor[prototype][polluted]",
    "limit[]",
    "a.b",
  ),
);

const query = fc.array(fc.tuple(parameterName, hostileValue), { maxLength: 5 }).map((pairs) => {
  const search = new URLSearchParams();
  for (const [name, value] of pairs) search.append(name, value);
  return { pairs, search: search.toString() };
});

const endpoint = fc.oneof(
  fc.constantFrom("/blogs", "/items", "/categories", "/status", "/opml"),
  hostileValue.map((value) => `/blogs/${encodeURIComponent(value)}`),
  hostileValue.map((value) => `/opml/${encodeURIComponent(value)}`),
);

for (const backend of ["sqlite", "mongo-standin"] as const) {
  describe(`public API under fuzzed parameters, ${describeBackend(backend)}`, () => {
    let server: TestServer;
    const categories = new Set(["Tech", "Friends"]);

    before(async () => {
      server = await startTestServer(backend);
      for (const [index, category] of ["Tech", "Friends", null, "Tech"].entries()) {
        const blog = await addBlog(server.storage, {
          title: `Blog ${index}`,
          category,
          source: index % 2 ? "opml" : "manual",
        });
        await addItems(server.storage, blog.id, [item(`i${index}`, daysAgo(index)), item(`u${index}`, null)]);
      }
      await addBlog(server.storage, { title: "Hidden", category: "Secret", hidden: true });
    });
    after(() => server.close());

    it(
      "answers only the spec's bodies, and filters only ever narrow",
      { timeout: 120_000 * Math.max(1, RUNS / 150) },
      async () => {
        await fc.assert(
          fc.asyncProperty(endpoint, query, async (path, { pairs, search }) => {
            const response = await server.get(`${server.api}${path}${search ? `?${search}` : ""}`);
            const text = await response.text();
            assert.ok(
              [200, 400, 404].includes(response.status),
              `${response.status} ${path}?${search}: ${text.slice(0, 200)}`,
            );
            assert.equal(response.headers.get("x-content-type-options"), "nosniff");
            assert.doesNotMatch(text, /Secret|\bat \S+\.(ts|js)|stack/i, "nothing hidden, no stack");
            if (response.status !== 200) {
              assert.ok(SPEC_ERRORS.has(text), `not a spec body: ${text.slice(0, 200)}`);
              return;
            }
            if (path.startsWith("/opml")) return assert.match(text, /^<\?xml/);
            const body = JSON.parse(text);
            const given = (name: string) =>
              pairs
                .filter(([key]) => key === name)
                .map(([, value]) => value)
                .filter((value) => value !== "");
            if (path === "/blogs") {
              assert.deepEqual(Object.keys(body).sort(), ["hasMore", "items", "total"]);
              const [category] = given("category");
              const [source] = given("source");
              for (const blog of body.items) {
                if (category !== undefined) assert.equal(blog.category, category, "category filter is exact text");
                if (source !== undefined) assert.equal(blog.source, source, "source filter is exact text");
              }
              if (category !== undefined && !categories.has(category)) assert.equal(body.total, 0);
            }
            if (path === "/items") {
              assert.deepEqual(Object.keys(body).sort(), ["hasMore", "items"]);
              const [category] = given("category");
              for (const entry of body.items) if (category !== undefined) assert.equal(entry.blog.category, category);
            }
          }),
          { numRuns: RUNS },
        );
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.deepEqual(Object.keys(Object.prototype), []);
      },
    );

    it("100 KB parameter values never reach the routes as anything but text", async () => {
      for (const name of ["category", "source", "sort", "limit", "offset", "blog"]) {
        const value = "x".repeat(100 * 1024);
        const response = await server.get(`${server.api}/${name === "blog" ? "items" : "blogs"}?${name}=${value}`);
        const text = await response.text();
        // Node refuses request heads over 16 KB before any route sees them (431, empty body).
        assert.equal(response.status, 431, name);
        assert.equal(text, "");
      }
      for (const name of ["category", "source", "sort", "limit", "offset"]) {
        const response = await server.get(`${server.api}/blogs?${name}=${"y".repeat(8000)}`);
        assert.equal(response.status, 400, name);
        assert.deepEqual(await response.json(), { error: `Invalid ${name}` });
      }
      const next = await server.get(`${server.api}/blogs`);
      assert.equal(next.status, 200);
    });

    it("a parameter given twice, or as a bracketed name, is refused or ignored, never passed on as a list or object", async () => {
      for (const name of ["category", "source", "sort", "blog", "limit", "offset"]) {
        const path = name === "blog" ? "items" : "blogs";
        const repeated = await server.get(`${server.api}/${path}?${name}=Tech&${name}=Friends`);
        assert.equal(repeated.status, 400, `${name} twice`);
        // README: a text parameter given twice is "Invalid <name>" (blog included).
        assert.deepEqual(await repeated.json(), { error: `Invalid ${name}` });
      }
      for (const name of ["category[$ne]", "category[]", "source[$regex]"]) {
        const response = await server.get(`${server.api}/blogs?${name}=x`);
        assert.equal((await response.json()).total, 4, `${name} is just an unknown name`);
      }
    });

    it("operator-shaped values match nothing; the unfiltered list is unchanged", async () => {
      const all = await (await server.get(`${server.api}/blogs`)).json();
      assert.equal(all.total, 4);
      for (const value of ['{"$ne":null}', "$ne", ".*", "%", "' OR 1=1 --", "__proto__"]) {
        for (const name of ["category", "source"]) {
          const response = await server.get(`${server.api}/blogs?${name}=${encodeURIComponent(value)}`);
          assert.deepEqual(await response.json(), { items: [], total: 0, hasMore: false }, `${name}=${value}`);
        }
        const items = await (await server.get(`${server.api}/items?category=${encodeURIComponent(value)}`)).json();
        assert.deepEqual(items, { items: [], hasMore: false });
      }
    });
  });
}
