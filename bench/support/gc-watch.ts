/**
 * Loaded into a benchmark's child process (`--import`): prints one line
 * after each full collection of the main thread's heap, and on SIGUSR2
 * collects in full and prints one line, each with the heap in use then
 * (what the collection kept alive) and the process's RSS, so a benchmark
 * can tell retained memory from garbage awaiting collection.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const MB = 1024 * 1024;
const report = (what: string) =>
  process.stderr.write(
    `gc-watch: ${what}, heap in use ${(getHeapStatistics().used_heap_size / MB).toFixed(1)} MB, rss ${(process.memoryUsage.rss() / MB).toFixed(1)} MB\n`,
  );

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
    if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) report("full collection");
  }
}).observe({ entryTypes: ["gc"] });

// The collector's own entry point, for this child only (a benchmark's, never the plugin's in use).
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
process.on("SIGUSR2", () => {
  collect();
  report("asked");
});
