/**
 * API latency measured from outside the measured process: a child process
 * requests each URL back to back (one loop per URL, `pauseMs` between
 * requests), so the prober's own CPU and memory never count as the
 * server's. Latencies are filed under the current phase ("first sync",
 * "idle", …), which the parent switches with `phase()`.
 */
import { fork, type ChildProcess } from "node:child_process";
import { percentile, round } from "./measure.js";

export interface LatencyFigures {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/** By phase, then by URL label. */
export type ProbeReport = Record<string, Record<string, LatencyFigures>>;

export interface ApiProber {
  /** Files the latencies from now on under `name` (requests in flight count where they end). */
  phase(name: string): Promise<void>;
  /** Stops probing and returns every phase's figures. */
  stop(): Promise<ProbeReport>;
}

/** Starts probing `urls` (label → URL) in a child process; the first phase is `initialPhase`. */
export async function startApiProber(
  urls: Record<string, string>,
  initialPhase: string,
  pauseMs = 20,
): Promise<ApiProber> {
  const child = fork(new URL(import.meta.url), ["--prober-child", JSON.stringify({ urls, initialPhase, pauseMs })], {
    execArgv: import.meta.url.endsWith(".ts") ? ["--import", "tsx"] : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await reply(child);
  return {
    async phase(name) {
      child.send({ phase: name });
      await reply(child);
    },
    async stop() {
      child.send({ stop: true });
      const report = (await reply(child)) as ProbeReport;
      child.disconnect();
      return report;
    },
  };
}

function reply(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`API prober exited (${code})`));
    child.once("exit", onExit);
    child.once("message", (message) => {
      child.off("exit", onExit);
      resolve(message);
    });
  });
}

function runChild(settings: { urls: Record<string, string>; initialPhase: string; pauseMs: number }): void {
  const samples: Record<string, Record<string, { latencies: number[]; failures: number }>> = {};
  let phase = settings.initialPhase;
  let running = true;
  const bucket = (label: string) => {
    samples[phase] ??= {};
    return (samples[phase][label] ??= { latencies: [], failures: 0 });
  };
  const loops = Object.entries(settings.urls).map(async ([label, url]) => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.ok) bucket(label).latencies.push(performance.now() - started);
        else bucket(label).failures++;
      } catch {
        bucket(label).failures++;
      }
      await new Promise((resolve) => setTimeout(resolve, settings.pauseMs));
    }
  });
  process.on("message", (message: { phase?: string; stop?: boolean }) => {
    if (message.phase) {
      phase = message.phase;
      process.send!("ok");
    } else if (message.stop) {
      running = false;
      void Promise.all(loops).then(() => {
        const report: ProbeReport = {};
        for (const [name, byLabel] of Object.entries(samples)) {
          report[name] = {};
          for (const [label, { latencies, failures }] of Object.entries(byLabel)) {
            report[name][label] = {
              count: latencies.length,
              failures,
              p50: round(percentile(latencies, 50)),
              p99: round(percentile(latencies, 99)),
              max: round(latencies.length > 0 ? Math.max(...latencies) : Number.NaN),
            };
          }
        }
        process.send!(report);
      });
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send!("ready");
}

if (process.argv[2] === "--prober-child") runChild(JSON.parse(process.argv[3]) as Parameters<typeof runChild>[0]);
