/**
 * Worker-thread entry of the parse pool: runs one parse task per message
 * and answers with the result or a plain description of the error.
 */
import { parentPort } from "node:worker_threads";
import type { ParseReply, ParseRequest } from "./parse-pool.js";
import { crossingError, runParseTask } from "./parse-tasks.js";

const port = parentPort;
if (!port) throw new Error("parse-worker.ts must run in a worker thread");

port.on("message", (request: ParseRequest) => {
  runParseTask(request.task).then(
    (result) => port.postMessage({ id: request.id, ok: true, result } satisfies ParseReply),
    (error: unknown) =>
      port.postMessage({ id: request.id, ok: false, error: crossingError(error) } satisfies ParseReply),
  );
});
