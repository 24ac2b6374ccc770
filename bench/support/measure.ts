/**
 * Small measuring tools shared by the benchmarks: percentiles, a peak-RSS
 * sampler, a latency prober, and the result record every script prints and
 * writes as JSON.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from "node:perf_hooks";

/** One target of the issue, checked against what was measured. */
export interface TargetCheck {
  name: string;
  value: number;
  /** "<=" or ">=" `limit`. */
  op: "<=" | ">=";
  limit: number;
  unit: string;
  pass: boolean;
}

export interface BenchResult {
  scenario: string;
  /** Figures worth reporting, already rounded. */
  figures: Record<string, number | string | null>;
  targets: TargetCheck[];
  notes: string[];
}

export function target(name: string, value: number, op: "<=" | ">=", limit: number, unit: string): TargetCheck {
  return { name, value: round(value), op, limit, unit, pass: op === "<=" ? value <= limit : value >= limit };
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The p-th percentile (0–100) of values, nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const MB = 1024 * 1024;

/** Samples this process's RSS every `everyMs` until stopped; reports start, peak and end in MB. */
export function sampleRss(everyMs = 50) {
  const start = process.memoryUsage.rss();
  let peak = start;
  let atPeak = process.memoryUsage();
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) {
      peak = rss;
      atPeak = process.memoryUsage();
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const end = process.memoryUsage.rss();
      peak = Math.max(peak, end);
      return {
        startMb: round(start / MB),
        peakMb: round(peak / MB),
        endMb: round(end / MB),
        /** The main thread's V8 heap and off-heap memory when RSS peaked (worker heaps are in RSS only). */
        atPeak: `heap ${round(atPeak.heapTotal / MB)} MB, external ${round(atPeak.external / MB)} MB, array buffers ${round(atPeak.arrayBuffers / MB)} MB`,
      };
    },
  };
}

/** Event-loop delay over a stretch of time, in ms. */
export function watchEventLoop(resolutionMs = 10) {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      return {
        p50: round(histogram.percentile(50) / 1e6),
        p99: round(histogram.percentile(99) / 1e6),
        max: round(histogram.max / 1e6),
      };
    },
  };
}

/** Garbage collection pauses of this process's main thread over a stretch of time: by kind, count, total, longest (ms). */
export function watchGc() {
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
  };
  const pauses: Record<string, number[]> = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? "other";
      (pauses[kind] ??= []).push(entry.duration);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop(): Record<string, { count: number; totalMs: number; maxMs: number; over20: number }> {
      observer.disconnect();
      return Object.fromEntries(
        Object.entries(pauses).map(([kind, durations]) => [
          kind,
          {
            count: durations.length,
            totalMs: round(durations.reduce((sum, ms) => sum + ms, 0)),
            maxMs: round(Math.max(...durations)),
            over20: durations.filter((ms) => ms >= 20).length,
          },
        ]),
      );
    },
  };
}

/**
 * Requests `url` one after another (with `pauseMs` between) until stopped,
 * timing each; returns latencies in ms and failures.
 */
export function probeLatency(url: string, pauseMs = 20) {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.ok) latencies.push(performance.now() - started);
        else failures++;
      } catch {
        failures++;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return {
        count: latencies.length,
        failures,
        p50: round(percentile(latencies, 50)),
        p99: round(percentile(latencies, 99)),
        max: round(Math.max(...latencies)),
      };
    },
  };
}

/** CPU time (user + system, every thread of the process) since `from`, in seconds. */
export function cpuSeconds(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return round((used.user + used.system) / 1e6, 2);
}

/**
 * Prints the results and writes them as JSON: to BENCH_RESULT when set
 * (bench/run-all.ts), else to bench/results/<script>.json.
 */
export function report(...results: BenchResult[]): void {
  for (const result of results) {
    console.log(`\n== ${result.scenario}`);
    for (const [name, value] of Object.entries(result.figures)) console.log(`  ${name}: ${value}`);
    for (const check of result.targets) {
      console.log(
        `  [${check.pass ? "PASS" : "MISS"}] ${check.name}: ${check.value} ${check.unit} (target ${check.op} ${check.limit})`,
      );
    }
    for (const note of result.notes) console.log(`  note: ${note}`);
  }
  const file =
    process.env.BENCH_RESULT ?? path.join(RESULTS_FOLDER, `${path.basename(process.argv[1] ?? "bench", ".ts")}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(`  (results written to ${path.relative(process.cwd(), file)})`);
}

/** Where scripts and run-all.ts leave their JSON (ignored by git). */
export const RESULTS_FOLDER = fileURLToPath(new URL("../results/", import.meta.url));
