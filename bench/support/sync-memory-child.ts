/**
 * One measured first sync, compiled and run by bench/sync-memory.ts in a
 * plain `node` process of its own, so that its memory is the product's alone:
 * the plugin as the standalone server runs it (its HTTP server listening,
 * SQLite in a temporary folder), N blogs added, then one whole sync of them
 * from the parent's fixture. It prints one line of JSON: RSS and the V8 heap
 * before the sync, the peak RSS the kernel recorded (VmHWM), the main
 * thread's memory sampled at that peak, and the live heap after the sync.
 *
 * With `--api-probe`, `/api/items?limit=50` and `/api/blogs` are asked back
 * to back from another process during the sync (as bench/scale.ts does);
 * `--options <JSON>` adds plugin options (say `{"siteIcons":false}`).
 *
 *   node --expose-gc sync-memory-child.js <file of feed URLs, one a line> [--main-thread-parse] [--api-probe] [--options <JSON>]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import BlogrollEndpoint from "../../index.js";
import { createStandaloneApp } from "../../lib/standalone/app.js";
import { createSyncRunner } from "../../lib/sync/run.js";
import { createGuardedAgent } from "../../lib/http/guarded-agent.js";
import { startApiProber } from "./api-prober.js";

const MB = 1024 * 1024;
const round = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
const collect = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  gc();
  gc();
};
/** This process's peak RSS so far, as the kernel counts it. */
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
const figures = (usage: NodeJS.MemoryUsage) => ({
  rssMb: round(usage.rss),
  heapUsedMb: round(usage.heapUsed),
  heapTotalMb: round(usage.heapTotal),
  externalMb: round(usage.external),
  arrayBuffersMb: round(usage.arrayBuffers),
});

const feedUrls = readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean);
const optionsAt = process.argv.indexOf("--options");
const extraOptions = optionsAt > 0 ? (JSON.parse(process.argv[optionsAt + 1]) as Record<string, unknown>) : {};
const folder = mkdtempSync(path.join(tmpdir(), "blogroll-memory-"));
const plugin = new BlogrollEndpoint(
  {
    scheduler: false,
    allowPrivateNetworks: true,
    mongodbUrl: null,
    databasePath: path.join(folder, "blogroll.db"),
    ...extraOptions,
  },
  { info: () => undefined, warn: () => undefined, error: () => undefined },
);
const { app } = await createStandaloneApp(plugin, { adminToken: "memory-bench-admin-token" });
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const storage = await plugin.getStorage();
for (const [index, feedUrl] of feedUrls.entries()) {
  await storage.blogs.upsertFromSource({
    feedUrl,
    title: `Blog ${index}`,
    source: "manual",
    category: `C${index % 50}`,
  });
}
const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}${plugin.mountPath}/api`;
// The API asked once, as a visitor would, so its routes are loaded as in a server that has served.
await fetch(`${api}/items?limit=50`).then((response) => response.arrayBuffer());
collect();
const before = figures(process.memoryUsage());
const peakBefore = peakRss();

const settings = plugin.settings;
const run = createSyncRunner({
  options: settings,
  // The fixture's host names all lead to loopback.
  dispatcher: createGuardedAgent({
    allowPrivateNetworks: true,
    connections: settings.perHostConcurrency,
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
  }),
  onFeedRead: plugin.context.push.observe,
  pushSignal: plugin.context.push,
  parseInWorkers: !process.argv.includes("--main-thread-parse"),
});
let peakSeen = 0;
let atPeak = process.memoryUsage();
/** The kernel's split of RSS when it peaked: anonymous memory (heaps, malloc) and mapped files (the node binary). */
let statusAtPeak = "";
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  if (usage.rss <= peakSeen) return;
  [peakSeen, atPeak] = [usage.rss, usage];
  statusAtPeak = readFileSync("/proc/self/status", "utf8");
}, 50);
const prober = process.argv.includes("--api-probe")
  ? await startApiProber({ items: `${api}/items?limit=50`, blogs: `${api}/blogs` }, "sync")
  : null;
const started = performance.now();
const cpu = process.cpuUsage();
const stats = await run(storage, { signal: new AbortController().signal, everyone: true, progress: () => undefined });
const seconds = (performance.now() - started) / 1000;
const cpuUsed = process.cpuUsage(cpu);
clearInterval(sampler);
const probed = await prober?.stop();
collect();
const after = figures(process.memoryUsage());
console.log(
  JSON.stringify({
    blogs: stats.blogs,
    itemsAdded: stats.items.added,
    seconds: Math.round(seconds * 10) / 10,
    cpuSeconds: Math.round((cpuUsed.user + cpuUsed.system) / 1e5) / 10,
    ...(probed ? { api: probed.sync } : {}),
    before,
    peakBeforeSyncMb: round(peakBefore),
    peakRssMb: round(peakRss()),
    atSampledPeak: figures(atPeak),
    after,
    kernelAtPeak: Object.fromEntries(
      [...statusAtPeak.matchAll(/(RssAnon|RssFile):\s+(\d+) kB/g)].map((match) => [
        match[1],
        round(Number(match[2]) * 1024),
      ]),
    ),
  }),
);
server.closeAllConnections();
server.close();
await plugin.destroy();
rmSync(folder, { recursive: true, force: true });
