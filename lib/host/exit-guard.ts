const EXIT_SIGNALS = ["SIGINT", "SIGTERM"] as const;
/** Longest the plugin holds back the host's exit on a signal while it stops. */
const EXIT_GRACE_MS = 5000;

/**
 * Runs `stop` when the process receives SIGINT or SIGTERM, holding back the
 * host's exit until it is done. Why: Indiekit exits on these signals without
 * calling its plugins, and calls `process.exit` as soon as its server has
 * closed (a tick later, before any promise of ours settles), which would leave
 * a running sync's lease held until it lapses. So while `stop` runs,
 * `process.exit` only records the exit asked for, and performs it once `stop`
 * settles (at most EXIT_GRACE_MS). When nothing else listens for the signal
 * (ours was the only handler), the process exits by the signal itself.
 * Returns the function that removes the guard.
 */
export function holdExitWhileStopping(stop: () => Promise<void>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    const exit = process.exit;
    let exitCode: Parameters<typeof process.exit>[0] | null = null;
    process.exit = ((code?: Parameters<typeof process.exit>[0]) => {
      exitCode = code ?? process.exitCode ?? 0;
    }) as typeof process.exit;
    const stopped = stop().catch(() => undefined);
    const grace = new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref());
    void Promise.race([stopped, grace]).then(() => {
      process.exit = exit;
      if (exitCode !== null) process.exit(exitCode);
      else if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };
  for (const signal of EXIT_SIGNALS) process.prependListener(signal, onSignal);
  return () => {
    for (const signal of EXIT_SIGNALS) process.off(signal, onSignal);
  };
}
