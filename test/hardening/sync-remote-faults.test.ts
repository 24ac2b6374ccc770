/**
 * Hostile and broken remote sites through a whole sync run: each blog ends
 * with status "error" and a clear lastError, its earlier items stay, and the
 * other blogs of the run are not held up.
 */
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { createSyncRunner } from "../../lib/sync/run.js";
import { createGuardedAgent, type ResolvedAddress } from "../../lib/http/guarded-agent.js";
import { isBlockedAddress } from "../../lib/http/address-policy.js";
import type { BlogrollOptions } from "../../lib/options.js";
import type { Blog, Storage } from "../../lib/storage/types.js";
import type { Dispatcher } from "undici";
import { rss, startFeedServer, type FeedServer, type Handler } from "../sync/feed-server.js";
import { addBlog, openTempStorage, testOptions, type TempStorage } from "../sync/harness.js";

let server: FeedServer;
let origin: string;
let port: string;
let temp: TempStorage;
/** Dated an hour ago, fixed, so re-fetches of the good feed change nothing. */
const published = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000);
const goodFeed = rss([
  { guid: "kept-1", published },
  { guid: "kept-2", published },
]);

before(async () => {
  server = await startFeedServer();
  origin = server.origins[0];
  port = new URL(origin).port;
});
after(() => server.close());
beforeEach(async () => (temp = await openTempStorage()));
afterEach(() => temp.cleanup());

async function syncAll(storage: Storage, options: Partial<BlogrollOptions> = {}, dispatcher?: Dispatcher) {
  const run = createSyncRunner({
    options: testOptions({ fetchTimeout: 1500, ...options }),
    parseInWorkers: false,
    dispatcher,
  });
  return run(storage, { signal: new AbortController().signal, progress: () => undefined });
}

/** Makes every blog due again (a fault run follows a good one at once). */
async function makeDue(storage: Storage, blogs: Blog[]) {
  for (const blog of blogs) {
    const current = await storage.blogs.get(blog.id);
    await storage.blogs.recordFetch(blog.id, {
      at: new Date(),
      status: current!.status === "error" ? "error" : "active",
      nextFetchAt: null,
      failureCount: 0,
      etag: null,
      lastModified: null,
    });
  }
}

const uids = async (storage: Storage, blog: Blog) =>
  (await storage.items.list({ blogId: blog.id, limit: 50, offset: 0 })).map((entry) => entry.uid).sort();

/** Serves the good feed until `breakIt()`, then `faulty`. */
function switchable(faulty: Handler): { handler: Handler; breakIt(): void } {
  let broken = false;
  return {
    handler: (request, response) => {
      if (broken) return faulty(request, response);
      response.writeHead(200, { "content-type": "application/rss+xml" }).end(goodFeed);
    },
    breakIt: () => void (broken = true),
  };
}

const faults: Array<[string, Handler, RegExp, Partial<BlogrollOptions>?]> = [
  [
    "a slowloris body trickling one byte at a time",
    (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      const timer = setInterval(() => response.write(" "), 100);
      response.on("close", () => clearInterval(timer));
    },
    /^Timed out after 1\.5 s$/,
  ],
  ["headers that never come", () => undefined, /^Timed out after 1\.5 s$/],
  [
    "a connection reset mid-body",
    (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      response.write(goodFeed.slice(0, 200));
      setTimeout(() => response.socket?.destroy(), 20);
    },
    /^Network error: .*(reset|cut short|failed)/i,
  ],
  [
    "a Content-Length longer than the body",
    (_request, response) => {
      response.writeHead(200, {
        "content-type": "application/rss+xml",
        "content-length": String(goodFeed.length + 500),
      });
      response.write(goodFeed);
      setTimeout(() => response.socket?.end(), 20);
    },
    /^Network error: /,
  ],
  [
    "a gzip bomb",
    (() => {
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
      return (_request, response) => {
        response.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": "gzip" }).end(bomb);
      };
    })(),
    /^Response larger than 1024 KiB$/,
    { maxBodySize: 1024 * 1024 },
  ],
  [
    "a 100 MB body",
    (_request, response) => {
      response.writeHead(200, { "content-type": "application/rss+xml" });
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      Readable.from(
        (function* () {
          while (sent < 100 * 1024 * 1024) {
            sent += chunk.length;
            yield chunk;
          }
        })(),
      ).pipe(response);
    },
    /^Response larger than 5120 KiB$/,
  ],
  [
    "a 200 with an HTML error page",
    (_request, response) => {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><html><head><title>Error</title></head><body><h1>Database error</h1></body></html>");
    },
    /^Not a readable feed: /,
  ],
  [
    "a 500 with a stack trace in the body",
    (_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" }).end("Error: boom\n    at /srv/app.js:1:1");
    },
    /^HTTP 500 Internal Server Error$/,
  ],
  [
    "a billion-laughs feed",
    (_request, response) => {
      const doctype = `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 8 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i === 0 ? "" : i};`.repeat(10)}">`).join("")}]>`;
      response
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(goodFeed.replace("<rss", `${doctype}<rss`).replace("<title>Test feed", "<title>&a8;"));
    },
    /.*/,
  ],
];

describe("broken and hostile remote sites through a whole sync", () => {
  for (const [name, handler, message, options] of faults) {
    it(`${name}: clear lastError, earlier items kept, the next blog still synced`, { timeout: 20_000 }, async () => {
      const path = `/fault-${name.replace(/\W+/g, "-")}.xml`;
      const fault = switchable(handler);
      server.route(path, fault.handler);
      server.route(
        "/neighbour.xml",
        (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(goodFeed),
      );
      const blog = await addBlog(temp.storage, `${origin}${path}`);
      const neighbour = await addBlog(temp.storage, `${origin}/neighbour.xml`);
      await syncAll(temp.storage, options);
      assert.deepEqual(await uids(temp.storage, blog), ["kept-1", "kept-2"]);

      fault.breakIt();
      await makeDue(temp.storage, [blog, neighbour]);
      const stats = await syncAll(temp.storage, options);
      const after = (await temp.storage.blogs.get(blog.id))!;
      assert.deepEqual(await uids(temp.storage, blog), ["kept-1", "kept-2"], "earlier items stay");
      assert.equal((await temp.storage.blogs.get(neighbour.id))!.status, "active");
      if (name === "a billion-laughs feed") {
        // Read without expanding the entities, or refused: either way nothing grew.
        assert.ok((after.title ?? "").length < 200, after.title ?? "");
        return;
      }
      assert.equal(stats.blogs.failed, 1);
      assert.equal(after.status, "error");
      assert.match(after.lastError ?? "", message);
      // One line, no stack; the host named is the blog's own (here the loopback fixture).
      assert.doesNotMatch(after.lastError ?? "", /\n|\bat \//);
      assert.ok(after.nextFetchAt && after.nextFetchAt.getTime() > Date.now(), "backs off");
    });
  }

  it("Retry-After: seconds, a date, the past and an absurd value set the next fetch within [now, now + 1 day]", async () => {
    const now = Date.now();
    const cases: Array<[string, (at: number) => boolean]> = [
      ["120", (at) => at >= now + 110_000 && at <= Date.now() + 130_000],
      [new Date(now + 3 * 3600_000).toUTCString(), (at) => Math.abs(at - (now + 3 * 3600_000)) < 5000],
      [new Date(now - 3600_000).toUTCString(), (at) => at >= now && at <= Date.now() + 5 * 60_000 + 5000],
      ["999999999999", (at) => at <= Date.now() + 24 * 3600_000 + 5000 && at >= now + 23 * 3600_000],
      ["Fri, 31 Dec 9999 23:59:59 GMT", (at) => at <= Date.now() + 24 * 3600_000 + 5000],
      ["soon", (at) => at <= Date.now() + 5 * 60_000 + 5000],
    ];
    for (const [index, [retryAfter, check]] of cases.entries()) {
      server.route(
        `/busy-${index}.xml`,
        (_request, response) => void response.writeHead(429, { "retry-after": retryAfter }).end(),
      );
      const blog = await addBlog(temp.storage, `${origin}/busy-${index}.xml`);
      await syncAll(temp.storage);
      const after = (await temp.storage.blogs.get(blog.id))!;
      assert.equal(after.lastError, "HTTP 429 Too Many Requests");
      assert.ok(
        after.nextFetchAt && check(after.nextFetchAt.getTime()),
        `Retry-After: ${retryAfter} → ${after.nextFetchAt?.toISOString()}`,
      );
    }
  });
});

describe("private addresses through a whole sync (allowPrivateNetworks off)", () => {
  /**
   * Name resolution for made-up hosts. 127.0.0.1 (the fixture server) plays
   * a public address: the policy treats it as allowed; every other address
   * goes through the real policy.
   */
  const answers = new Map<string, ResolvedAddress[][]>();
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const queue = answers.get(hostname);
    if (!queue || queue.length === 0) throw Object.assign(new Error("no such host"), { code: "ENOTFOUND" });
    return queue.length > 1 ? queue.shift()! : queue[0];
  };
  const isBlocked = (address: string) => address !== "127.0.0.1" && isBlockedAddress(address);
  const agent = () => createGuardedAgent({ allowPrivateNetworks: false, resolve, isBlocked });
  const v4 = (address: string) => ({ address, family: 4 });
  const v6 = (address: string) => ({ address, family: 6 });

  before(() => {
    server.route(
      "/feed.xml",
      (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(goodFeed),
    );
    answers.set("public.example", [[v4("127.0.0.1")]]);
    answers.set("internal.example", [[v4("10.1.2.3")]]);
    answers.set("metadata.example", [[v4("169.254.169.254")]]);
    answers.set("dual.example", [[v4("127.0.0.1"), v6("::1")]]);
    answers.set("mapped.example", [[v6("::ffff:7f00:1")]]);
  });

  /** Every spelling of a private or reserved address the issue lists, and two plain private ones. */
  const literals = [
    "127.1",
    "2130706433",
    "0x7f000001",
    "0.0.0.0",
    "[::]",
    "[::1]",
    "[::ffff:7f00:1]",
    "[64:ff9b::7f00:1]",
    "[2002:7f00:1::]",
    "169.254.169.254",
    "100.64.0.1",
    "10.0.0.1",
    "192.168.1.1",
  ];

  it("refuses address literals in every spelling and names resolving to private ranges; lastError never shows a resolved address", async () => {
    const blogs: Blog[] = [];
    for (const host of literals) blogs.push(await addBlog(temp.storage, `http://${host}:${port}/feed.xml`));
    const named: Blog[] = [];
    for (const host of ["internal.example", "metadata.example", "dual.example", "mapped.example"])
      named.push(await addBlog(temp.storage, `http://${host}:${port}/feed.xml`));
    const allowed = await addBlog(temp.storage, `http://public.example:${port}/feed.xml`);
    const hitsBefore = server.hits("/feed.xml");

    await syncAll(temp.storage, { allowPrivateNetworks: false }, agent());

    for (const blog of [...blogs, ...named]) {
      const after = (await temp.storage.blogs.get(blog.id))!;
      assert.equal(after.status, "error", blog.feedUrl);
      assert.match(
        after.lastError ?? "",
        /^Address not allowed: .* is on a private or reserved network \(the allowPrivateNetworks option allows it\)$/,
        blog.feedUrl,
      );
    }
    for (const blog of named) {
      const { lastError } = (await temp.storage.blogs.get(blog.id))!;
      assert.doesNotMatch(lastError ?? "", /10\.1\.2\.3|169\.254|::1|ffff|127\.0\.0\.1/, lastError ?? "");
      assert.match(lastError ?? "", new RegExp(new URL(blog.feedUrl).hostname.replace(/\./g, "\\.")));
    }
    assert.equal((await temp.storage.blogs.get(allowed.id))!.status, "active");
    assert.equal(server.hits("/feed.xml") - hitsBefore, 1, "only the public blog reached the server");
  });

  it("a name that resolves public, then private (rebinding), is refused on the next connection and keeps its items", async () => {
    answers.set("rebind.example", [[v4("127.0.0.1")], [v4("192.168.0.10")]]);
    // The server closes each connection, so the second run connects (and resolves) again.
    server.route(
      "/rebind.xml",
      (_request, response) =>
        void response.writeHead(200, { "content-type": "application/rss+xml", connection: "close" }).end(goodFeed),
    );
    const blog = await addBlog(temp.storage, `http://rebind.example:${port}/rebind.xml`);
    // One agent for both runs, as in production (a shared agent per process): no answer may be remembered.
    const shared = agent();
    await syncAll(temp.storage, { allowPrivateNetworks: false }, shared);
    assert.deepEqual(await uids(temp.storage, blog), ["kept-1", "kept-2"]);
    await makeDue(temp.storage, [blog]);
    await syncAll(temp.storage, { allowPrivateNetworks: false }, shared);
    await shared.close();
    const after = (await temp.storage.blogs.get(blog.id))!;
    assert.equal(after.status, "error");
    assert.equal(
      after.lastError,
      "Address not allowed: rebind.example is on a private or reserved network (the allowPrivateNetworks option allows it)",
    );
    assert.deepEqual(await uids(temp.storage, blog), ["kept-1", "kept-2"]);
  });

  it("redirects to private addresses, other schemes, loops and over-long chains are refused with clear messages", async () => {
    const redirect =
      (location: string): Handler =>
      (_request, response) =>
        void response.writeHead(302, { location }).end();
    const cases: Array<[string, string, RegExp]> = [
      ["/to-loopback", `http://127.0.0.1:${port}/feed.xml`, /^Address not allowed: /],
      [
        "/to-private-name",
        `http://internal.example:${port}/feed.xml`,
        /^Address not allowed: internal\.example is on a private or reserved network \(the allowPrivateNetworks option allows it\)$/,
      ],
      ["/to-metadata", "http://169.254.169.254/latest/meta-data/", /^Address not allowed: /],
      ["/to-v6", `http://[::ffff:10.0.0.1]:${port}/`, /^Address not allowed: /],
      ["/to-file", "file:///etc/passwd", /unsupported address scheme file:/i],
      ["/to-gopher", "gopher://public.example/1", /unsupported address scheme gopher:/i],
      ["/to-data", "data:application/rss+xml,<rss/>", /unsupported address scheme data:/i],
      ["/loop-a", "/loop-b", /redirect loop|more than 5 redirects/i],
    ];
    server.route("/loop-b", redirect("/loop-a"));
    for (const [path, location] of cases) server.route(path, redirect(location));
    for (let hop = 0; hop < 8; hop++) server.route(`/chain-${hop}`, redirect(`/chain-${hop + 1}`));
    server.route(
      "/chain-8",
      (_request, response) => void response.writeHead(200, { "content-type": "application/rss+xml" }).end(goodFeed),
    );
    cases.push(["/chain-0", "", /more than 5 redirects/i]);
    // A redirect to each spelling of a private address, and to names resolving to one (also beside a public address).
    const targets = [...literals, "dual.example", "mapped.example", "metadata.example"];
    for (const [index, host] of targets.entries()) {
      server.route(`/to-spelling-${index}`, redirect(`http://${host}:${port}/feed.xml`));
      cases.push([`/to-spelling-${index}`, "", /^Address not allowed: /]);
    }
    const feedHitsBefore = server.hits("/feed.xml");

    const blogs = new Map<string, Blog>();
    for (const [path] of cases) blogs.set(path, await addBlog(temp.storage, `http://public.example:${port}${path}`));
    await syncAll(temp.storage, { allowPrivateNetworks: false }, agent());
    for (const [path, , message] of cases) {
      const after = (await temp.storage.blogs.get(blogs.get(path)!.id))!;
      assert.equal(after.status, "error", path);
      assert.match(after.lastError ?? "", message, `${path}: ${after.lastError}`);
      assert.doesNotMatch(after.lastError ?? "", /10\.0\.0\.1\b(?!.*is on)/);
    }
    for (const [index, host] of targets.entries()) {
      if (!host.endsWith(".example")) continue;
      // A name is reported by name only, never by the address it resolved to.
      const { lastError } = (await temp.storage.blogs.get(blogs.get(`/to-spelling-${index}`)!.id))!;
      assert.equal(
        lastError,
        `Address not allowed: ${host} is on a private or reserved network (the allowPrivateNetworks option allows it)`,
      );
    }
    assert.equal(server.hits("/feed.xml"), feedHitsBefore, "no redirect reached the loopback fixture");
  });
});
