import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import { fetchUrl, FetchError, USER_AGENT, type FetchOptions } from "../../lib/http/fetch.js";
import { createGuardedAgent } from "../../lib/http/guarded-agent.js";
import { HostLimiter } from "../../lib/http/host-limiter.js";
import { parseRetryAfter } from "../../lib/http/retry-after.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback server with a route table; `address` may be any 127.x address. */
async function serve(routes: Record<string, Handler>, address = "127.0.0.1"): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const handler = routes[request.url ?? "/"];
    if (handler) handler(request, response);
    else response.writeHead(404).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${address}:${port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const open: FetchOptions = { timeout: 2000, maxBodySize: 100_000, allowPrivateNetworks: true };
const closed: FetchOptions = { ...open, allowPrivateNetworks: false };

async function rejectsWith(promise: Promise<unknown>, code: string, notMatching?: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof FetchError, `expected FetchError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (notMatching) assert.doesNotMatch(error.message, notMatching);
    return true;
  });
}

describe("fetchUrl", () => {
  let site: Awaited<ReturnType<typeof serve>>;
  const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x61)); // 50 MB of "a" in ~50 KB
  before(async () => {
    site = await serve({
      "/feed": (request, response) => {
        if (request.headers["if-none-match"] === '"v1"') return void response.writeHead(304).end();
        response.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8", etag: '"v1"', "last-modified": "Mon, 23 Nov 2026 08:00:00 GMT", "x-ua": String(request.headers["user-agent"]) });
        response.end("<rss/>");
      },
      "/echo": (request, response) => response.end(JSON.stringify(request.headers)),
      "/gzip": (_request, response) => response.writeHead(200, { "content-encoding": "gzip" }).end(zlib.gzipSync("gzipped body")),
      "/deflate": (_request, response) => response.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateSync("deflated body")),
      "/br": (_request, response) => response.writeHead(200, { "content-encoding": "br" }).end(zlib.brotliCompressSync("brotli body")),
      "/bad-gzip": (_request, response) => response.writeHead(200, { "content-encoding": "gzip" }).end("not gzip at all"),
      "/bomb": (_request, response) => response.writeHead(200, { "content-encoding": "gzip" }).end(bomb),
      "/big": (_request, response) => response.end(Buffer.alloc(200_000, 0x62)),
      "/trickle": (_request, response) => {
        response.writeHead(200, { "content-type": "text/xml" });
        const timer = setInterval(() => response.write("<"), 100);
        response.on("close", () => clearInterval(timer));
      },
      "/reset": (request, response) => {
        response.writeHead(200, { "content-length": "1000" });
        response.write("partial");
        setTimeout(() => request.socket.destroy(), 20);
      },
      "/short": (request, response) => {
        response.writeHead(200, { "content-length": "100" });
        response.end("only a few bytes", () => request.socket.end());
      },
      "/retry": (_request, response) => response.writeHead(429, { "retry-after": "120" }).end(),
      "/gone": (_request, response) => response.writeHead(410).end("gone"),
      "/r301": (_request, response) => response.writeHead(301, { location: "/r308" }).end(),
      "/r308": (_request, response) => response.writeHead(308, { location: "/feed" }).end(),
      "/r302": (_request, response) => response.writeHead(302, { location: "/feed" }).end(),
      "/r307": (_request, response) => response.writeHead(307, { location: "/r301" }).end(),
      "/loop-a": (_request, response) => response.writeHead(302, { location: "/loop-b" }).end(),
      "/loop-b": (_request, response) => response.writeHead(302, { location: "/loop-a" }).end(),
      ...Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`/chain${index}`, (_request: IncomingMessage, response: ServerResponse) => void response.writeHead(301, { location: `/chain${index + 1}` }).end()])),
      "/chain7": (_request, response) => response.end("end of chain"),
      "/to-file": (_request, response) => response.writeHead(302, { location: "file:///etc/passwd" }).end(),
      "/to-gopher": (_request, response) => response.writeHead(302, { location: "gopher://example.org/" }).end(),
      "/to-data": (_request, response) => response.writeHead(302, { location: "data:text/html,<script>alert(1)</script>" }).end(),
    });
  });
  after(() => site.close());

  it("fetches a body with validators and a descriptive User-Agent", async () => {
    const result = await fetchUrl(`${site.origin}/feed`, open);
    assert.equal(result.status, 200);
    assert.equal(Buffer.from(result.body).toString(), "<rss/>");
    assert.equal(result.etag, '"v1"');
    assert.equal(result.lastModified, "Mon, 23 Nov 2026 08:00:00 GMT");
    assert.equal(result.contentType, "application/rss+xml; charset=utf-8");
    assert.equal(result.notModified, false);
    assert.equal(result.permanentRedirect, null);
    assert.match(USER_AGENT, /^indiekit-endpoint-blogroll\/\d+\.\d+\.\d+ \(\+https?:\/\//);
    const echoed = JSON.parse(Buffer.from((await fetchUrl(`${site.origin}/echo`, open)).body).toString());
    assert.equal(echoed["user-agent"], USER_AGENT);
    assert.match(echoed.accept, /application\/rss\+xml/);
    assert.match(echoed["accept-encoding"], /gzip/);
    assert.match(echoed["accept-encoding"], /br/);
  });

  it("sends conditional headers and reports 304 without a body", async () => {
    const result = await fetchUrl(`${site.origin}/feed`, { ...open, etag: '"v1"', lastModified: "Mon, 23 Nov 2026 08:00:00 GMT" });
    assert.equal(result.status, 304);
    assert.equal(result.notModified, true);
    assert.equal(result.body.length, 0);
    const echoed = JSON.parse(Buffer.from((await fetchUrl(`${site.origin}/echo`, { ...open, etag: '"x"', lastModified: "Sun, 01 Nov 2026 00:00:00 GMT" })).body).toString());
    assert.equal(echoed["if-none-match"], '"x"');
    assert.equal(echoed["if-modified-since"], "Sun, 01 Nov 2026 00:00:00 GMT");
  });

  it("decompresses gzip, deflate and br, counting wire bytes", async () => {
    for (const [path, text] of [["/gzip", "gzipped body"], ["/deflate", "deflated body"], ["/br", "brotli body"]]) {
      const result = await fetchUrl(`${site.origin}${path}`, open);
      assert.equal(Buffer.from(result.body).toString(), text);
      assert.ok(result.bytesReceived > 0);
    }
    await rejectsWith(fetchUrl(`${site.origin}/bad-gzip`, open), "network");
  });

  it("aborts a gzip bomb and an oversized body at the cap, on the decompressed size", async () => {
    const before = process.memoryUsage().rss;
    await rejectsWith(fetchUrl(`${site.origin}/bomb`, { ...open, maxBodySize: 1_000_000 }), "too_large");
    assert.ok(process.memoryUsage().rss - before < 40 * 1024 * 1024, "the bomb was not inflated whole");
    await rejectsWith(fetchUrl(`${site.origin}/big`, open), "too_large");
    const fits = await fetchUrl(`${site.origin}/big`, { ...open, maxBodySize: 200_000 });
    assert.equal(fits.body.length, 200_000);
  });

  it("times out a trickling body: the deadline covers the whole exchange", async () => {
    await rejectsWith(fetchUrl(`${site.origin}/trickle`, { ...open, timeout: 400 }), "timeout");
  });

  it("reports a reset mid-body and a short Content-Length as network errors", async () => {
    await rejectsWith(fetchUrl(`${site.origin}/reset`, open), "network");
    await rejectsWith(fetchUrl(`${site.origin}/short`, open), "network");
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(fetchUrl(`${site.origin}/trickle`, { ...open, signal: controller.signal }), "aborted");
  });

  it("returns error statuses with Retry-After parsed", async () => {
    const gone = await fetchUrl(`${site.origin}/gone`, open);
    assert.equal(gone.status, 410);
    const retry = await fetchUrl(`${site.origin}/retry`, open);
    assert.equal(retry.status, 429);
    const wait = (retry.retryAfter as Date).getTime() - Date.now();
    assert.ok(wait > 100_000 && wait <= 120_000, String(wait));
  });

  it("follows redirects: permanent only when every hop is 301/308", async () => {
    const permanent = await fetchUrl(`${site.origin}/r301`, open);
    assert.equal(permanent.status, 200);
    assert.equal(permanent.permanentRedirect, `${site.origin}/feed`);
    assert.deepEqual(permanent.redirects.map((hop) => hop.status), [301, 308]);
    assert.equal((await fetchUrl(`${site.origin}/r302`, open)).permanentRedirect, null);
    const mixed = await fetchUrl(`${site.origin}/r307`, open);
    assert.equal(mixed.permanentRedirect, null);
    assert.equal(mixed.url, `${site.origin}/feed`);
  });

  it("refuses loops, chains longer than 5 hops and non-http schemes", async () => {
    await rejectsWith(fetchUrl(`${site.origin}/loop-a`, open), "too_many_redirects");
    await rejectsWith(fetchUrl(`${site.origin}/chain0`, open), "too_many_redirects");
    const five = await fetchUrl(`${site.origin}/chain2`, open);
    assert.equal(Buffer.from(five.body).toString(), "end of chain");
    for (const path of ["/to-file", "/to-gopher", "/to-data"]) await rejectsWith(fetchUrl(`${site.origin}${path}`, open), "bad_url");
    for (const url of ["file:///etc/passwd", "gopher://x/", "ftp://x/", "javascript:alert(1)", "not a url", "http://user:pw@example.org/"]) {
      await rejectsWith(fetchUrl(url, open), "bad_url");
    }
  });

  describe("private networks", () => {
    it("refuses private and reserved IP literals in every spelling, without connecting", async () => {
      const port = new URL(site.origin).port;
      for (const host of ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0.0.0.0", "[::]", "[::1]", "[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "169.254.169.254", "100.64.0.1", "10.0.0.1", "192.168.0.1", "[fd00::1]"]) {
        await rejectsWith(fetchUrl(`http://${host}:${port}/feed`, closed), "blocked_address", /\b(127\.0\.0\.1)\b.*resolved/);
      }
    });

    it("refuses names that resolve to private addresses, naming the host but never the address", async () => {
      await rejectsWith(fetchUrl(`http://localhost:${new URL(site.origin).port}/feed`, closed), "blocked_address", /127\.0\.0\.1|::1/);
      const tenNet = createGuardedAgent({ allowPrivateNetworks: false, resolve: async () => [{ address: "10.0.0.1", family: 4 }] });
      await assert.rejects(fetchUrl("http://intranet.example/feed", { ...closed, dispatcher: tenNet }), (error: unknown) => {
        assert.ok(error instanceof FetchError);
        assert.equal(error.code, "blocked_address");
        assert.match(error.message, /intranet\.example/);
        assert.doesNotMatch(error.message, /10\.0\.0\.1/);
        return true;
      });
      const mixed = createGuardedAgent({ allowPrivateNetworks: false, resolve: async () => [{ address: "93.184.216.34", family: 4 }, { address: "::1", family: 6 }] });
      await rejectsWith(fetchUrl("http://both.example/feed", { ...closed, dispatcher: mixed }), "blocked_address");
    });

    it("checks the address again at each connect (DNS rebinding) and on every redirect hop", async () => {
      // 127.0.0.2 stands in for a public address; only 127.0.0.1 counts as private here.
      const isBlocked = (address: string) => address === "127.0.0.1";
      const publicSite = await serve({ "/feed": (_request, response) => response.writeHead(302, { location: `${site.origin}/feed` }).end() }, "127.0.0.2");
      try {
        let answers = 0;
        const rebinding = createGuardedAgent({
          allowPrivateNetworks: false,
          isBlocked,
          resolve: async () => [{ address: answers++ === 0 ? "127.0.0.2" : "127.0.0.1", family: 4 }],
        });
        const port = new URL(publicSite.origin).port;
        // First connection: public answer, and the redirect to a private literal is refused.
        await rejectsWith(fetchUrl(`http://public.example:${port}/feed`, { ...closed, dispatcher: rebinding }), "blocked_address");
        // Later connections to the same name now resolve privately: refused at connect time.
        const fresh = createGuardedAgent({ allowPrivateNetworks: false, isBlocked, resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
        await rejectsWith(fetchUrl(`http://public.example:${port}/feed`, { ...closed, dispatcher: fresh }), "blocked_address", /127\.0\.0\.1/);
      } finally {
        await publicSite.close();
      }
    });

    it("allowPrivateNetworks lifts the rule", async () => {
      const result = await fetchUrl(`http://localhost:${new URL(site.origin).port}/feed`, open);
      assert.equal(result.status, 200);
    });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 10, 23, 8, 0, 0);
  it("reads seconds and HTTP dates, clamped to [now, now + 1 day]", () => {
    assert.equal(parseRetryAfter("60", now)?.getTime(), now + 60_000);
    assert.equal(parseRetryAfter("Mon, 23 Nov 2026 09:00:00 GMT", now)?.getTime(), now + 3_600_000);
    assert.equal(parseRetryAfter("Mon, 23 Nov 2026 07:00:00 GMT", now)?.getTime(), now, "past means now");
    assert.equal(parseRetryAfter("99999999999", now)?.getTime(), now + 86_400_000, "absurd is clamped");
    assert.equal(parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now)?.getTime(), now + 86_400_000);
    assert.equal(parseRetryAfter("soon", now), null);
    assert.equal(parseRetryAfter(null, now), null);
    assert.equal(parseRetryAfter("-5", now), null);
  });
});

describe("HostLimiter", () => {
  it("runs at most perHost tasks per host, others unaffected, in order", async () => {
    const limiter = new HostLimiter(2);
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const order: string[] = [];
    const task = (host: string, id: string) =>
      limiter.run(host, async () => {
        host = host.toLowerCase();
        running.set(host, (running.get(host) ?? 0) + 1);
        peak.set(host, Math.max(peak.get(host) ?? 0, running.get(host) as number));
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push(id);
        running.set(host, (running.get(host) as number) - 1);
      });
    await Promise.all([...Array.from({ length: 6 }, (_, index) => task("a.example", `a${index}`)), task("b.example", "b0"), task("B.EXAMPLE", "b1")]);
    assert.equal(peak.get("a.example"), 2);
    assert.equal(peak.get("b.example"), 2);
    assert.deepEqual(order.filter((id) => id.startsWith("a")), ["a0", "a1", "a2", "a3", "a4", "a5"]);
    assert.equal(limiter.activeFor("a.example"), 0);
  });

  it("frees the slot when a task fails", async () => {
    const limiter = new HostLimiter(1);
    await assert.rejects(limiter.run("x", async () => Promise.reject(new Error("boom"))));
    assert.equal(await limiter.run("x", async () => "next"), "next");
  });
});
