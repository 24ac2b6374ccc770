import v8 from "node:v8";

/**
 * The standalone server owns its process, so it chooses how V8 compiles
 * WebAssembly there, which in this process is the HTTP client's response
 * parser (undici's llhttp, compiled at the first outbound connection). By
 * default V8 recompiles a module's busy functions with its optimising
 * compiler while they run: for llhttp, a few hundred responses into a sync,
 * a compile that holds 20-37 MB of the C library's heap for a moment
 * (heaptrack), on a background thread whose arena keeps much of it, which
 * lands on the sync's peak. Its baseline code parses headers no slower at
 * these sizes (bench/sync-memory.ts), so the process keeps to it. Must run
 * before the first outbound connection; inside Indiekit the process, and
 * this choice, are the host's.
 */
export function compileWasmWithBaselineOnly(): void {
  v8.setFlagsFromString("--liftoff-only");
}
