import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { decodeBody, encodedCap } from "../../lib/http/content-coding.js";
import { FEED_ACCEPT, fetchUrl, USER_AGENT, userAgentOf } from "../../lib/http/fetch.js";
import { packageJson } from "../../lib/package-root.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { open, rejectsWith, startRawServer } from "./helpers.js";
import { DAY } from "../../lib/time/durations.js";

const text = (body: Uint8Array) => Buffer.from(body).toString("utf8");

describe("fetchUrl: answers", () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer();
    site.route(
      "/feed",
      respond.conditional("<rss/>", {
        etag: '"v1"',
        lastModified: "Mon, 23 Nov 2026 08:00:00 GMT",
        headers: { "content-type": "application/rss+xml; charset=utf-8" },
      }),
    );
    site.route("/echo", (request, response) => void response.end(JSON.stringify(request.headers)));
    site.route("/gone", respond.text("gone", { status: 410 }));
    site.route(
      "/moved-base",
      respond.text("<feed/>", { headers: { "content-location": "/elsewhere/feed.xml", "content-language": "de, en" } }),
    );
  });
  after(() => site.close());

  it("returns body, type and validators of a 200", async () => {
    const result = await fetchUrl(`${site.url}/feed`, open);
    assert.equal(result.status, 200);
    assert.equal(text(result.body), "<rss/>");
    assert.equal(result.url, `${site.url}/feed`);
    assert.equal(result.contentType, "application/rss+xml; charset=utf-8");
    assert.equal(result.etag, '"v1"');
    assert.equal(result.lastModified, "Mon, 23 Nov 2026 08:00:00 GMT");
    assert.equal(result.notModified, false);
    assert.equal(result.permanentRedirect, null);
    assert.deepEqual(result.redirects, []);
    assert.equal(result.retryAfter, null);
    assert.equal(result.bytesReceived, 6);
    assert.equal(result.contentLocation, null);
    assert.equal(result.contentLanguage, null);
  });

  it("passes Content-Location and Content-Language on as sent (parseFeed reads them)", async () => {
    const result = await fetchUrl(`${site.url}/moved-base`, open);
    assert.equal(result.contentLocation, "/elsewhere/feed.xml");
    assert.equal(result.contentLanguage, "de, en");
  });

  it("names this package in its User-Agent, and its homepage only when the package has one", () => {
    assert.equal(USER_AGENT, userAgentOf(packageJson));
    // Never another project's address in place of ours (site owners would write to the wrong people).
    assert.equal(
      userAgentOf({ name: "indiekit-endpoint-blogroll", version: "1.2.3" }),
      "indiekit-endpoint-blogroll/1.2.3 (blogroll aggregator)",
    );
    assert.equal(
      userAgentOf({ name: "indiekit-endpoint-blogroll", version: "1.2.3", homepage: "https://blogroll.example/" }),
      "indiekit-endpoint-blogroll/1.2.3 (blogroll aggregator; +https://blogroll.example/)",
    );
  });

  it("sends the User-Agent, the feed Accept and the encodings it decodes", async () => {
    const sent = JSON.parse(text((await fetchUrl(`${site.url}/echo`, open)).body));
    assert.equal(sent["user-agent"], USER_AGENT);
    assert.equal(sent.accept, FEED_ACCEPT);
    assert.equal(sent["accept-encoding"], "gzip, deflate, br");
    assert.equal(sent["if-none-match"], undefined);
    assert.equal(sent["if-modified-since"], undefined);
    const custom = JSON.parse(text((await fetchUrl(`${site.url}/echo`, { ...open, accept: "text/x-opml" })).body));
    assert.equal(custom.accept, "text/x-opml");
  });

  it("sends If-None-Match / If-Modified-Since and reports 304 as not modified, without a body", async () => {
    const sent = JSON.parse(
      text(
        (await fetchUrl(`${site.url}/echo`, { ...open, etag: '"x"', lastModified: "Sun, 01 Nov 2026 00:00:00 GMT" }))
          .body,
      ),
    );
    assert.equal(sent["if-none-match"], '"x"');
    assert.equal(sent["if-modified-since"], "Sun, 01 Nov 2026 00:00:00 GMT");

    const byEtag = await fetchUrl(`${site.url}/feed`, { ...open, etag: '"v1"' });
    assert.equal(byEtag.status, 304);
    assert.equal(byEtag.notModified, true);
    assert.equal(byEtag.body.length, 0);
    assert.equal(byEtag.etag, '"v1"');
    const byDate = await fetchUrl(`${site.url}/feed`, { ...open, lastModified: "Mon, 23 Nov 2026 08:00:00 GMT" });
    assert.equal(byDate.notModified, true);
    const changed = await fetchUrl(`${site.url}/feed`, { ...open, etag: '"v0"' });
    assert.equal(changed.status, 200);
    assert.equal(changed.notModified, false);
  });

  it("returns error statuses with their body for the caller to judge", async () => {
    const gone = await fetchUrl(`${site.url}/gone`, open);
    assert.equal(gone.status, 410);
    assert.equal(text(gone.body), "gone");
  });

  it("refuses what is not an http(s) URL", async () => {
    for (const url of [
      "file:///etc/passwd",
      "gopher://example.org/",
      "data:text/plain,hi",
      "ftp://example.org/",
      "javascript:alert(1)",
      "not a url",
      "http://user:pw@example.org/",
    ]) {
      await rejectsWith(fetchUrl(url, open), "bad_url");
    }
  });

  it("httpsOnly: refuses a plain-http address before connecting", async () => {
    const before = site.hits("/feed");
    await rejectsWith(fetchUrl(`${site.url}/feed`, { ...open, httpsOnly: true }), "bad_url");
    assert.equal(site.hits("/feed"), before);
  });
});

describe("fetchUrl: Retry-After", () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer();
  });
  after(() => site.close());

  /** Fetches with Retry-After `value` and returns the parsed time with the instants around the request. */
  async function retryAfter(value: string): Promise<{ at: number; before: number; after: number }> {
    site.route("/busy", respond.text("busy", { status: 503, headers: { "retry-after": value } }));
    const before = Date.now();
    const result = await fetchUrl(`${site.url}/busy`, open);
    const after = Date.now();
    assert.equal(result.status, 503);
    assert.ok(result.retryAfter instanceof Date, `no date for ${value}`);
    return { at: result.retryAfter.getTime(), before, after };
  }

  it("reads seconds", async () => {
    const { at, before, after } = await retryAfter("120");
    assert.ok(at >= before + 120_000 && at <= after + 120_000, String(at - before));
  });

  it("reads an HTTP date", async () => {
    const target = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const { at } = await retryAfter(target.toUTCString());
    assert.equal(at, target.getTime());
  });

  it("turns a date in the past into now", async () => {
    const { at, before, after } = await retryAfter("Wed, 21 Oct 2015 07:28:00 GMT");
    assert.ok(at >= before && at <= after);
  });

  it("clamps huge waits to one day", async () => {
    for (const value of ["999999999", "Fri, 31 Dec 9999 23:59:59 GMT"]) {
      const { at, before, after } = await retryAfter(value);
      assert.ok(at >= before + DAY && at <= after + DAY, value);
    }
  });
});

describe("fetchUrl: compression and size cap", () => {
  let site: FixtureServer;
  // A gzip stream may hold many members; 2000 copies of 1 MiB of zeros make 2 GiB from ~2 MB on the wire.
  const member = zlib.gzipSync(Buffer.alloc(1024 * 1024));
  const bomb = Buffer.concat(Array.from({ length: 2000 }, () => member));
  before(async () => {
    site = await startFixtureServer();
    site.route("/gzip", respond.compressed("gzipped body", "gzip"));
    site.route("/deflate", respond.compressed("deflated body", "deflate"));
    site.route("/br", respond.compressed("brotli body", "br"));
    site.route("/stacked", (_request, response) => {
      response.writeHead(200, { "content-encoding": "deflate, gzip" }).end(zlib.gzipSync(zlib.deflateSync("twice")));
    });
    site.route("/two-members", (_request, response) => {
      response
        .writeHead(200, { "content-encoding": "gzip" })
        .end(Buffer.concat([zlib.gzipSync("one "), zlib.gzipSync("two")]));
    });
    site.route(
      "/bad-gzip",
      (_request, response) => void response.writeHead(200, { "content-encoding": "gzip" }).end("not gzip at all"),
    );
    site.route(
      "/unknown-coding",
      (_request, response) => void response.writeHead(200, { "content-encoding": "zstd" }).end("?"),
    );
    site.route("/bomb", (_request, response) => void response.writeHead(200, { "content-encoding": "gzip" }).end(bomb));
    site.route("/big", respond.text(Buffer.alloc(200_000, 0x62)));
    // Stacked codings: ~200 bytes on the wire, 50 MiB of zeros after both are undone.
    const doubleBomb = zlib.gzipSync(zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024)));
    site.route(
      "/double-bomb",
      (_request, response) => void response.writeHead(200, { "content-encoding": "gzip, gzip" }).end(doubleBomb),
    );
  });
  after(() => site.close());

  /** Each encoded path of the site and the text its body decodes to. */
  const ENCODED = [
    ["/gzip", "gzipped body"],
    ["/deflate", "deflated body"],
    ["/br", "brotli body"],
    ["/stacked", "twice"],
    ["/two-members", "one two"],
  ];

  it("decodes gzip, deflate, br and stacked codings, counting wire bytes", async () => {
    for (const [path, expected] of ENCODED) {
      const result = await fetchUrl(`${site.url}${path}`, open);
      assert.equal(text(result.body), expected, path);
      assert.notEqual(result.bytesReceived, result.body.length, `${path}: wire bytes are the compressed ones`);
    }
    const gzip = await fetchUrl(`${site.url}/gzip`, open);
    assert.equal(gzip.bytesReceived, zlib.gzipSync("gzipped body").length);
  });

  it("reports bad or unknown compression as a network error", async () => {
    const bad = await rejectsWith(fetchUrl(`${site.url}/bad-gzip`, open), "network");
    assert.doesNotMatch(bad.message, /\n\s+at /, "no stack in the message");
    await rejectsWith(fetchUrl(`${site.url}/unknown-coding`, open), "network");
  });

  it("aborts a gzip bomb at the cap on the decompressed size, with memory bounded by the cap", async () => {
    global.gc?.();
    const before = process.memoryUsage();
    await rejectsWith(fetchUrl(`${site.url}/bomb`, { ...open, maxBodySize: 5_000_000 }), "too_large");
    const after = process.memoryUsage();
    // 2 GiB inflated whole could not fit in these bounds; the cap (5 MB) plus buffers does.
    assert.ok(after.rss - before.rss < 200 * 1024 * 1024, `rss grew by ${after.rss - before.rss}`);
    assert.ok(
      after.arrayBuffers - before.arrayBuffers < 100 * 1024 * 1024,
      `buffers grew by ${after.arrayBuffers - before.arrayBuffers}`,
    );
  });

  it("reports a bomb behind stacked codings as too large, like a single one", async () => {
    const error = await rejectsWith(
      fetchUrl(`${site.url}/double-bomb`, { ...open, maxBodySize: 5_000_000 }),
      "too_large",
    );
    assert.match(error.message, /larger than 5000000 bytes/);
  });

  it("leaves a body compressed when asked, for decodeBody to undo under the same cap with the same errors", async () => {
    const leave = { ...open, leaveEncoded: (type: string | null) => type !== "text/html" };
    for (const [path, expected] of ENCODED) {
      const result = await fetchUrl(`${site.url}${path}`, leave);
      assert.ok(result.encoding, path);
      assert.equal(result.body.length, result.bytesReceived, `${path}: the bytes as they came`);
      assert.equal(text(decodeBody(result.body, result.encoding, open.maxBodySize)), expected, path);
    }
    const plain = await fetchUrl(`${site.url}/big`, { ...leave, maxBodySize: 200_000 });
    assert.equal(plain.encoding, undefined, "nothing to undo");
    const bad = await fetchUrl(`${site.url}/bad-gzip`, leave);
    assert.throws(() => decodeBody(bad.body, bad.encoding!, open.maxBodySize), { code: "network" });
    // 2 MB on the wire, within what 5 MB may take compressed; 2 GiB once decoded, refused at the cap.
    const bomb = await fetchUrl(`${site.url}/bomb`, { ...leave, maxBodySize: 5_000_000 });
    assert.throws(() => decodeBody(bomb.body, bomb.encoding!, 5_000_000), { code: "too_large" });
    const double = await fetchUrl(`${site.url}/double-bomb`, { ...leave, maxBodySize: 5_000_000 });
    assert.throws(() => decodeBody(double.body, double.encoding!, 5_000_000), {
      code: "too_large",
      message: /larger than 5000000 bytes/,
    });
    // What cannot be the compressed form of content within the cap is not read past it.
    await rejectsWith(fetchUrl(`${site.url}/bomb`, { ...leave, maxBodySize: 1_000_000 }), "too_large");
  });

  it("decodes content exactly at the cap and refuses a byte more", () => {
    const content = randomBytes(50_000);
    for (const coding of ["gzip", "deflate", "br"] as const) {
      const encoded =
        coding === "gzip"
          ? zlib.gzipSync(content)
          : coding === "deflate"
            ? zlib.deflateSync(content)
            : zlib.brotliCompressSync(content);
      assert.ok(encoded.length <= encodedCap(50_000), `${coding}: incompressible content fits what it may take`);
      assert.deepEqual(Buffer.from(decodeBody(encoded, [coding], 50_000)), content, coding);
      assert.throws(() => decodeBody(encoded, [coding], 49_999), { code: "too_large" }, coding);
    }
  });

  it("aborts a plain body over the cap and accepts one exactly at it", async () => {
    const error = await rejectsWith(fetchUrl(`${site.url}/big`, open), "too_large");
    assert.match(error.message, /100000 bytes/);
    const fits = await fetchUrl(`${site.url}/big`, { ...open, maxBodySize: 200_000 });
    assert.equal(fits.body.length, 200_000);
  });
});

// The suite timeout turns a regression that hangs (a read nobody ends) into a failure.
describe("fetchUrl: deadline, aborts and broken responses", { timeout: 15_000 }, () => {
  let site: FixtureServer;
  const gzipped = zlib.gzipSync(Buffer.alloc(50_000, 0x61));
  before(async () => {
    site = await startFixtureServer();
    site.route("/trickle", respond.trickle("<", 100));
    site.route("/gzip-trickle", (_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip" });
      let at = 0;
      const timer = setInterval(() => response.write(gzipped.subarray(at, ++at)), 100);
      response.on("close", () => clearInterval(timer));
    });
    site.route("/slow-headers", respond.delayed(5000, respond.text("late")));
    site.route("/slow-redirect", respond.delayed(300, respond.redirect("/trickle")));
    site.route("/gzip-reset", (request, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-length": gzipped.length });
      response.write(gzipped.subarray(0, 30));
      setTimeout(() => request.socket.destroy(), 30);
    });
  });
  after(() => site.close());

  it("fails a body that trickles one byte at a time at the deadline", async () => {
    await rejectsWith(fetchUrl(`${site.url}/trickle`, { ...open, timeout: 500 }), "timeout");
    await rejectsWith(fetchUrl(`${site.url}/gzip-trickle`, { ...open, timeout: 500 }), "timeout");
  });

  it("fails a server that never sends headers at the deadline", async () => {
    await rejectsWith(fetchUrl(`${site.url}/slow-headers`, { ...open, timeout: 300 }), "timeout");
  });

  it("counts every redirect hop against the same deadline", async () => {
    await rejectsWith(fetchUrl(`${site.url}/slow-redirect`, { ...open, timeout: 700 }), "timeout");
  });

  it("stops when the caller aborts, before or during the exchange", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(fetchUrl(`${site.url}/trickle`, { ...open, signal: controller.signal }), "aborted");
    await rejectsWith(fetchUrl(`${site.url}/trickle`, { ...open, signal: AbortSignal.abort() }), "aborted");
  });

  it("reports a reset mid-body as a network error, compressed or not", async () => {
    const raw = await startRawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial");
      setTimeout(() => socket.resetAndDestroy(), 30);
    });
    try {
      await rejectsWith(fetchUrl(raw.url, open), "network");
    } finally {
      await raw.close();
    }
    await rejectsWith(fetchUrl(`${site.url}/gzip-reset`, open), "network");
  });

  it("reports a body shorter than its Content-Length as a network error", async () => {
    const raw = await startRawServer((socket) =>
      socket.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a few bytes"),
    );
    try {
      await rejectsWith(fetchUrl(raw.url, open), "network");
    } finally {
      await raw.close();
    }
  });

  it("reports garbage instead of HTTP and refused connections as network errors", async () => {
    const raw = await startRawServer((socket) => socket.end("SSH-2.0-OpenSSH\r\n"));
    const url = raw.url;
    try {
      await rejectsWith(fetchUrl(url, open), "network");
    } finally {
      await raw.close();
    }
    const refused = await rejectsWith(fetchUrl(url, open), "network");
    assert.match(refused.message, /refused/);
  });
});
