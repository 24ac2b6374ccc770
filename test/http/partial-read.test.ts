import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import { fetchUrl } from "../../lib/http/fetch.js";
import { open, rejectsWith } from "./helpers.js";

/** Writes `chunk` again and again for as long as the client reads (an endless page); resolves when the client hangs up. */
function endless(response: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    response.on("close", () => resolve());
    const pump = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once("drain", pump);
    };
    pump();
  });
}

describe("fetchUrl with partial: reading only the start of a body", () => {
  const hungUp: Record<string, Promise<void>> = {};
  let base = "";
  const server = createServer((request, response) => {
    const path = request.url ?? "";
    if (path === "/head-then-forever") {
      response.writeHead(200, { "content-type": "text/html" });
      response.write(`<html><head><title>t</title><link rel="icon" href="/i.png"></head><body>`);
      hungUp[path] = endless(response, "<div>".repeat(1000));
    } else if (path === "/nested-forever") {
      response.writeHead(200, { "content-type": "text/html" });
      hungUp[path] = endless(response, "<div>".repeat(1000));
    } else if (path === "/split-marker") {
      response.writeHead(200, { "content-type": "text/html" });
      response.write(`<head><link rel="icon" href="/i.png"></HE`);
      setTimeout(() => response.write("AD>"), 50);
      hungUp[path] = new Promise((resolve) => response.on("close", () => resolve()));
    } else if (path === "/gzip-head") {
      const gzip = zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH });
      response.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
      gzip.pipe(response);
      gzip.write(`<head><link rel="icon" href="/i.png"></head>`);
      hungUp[path] = new Promise((resolve) => response.on("close", () => resolve()));
    } else response.writeHead(404).end();
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const head = { ...open, maxBodySize: 64 * 1024, partial: { stopAt: ["</head", "<body"] } };

  it("stops at </head> of a page that never ends, and hangs up on the rest", async () => {
    const result = await fetchUrl(`${base}/head-then-forever`, head);
    const text = Buffer.from(result.body).toString();
    assert.match(text, /^<html><head>.*<\/head>/);
    assert.ok(result.body.byteLength < 64 * 1024, `kept ${result.body.byteLength} bytes`);
    await hungUp["/head-then-forever"];
  });

  it("cuts a page without a head's end at the cap instead of refusing it", async () => {
    const result = await fetchUrl(`${base}/nested-forever`, head);
    assert.equal(result.status, 200);
    assert.equal(result.body.byteLength, 64 * 1024);
    await hungUp["/nested-forever"];
    await rejectsWith(fetchUrl(`${base}/nested-forever`, { ...open, maxBodySize: 64 * 1024 }), "too_large");
  });

  it("finds a marker split across chunks, in any case, and after decompression", async () => {
    const split = await fetchUrl(`${base}/split-marker`, head);
    assert.match(Buffer.from(split.body).toString(), /<\/HEAD>$/);
    await hungUp["/split-marker"];
    const gzipped = await fetchUrl(`${base}/gzip-head`, head);
    assert.equal(Buffer.from(gzipped.body).toString(), `<head><link rel="icon" href="/i.png"></head>`);
    await hungUp["/gzip-head"];
  });
});
