/**
 * The server side of bench/live.ts, in a process of its own so its memory is
 * measured alone: the plugin in the standalone host (SQLite), scheduler off,
 * live limits as given, driven over IPC by the benchmark:
 *
 *   { cmd: "blog" }            -> { blogId }          a blog fetched once, posts an hour old
 *   { cmd: "post", blogId, uid } -> { storedAt }      stores a post as a fetch does (Date.now() after the write)
 *   { cmd: "bulk", blogId, count, size } -> {}       stores `count` posts with summaries of `size` characters
 *   { cmd: "memory" }          -> { rss, heapUsed, connections, unreadBytes, newest }  after two full garbage collections
 *
 * Started with --expose-gc; prints nothing, answers "ready" with its URLs and database file.
 */
import type { Storage } from "../../lib/storage/types.js";
import { startTestServer } from "../../test/support/server.js";
import { item } from "../../test/support/seed.js";
import { HOUR } from "../../lib/time/durations.js";

const limits = JSON.parse(process.env.LIVE_OPTIONS ?? "{}") as Record<string, unknown>;
const server = await startTestServer("sqlite", limits);
const storage: Storage = server.storage;
const gc = (globalThis as { gc?: () => void }).gc;

type Command =
  | { id: number; cmd: "blog" }
  | { id: number; cmd: "post"; blogId: string; uid: string }
  | { id: number; cmd: "bulk"; blogId: string; count: number; size: number }
  | { id: number; cmd: "memory" }
  | { id: number; cmd: "stop" };

process.on("message", (message: Command) => {
  void (async () => {
    switch (message.cmd) {
      case "blog": {
        const { blog } = await storage.blogs.upsertFromSource({
          feedUrl: `https://bench-${Date.now()}-${Math.random()}.example/feed.xml`,
          title: "Bench blog",
          source: "manual",
        });
        await storage.blogs.recordFetch(blog.id, {
          at: new Date(),
          status: "active",
          nextFetchAt: null,
          failureCount: 0,
          schedule: {
            recentPosts: [new Date(Date.now() - HOUR)],
            fetchInterval: HOUR,
            fetchReason: "schedule",
            waitUntil: null,
          },
        });
        return { blogId: blog.id };
      }
      case "post":
        await storage.items.upsertMany(message.blogId, [item(message.uid, new Date())], new Date());
        return { storedAt: Date.now() };
      case "bulk": {
        const summary = "x".repeat(message.size);
        for (let n = 0; n < message.count; n += 50) {
          const batch = Array.from({ length: Math.min(50, message.count - n) }, (_, i) =>
            item(`bulk-${Date.now()}-${n + i}`, new Date(), { summary }),
          );
          await storage.items.upsertMany(message.blogId, batch, new Date());
        }
        return {};
      }
      case "memory": {
        for (let round = 0; round < 2; round++) gc?.();
        const live = server.plugin.context.live;
        const { newest } = await storage.events.bounds();
        return {
          rss: process.memoryUsage.rss(),
          heapUsed: process.memoryUsage().heapUsed,
          connections: live.connections,
          unreadBytes: live.unreadBytes(),
          newest,
        };
      }
      case "stop":
        await server.close();
        setImmediate(() => process.exit(0));
        return {};
    }
  })().then((reply) => process.send?.({ id: message.id, ...reply }));
});

process.send?.({ id: 0, ready: true, api: server.api, databasePath: server.plugin.settings.databasePath });
