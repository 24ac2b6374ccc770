/** Hub discovery (WebSub section 4, websub.rocks 100-104), X-Hub-Signature checks and the public address rule. */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { parseFeed } from "../../lib/feeds/parse.js";
import { parseLinkHeader, pushTargets } from "../../lib/push/discover.js";
import { validSignature } from "../../lib/push/signature.js";
import { pushAddress } from "../../lib/push/address.js";

const FEED = "https://blog.example/feed";

async function targetsOf(body: string, link: string | null = null, url = FEED) {
  const parsed = await parseFeed(body, { url });
  return pushTargets({ url, link, push: parsed.feed.push });
}

const atom = (head: string) =>
  `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:x</id><updated>2026-01-01T00:00:00Z</updated>${head}` +
  `<entry><id>urn:e</id><title>e</title><updated>2026-01-01T00:00:00Z</updated></entry></feed>`;
const rss = (head: string) =>
  `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title><link>https://blog.example/</link>` +
  `<description>d</description>${head}<item><guid>g</guid><title>i</title></item></channel></rss>`;

describe("hub discovery", () => {
  it("reads hub and self from the Link header (100)", async () => {
    const targets = await targetsOf(atom(""), '<https://hub.example/>; rel="hub", </topic>; rel="self"');
    assert.deepEqual(targets.websub, { hub: "https://hub.example/", topic: "https://blog.example/topic" });
  });

  it("reads an HTML page's <link rel=hub> (101)", async () => {
    const page =
      `<!doctype html><html><head><title>p</title><link rel="hub" href="https://hub.example/h"><link rel="self" href="https://blog.example/page"></head>` +
      `<body><div class="h-feed"><div class="h-entry"><a class="u-url p-name" href="/a">A</a></div></div></body></html>`;
    assert.deepEqual((await targetsOf(page, null, "https://blog.example/page?x")).websub, {
      hub: "https://hub.example/h",
      topic: "https://blog.example/page",
    });
  });

  it("reads Atom's link rel=hub and rel=self (102)", async () => {
    const targets = await targetsOf(
      atom('<link rel="self" href="https://blog.example/self.atom"/><link rel="hub" href="https://hub.example/a"/>'),
    );
    assert.deepEqual(targets.websub, { hub: "https://hub.example/a", topic: "https://blog.example/self.atom" });
  });

  it("reads atom:link rel=hub inside RSS (103), the topic being the fetched URL without a self link", async () => {
    const targets = await targetsOf(rss('<atom:link rel="hub" href="https://hub.example/r"/>'));
    assert.deepEqual(targets.websub, { hub: "https://hub.example/r", topic: FEED });
  });

  it("prefers the Link header over the document (104)", async () => {
    const targets = await targetsOf(
      atom('<link rel="hub" href="https://wrong.example/hub"/><link rel="self" href="https://wrong.example/self"/>'),
      '<https://right.example/hub>; rel="hub", <https://right.example/self>; rel="self"',
    );
    assert.deepEqual(targets.websub, { hub: "https://right.example/hub", topic: "https://right.example/self" });
  });

  it("finds nothing in a feed that announces nothing, and ignores hubs that are not http(s)", async () => {
    assert.deepEqual(await targetsOf(atom("")), { websub: null, cloud: null });
    assert.equal((await targetsOf(atom('<link rel="hub" href="ftp://hub.example/"/>'))).websub, null);
  });

  it("reads an RSS <cloud> using http-post, and ignores xml-rpc clouds", async () => {
    const cloud = (protocol: string) =>
      `<cloud domain="rpc.example.net" port="5337" path="/pleaseNotify" registerProcedure="" protocol="${protocol}"/>`;
    assert.deepEqual((await targetsOf(rss(cloud("http-post")))).cloud, {
      endpoint: "http://rpc.example.net:5337/pleaseNotify",
      feedUrl: FEED,
    });
    assert.equal((await targetsOf(rss(cloud("xml-rpc")))).cloud, null);
  });

  it("parses Link headers with several values, parameters and odd spacing", () => {
    const rels = parseLinkHeader(
      '<a>;rel=hub , <https://x.example/b>; title="a, b"; rel="self alternate", <c>; rel=HUB',
      "https://base.example/dir/",
    );
    assert.deepEqual(rels.get("hub"), ["https://base.example/dir/a", "https://base.example/dir/c"]);
    assert.deepEqual(rels.get("self"), ["https://x.example/b"]);
    assert.deepEqual(rels.get("alternate"), ["https://x.example/b"]);
    assert.equal(parseLinkHeader(null, FEED).size, 0);
  });

  it("reads a hostile Link header in one pass (unclosed targets, endless parameters), keeping the values that parse", async () => {
    // Each of these once cost time in the square of its length (a 15 KB header: a third of a second per fetch;
    // these: minutes). Parsed in a worker that is stopped after a generous deadline, so a relapse fails instead of hanging.
    const hostile = [
      "<".repeat(100_000),
      "<>".repeat(100_000),
      `<a>${"; x".repeat(100_000)}`,
      `<a>; rel="${" ".repeat(200_000)}`,
    ];
    const headers = [
      ...hostile.map((tail) => `<https://hub.example/>; rel=hub, ${tail}`),
      Array.from({ length: 20_000 }, (_, n) => `<https://x.example/${n}>; rel="alternate"`).join(", "),
    ];
    const results = await parseInWorker(headers, 20_000);
    for (const result of results.slice(0, hostile.length)) assert.deepEqual(result.hub, ["https://hub.example/"]);
    assert.equal(results.at(-1)?.alternate?.length, 20_000);
  });
});

/** parseLinkHeader of each header, in a worker thread stopped after `deadline` ms (the test then fails). */
async function parseInWorker(headers: string[], deadline: number): Promise<Array<Record<string, string[]>>> {
  const tsxApi = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const module = JSON.stringify(new URL("../../lib/push/discover.ts", import.meta.url).href);
  const worker = new Worker(
    `const { parentPort, workerData } = await import("node:worker_threads");
     (await import(${tsxApi})).register();
     const { parseLinkHeader } = await import(${module});
     parentPort.postMessage(workerData.map((header) => Object.fromEntries(parseLinkHeader(header, "https://blog.example/feed"))));`,
    { eval: true, workerData: headers },
  );
  const timer = setTimeout(() => void worker.terminate(), deadline);
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", () => reject(new Error(`the headers were not parsed within ${deadline} ms`)));
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

describe("X-Hub-Signature", () => {
  const body = Buffer.from("<feed>body</feed>");
  const sign = (algorithm: string, secret = "secret", bytes: Uint8Array = body) =>
    `${algorithm}=${createHmac(algorithm, secret).update(bytes).digest("hex")}`;

  it("accepts sha1, sha256, sha384 and sha512 over the raw body", () => {
    for (const algorithm of ["sha1", "sha256", "sha384", "sha512"])
      assert.equal(validSignature(sign(algorithm), body, "secret"), true, algorithm);
    assert.equal(
      validSignature(sign("sha256").toUpperCase().replace("SHA256", "sha256"), body, "secret"),
      true,
      "hex in capitals",
    );
  });

  it("refuses a missing, malformed, truncated or wrong signature, and other algorithms", () => {
    assert.equal(validSignature(undefined, body, "secret"), false);
    assert.equal(validSignature("", body, "secret"), false);
    assert.equal(validSignature(sign("sha256", "other"), body, "secret"), false);
    assert.equal(validSignature(sign("sha256", "secret", Buffer.from("other body")), body, "secret"), false);
    assert.equal(validSignature(sign("sha256").slice(0, -2), body, "secret"), false);
    assert.equal(validSignature(sign("md5"), body, "secret"), false);
    assert.equal(validSignature(sign("sha256").replace("sha256=", "sha512="), body, "secret"), false);
    assert.equal(validSignature("sha256=zz", body, "secret"), false);
  });
});

describe("public address for callbacks", () => {
  const base = { push: true, mountPath: "/blogrollapi", allowPrivateNetworks: false };
  it("hangs callbacks under the public URL and the mount path", () => {
    assert.deepEqual(pushAddress({ ...base, publicUrl: "https://site.example/indiekit/" }), {
      ok: true,
      callbackBase: "https://site.example/indiekit/blogrollapi",
    });
  });
  it("says why there is none", () => {
    assert.deepEqual(pushAddress({ ...base, push: false, publicUrl: "https://site.example" }), {
      ok: false,
      reason: "disabled",
    });
    assert.deepEqual(pushAddress({ ...base, publicUrl: null }), { ok: false, reason: "no-public-url" });
    for (const url of [
      "http://localhost:3000",
      "http://127.0.0.1:3000",
      "http://10.1.2.3",
      "http://[::1]:8080",
      "http://box.local",
    ]) {
      assert.deepEqual(pushAddress({ ...base, publicUrl: url }), { ok: false, reason: "private-address" }, url);
    }
    assert.equal(pushAddress({ ...base, publicUrl: "http://127.0.0.1:3000", allowPrivateNetworks: true }).ok, true);
  });
});
