/**
 * Loaded into a benchmark's child process (`--import`): after each full
 * collection of the main thread's heap it prints one line with the heap in
 * use (what the collection kept alive) and the process's RSS, so a
 * benchmark can tell retained memory from garbage awaiting collection.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

const MB = 1024 * 1024;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
    if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
    const live = getHeapStatistics().used_heap_size / MB;
    process.stderr.write(
      `gc-watch: full collection, heap in use ${live.toFixed(1)} MB, rss ${(process.memoryUsage.rss() / MB).toFixed(1)} MB\n`,
    );
  }
}).observe({ entryTypes: ["gc"] });
