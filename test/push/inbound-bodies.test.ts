/**
 * What a callback does with the bytes it is sent: a signature is checked as
 * the body streams in; a fat ping is held once, in one buffer, and moved to
 * a parse worker rather than copied; a body too large to be a fat ping is
 * never held; past a blog's budget a notice is answered at once, without
 * storage, without reading its body, and (standalone) without Express.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { FAT_PING_MAX_BYTES, SenderLimits, type InboundBody } from "../../lib/push/sender-limits.js";
import { signatureCheck } from "../../lib/push/signature.js";
import { HINT_BURST } from "../../lib/schedule/hints.js";
import type { PushSubscription } from "../../lib/storage/types.js";
import { parsePoolStats } from "../../lib/sync/parse-pool.js";
import { startLocalHub, type LocalHub } from "../support/local-push.js";
import { trustLoopbackCertificate } from "../support/loopback-tls.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { startFeedServer, type FeedServer } from "../sync/feed-server.js";

const SECRET = "a secret the hub was given";
const sign = (body: Uint8Array, secret = SECRET) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

function atom(feedUrl: string, ids: string[], content = ""): string {
  return (
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:${feedUrl}</id><updated>2026-01-01T00:00:00Z</updated>` +
    `<link rel="self" href="${feedUrl}"/>` +
    ids
      .map(
        (id) =>
          `<entry><id>urn:${id}</id><title>${id}</title><updated>${new Date().toISOString()}</updated>${content}</entry>`,
      )
      .join("") +
    `</feed>`
  );
}

/** Writes `body` to `stream` in pieces of `size` bytes, a turn of the event loop apart; calls `each` after every piece. */
async function trickleInto(stream: PassThrough, body: Buffer, size: number, each: () => void = () => undefined) {
  for (let at = 0; at < body.length; at += size) {
    stream.write(body.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
    each();
  }
  stream.end();
}

describe("SenderLimits reads a callback's body as it arrives", () => {
  const limits = () => new SenderLimits({ maxBodySize: 10 * 1024 * 1024, readTimeout: 60_000, maxKeptBytes: 4 << 20 });

  it("checks the signature of a fat ping sent in many small chunks and keeps it in one buffer of its length", async () => {
    const body = Buffer.from(
      atom("https://blog.example/feed", ["one", "two"], `<content>${"x".repeat(60_000)}</content>`),
    );
    const senders = limits();
    const stream = new PassThrough();
    const check = signatureCheck(sign(body), SECRET)!;
    const reading = senders.read(stream, {
      keep: true,
      check,
      contentLength: String(body.length),
      contentEncoding: undefined,
    });
    const held: number[] = [];
    await trickleInto(stream, body, 1000, () => held.push(senders.heldBytes));
    const read = (await reading) as Extract<InboundBody, { outcome: "read" }>;
    assert.equal(read.outcome, "read");
    assert.equal(check.valid(), true);
    assert.deepEqual(read.bytes, body);
    // One buffer, exactly the body, owned by it alone: nothing else to copy before handing it over.
    assert.equal(read.bytes!.byteOffset, 0);
    assert.equal(read.bytes!.buffer.byteLength, body.length);
    assert.deepEqual([...new Set(held)], [body.length], "the body's length is held from its first chunk to its last");
    read.release();
    assert.equal(senders.heldBytes, 0);
  });

  it("refuses a body whose last chunk was tampered with", async () => {
    const body = Buffer.from(atom("https://blog.example/feed", ["one"]));
    const tampered = Buffer.from(body);
    tampered[tampered.length - 2] ^= 1;
    const stream = new PassThrough();
    const check = signatureCheck(sign(body), SECRET)!;
    const reading = limits().read(stream, {
      keep: true,
      check,
      contentLength: String(body.length),
      contentEncoding: undefined,
    });
    await trickleInto(stream, tampered, 100);
    assert.equal((await reading).outcome, "read");
    assert.equal(check.valid(), false);
  });

  it("never holds a byte of a body declared larger than a fat ping, and still checks its signature", async () => {
    const body = Buffer.alloc(Math.ceil(4.8 * 1024 * 1024), 0x20);
    assert.ok(body.length > FAT_PING_MAX_BYTES);
    const senders = limits();
    const stream = new PassThrough();
    const check = signatureCheck(sign(body), SECRET)!;
    const reading = senders.read(stream, {
      keep: true,
      check,
      contentLength: String(body.length),
      contentEncoding: undefined,
    });
    let most = 0;
    await trickleInto(stream, body, 64 * 1024, () => (most = Math.max(most, senders.heldBytes)));
    const read = (await reading) as Extract<InboundBody, { outcome: "read" }>;
    assert.equal(read.outcome, "read");
    assert.equal(read.bytes, null);
    assert.equal(most, 0, "nothing of it is held");
    assert.equal(check.valid(), true);
  });
});

describe("a callback's bodies over loopback", () => {
  let server: TestServer;
  let feeds: FeedServer;
  let hub: LocalHub;
  const blogs: Record<
    "fat" | "flooded",
    { feedUrl: string; ids: string[]; subscription: PushSubscription; callback: string }
  > = {} as never;

  before(async () => {
    trustLoopbackCertificate();
    hub = await startLocalHub({ tls: true });
    feeds = await startFeedServer();
    // A body the callback waits for is cut at the read deadline (fetchTimeout): short, so waiting shows as a 408.
    server = await startTestServer("sqlite", { fetchTimeout: 5000 });
    (server.plugin.settings as { publicUrl: string | null }).publicUrl = server.baseUrl;
    for (const name of ["fat", "flooded"] as const) {
      const feedUrl = `${feeds.origins[0]}/${name}.atom`;
      const ids = [`${name}-old`];
      feeds.route(`/${name}.atom`, (_request, response) => {
        const text = atom(feedUrl, ids).replace("<title>", `<link rel="hub" href="${hub.url}"/><title>`);
        response.writeHead(200, { "content-type": "application/atom+xml" }).end(text);
      });
      const verified = hub.verified(feedUrl);
      const { blog } = await server.storage.blogs.upsertFromSource({ feedUrl, title: name, source: "manual" });
      await server.plugin.context.scheduler.syncNow();
      await server.plugin.context.push.idle();
      assert.equal((await verified).outcome, "confirmed");
      const [subscription] = await server.storage.push.listByBlog(blog.id);
      blogs[name] = {
        feedUrl,
        ids,
        subscription,
        callback: `${server.baseUrl}${server.plugin.mountPath}/push/websub/${subscription.callbackToken}`,
      };
    }
  });
  after(async () => {
    await server.close();
    await feeds.close();
    await hub.close();
  });

  /** POSTs `body` signed with `signature` in pieces of `size` bytes; resolves with the status. */
  function postInPieces(callback: string, body: Buffer, signature: string, size: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(callback, {
        method: "POST",
        headers: {
          "content-type": "application/atom+xml",
          "content-length": String(body.length),
          "x-hub-signature": signature,
        },
      });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      void (async () => {
        for (let at = 0; at < body.length; at += size) {
          request.write(body.subarray(at, at + size));
          await new Promise((next) => setImmediate(next));
        }
        request.end();
      })();
    });
  }

  const titles = async (blogId: string) =>
    (
      (await (await server.get(`${server.api}/items?blog=${blogId}&limit=50`)).json()) as {
        items: Array<{ title: string }>;
      }
    ).items.map((item) => item.title);

  it("stores a fat ping sent in many small chunks, parsed in a worker that is handed the body rather than a copy", async () => {
    const fat = blogs.fat;
    const body = Buffer.from(atom(fat.feedUrl, ["chunked-1", "chunked-2", ...fat.ids]));
    const before = parsePoolStats();
    assert.equal(await postInPieces(fat.callback, body, sign(body, fat.subscription.secret!), 512), 200);
    await server.plugin.context.push.idle();
    const stats = parsePoolStats();
    assert.equal(stats.tasks - before.tasks, 1, "one parse, in the pool");
    assert.equal(stats.transferredBytes - before.transferredBytes, body.length, "the body moved to the worker whole");
    const stored = await titles(fat.subscription.blogId);
    assert.ok(stored.includes("chunked-1") && stored.includes("chunked-2"), stored.join(", "));
  });

  it("stores nothing from a fat ping whose last chunk was tampered with", async () => {
    const fat = blogs.fat;
    const body = Buffer.from(atom(fat.feedUrl, ["tampered-1", ...fat.ids]));
    const signature = sign(body, fat.subscription.secret!);
    body[body.length - 3] ^= 1;
    assert.equal(await postInPieces(fat.callback, body, signature, 512), 202);
    await server.plugin.context.push.idle();
    assert.ok(!(await titles(fat.subscription.blogId)).includes("tampered-1"));
  });

  it("past the budget answers notices at once: no storage read, no body read, no Express", async () => {
    const flooded = blogs.flooded;
    const secret = flooded.subscription.secret!;
    const empty = Buffer.alloc(0);
    const notify = async () => {
      const response = await fetch(flooded.callback, {
        method: "POST",
        headers: { "content-type": "application/atom+xml", "x-hub-signature": sign(empty, secret) },
      });
      await response.arrayBuffer();
      return response.status;
    };
    // The burst is fetched at once; the notice after it brings the next fetch forward: the blog is quiet until then.
    for (let n = 0; n <= HINT_BURST; n++) {
      assert.equal(await notify(), 202);
      await server.plugin.context.push.idle();
    }
    const hits = feeds.hits("/flooded.atom");

    const counts = { blogReads: 0, noted: 0, express: 0 };
    const { blogs: blogStore, push: pushStore } = server.storage;
    // Express calls its `handle` for every request it is given (not in its types).
    const app = server.app as unknown as { handle: (...args: unknown[]) => unknown };
    const [get, noteNotified, handle] = [blogStore.get, pushStore.noteNotified, app.handle];
    blogStore.get = (...args) => (counts.blogReads++, get.apply(blogStore, args));
    pushStore.noteNotified = (...args) => (counts.noted++, noteNotified.apply(pushStore, args));
    app.handle = (...args) => (counts.express++, handle.apply(app, args));
    try {
      const statuses: number[] = [];
      for (let n = 0; n < 50; n++) statuses.push(await notify());
      // 4.8 MB announced, 64 KB sent, then nothing until the answer: only an answer given unread comes back (else a 408).
      const big = Buffer.alloc(Math.ceil(4.8 * 1024 * 1024), 0x20);
      for (let n = 0; n < 3; n++) {
        statuses.push(
          await new Promise<number>((resolve, reject) => {
            const request = httpRequest(flooded.callback, {
              method: "POST",
              headers: {
                "content-type": "application/atom+xml",
                "content-length": String(big.length),
                "x-hub-signature": sign(big, secret),
              },
            });
            request.on("response", (response) => {
              response.resume();
              request.destroy();
              resolve(response.statusCode ?? 0);
            });
            request.on("error", reject);
            request.write(big.subarray(0, 64 * 1024));
          }),
        );
      }
      await server.plugin.context.push.idle();
      assert.deepEqual(statuses, Array(53).fill(202));
      assert.deepEqual(counts, { blogReads: 0, noted: 0, express: 0 });
      assert.equal(feeds.hits("/flooded.atom"), hits, "no fetch beyond the budget");
      // Everything else still goes through Express.
      await (await server.get(`${server.api}/status`)).arrayBuffer();
      assert.equal(counts.express, 1);
    } finally {
      blogStore.get = get;
      pushStore.noteNotified = noteNotified;
      app.handle = handle;
    }
  });
});
