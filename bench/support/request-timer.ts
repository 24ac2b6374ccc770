/**
 * Times single requests from a child process: the parent (which runs the
 * server and makes the changes) asks for one request at a time and gets
 * back how long it took, so neither the client's work nor its garbage
 * collections count as the server's, and the server's own pauses do.
 *
 * The time runs from sending the request to the body's last byte, as it
 * came over the wire: the child asks for the codings a browser accepts
 * (br, gzip) and counts the bytes without decompressing or keeping them
 * (node:http on a kept-alive connection). Reading bodies with fetch
 * instead, the child decompressed and held each 650 KB page, and the
 * collections that made (one request in a hundred, 1.5-5 ms, some inside
 * 304s) and its decompressing counted as the server's time.
 *
 * The child also collects its young garbage before each request, outside
 * the timing; collections that still land inside one are reported
 * (`clientGcMs`).
 */
import { fork, type ChildProcess } from "node:child_process";
import { Agent, get } from "node:http";
import { PerformanceObserver } from "node:perf_hooks";

export interface TimedResponse {
  ms: number;
  status: number;
  bytes: number;
  etag: string | null;
  /** The client's own garbage collection during the request (ms; 0 when none). */
  clientGcMs: number;
}

export interface RequestTimer {
  /** One GET of `url`, body read to the end, timed in the child. */
  get(url: string, headers?: Record<string, string>): Promise<TimedResponse>;
  stop(): void;
}

export async function startRequestTimer(): Promise<RequestTimer> {
  const child = fork(new URL(import.meta.url), ["--request-timer-child"], {
    execArgv: [...(import.meta.url.endsWith(".ts") ? ["--import", "tsx"] : []), "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await reply(child);
  return {
    async get(url, headers = {}) {
      child.send({ url, headers });
      return (await reply(child)) as TimedResponse;
    },
    stop: () => child.disconnect(),
  };
}

function reply(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`request timer exited (${code})`));
    child.once("exit", onExit);
    child.once("message", (message) => {
      child.off("exit", onExit);
      resolve(message);
    });
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET over the kept-alive connection: status, ETag, and the body's bytes as sent, counted and dropped. */
function getCounted(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; bytes: number; etag: string | null }> {
  return new Promise((resolve, reject) => {
    get(url, { agent, headers: { "Accept-Encoding": "br, gzip", ...headers } }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, bytes, etag: response.headers.etag ?? null }),
      );
      response.on("error", reject);
    }).on("error", reject);
  });
}

function runChild(): void {
  const collections: { start: number; ms: number }[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ start: entry.startTime, ms: entry.duration });
  }).observe({ entryTypes: ["gc"] });
  process.on("message", (message: { url: string; headers: Record<string, string> }) => {
    void (async () => {
      globalThis.gc?.({ type: "minor" });
      collections.length = 0;
      const started = performance.now();
      const { status, bytes, etag } = await getCounted(message.url, message.headers);
      const ended = performance.now();
      // Entries are delivered a little later than the collection.
      await new Promise((resolve) => setTimeout(resolve, 1));
      const timed: TimedResponse = {
        ms: ended - started,
        status,
        bytes,
        etag,
        clientGcMs: collections
          .filter(({ start }) => start >= started && start < ended)
          .reduce((sum, { ms }) => sum + ms, 0),
      };
      process.send!(timed);
    })();
  });
  process.on("disconnect", () => process.exit(0));
  process.send!("ready");
}

if (process.argv[2] === "--request-timer-child") runChild();
