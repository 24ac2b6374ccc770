import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import vm from "node:vm";
import { packageRoot } from "../../lib/package-root.js";

const SCRIPT = readFileSync(path.join(packageRoot, "assets", "progress.js"), "utf8");
const WINDOW = 15 * 60_000;

interface Answer {
  status?: number;
  remaining?: number;
  body: { isRunning: boolean; lastSync?: string | null; progress?: { done: number; total: number } | null };
}

/**
 * Runs the dashboard's progress.js against a simulated clock: `answer(n)`
 * gives the n-th status response. Returns the times (ms) of every request
 * made within `until` ms and the progress line's last text.
 */
async function simulate(answer: (n: number) => Answer, until = WINDOW) {
  let now = 0;
  const timers: Array<{ at: number; run: () => void }> = [];
  const requests: number[] = [];
  const line = {
    hidden: false,
    textContent: "",
    dataset: {
      poll: "true",
      statusUrl: "/blogrollapi/api/status",
      lastSync: "",
      progressText: "{done} of {total}",
      runningText: "running",
      finishedText: "done",
    },
  };
  const context = {
    document: { getElementById: (id: string) => (id === "blogroll-progress" ? line : null) },
    setTimeout: (run: () => void, delay: number) => timers.push({ at: now + delay, run }),
    fetch: async () => {
      const { status = 200, remaining, body } = answer(requests.length);
      requests.push(now);
      const headers = new Headers(remaining === undefined ? {} : { "RateLimit-Remaining": String(remaining) });
      return new Response(JSON.stringify(body), { status, headers });
    },
    Number,
    String,
    Math,
  };
  vm.runInNewContext(SCRIPT, context);
  for (;;) {
    // Let the pending fetch and its promise chain settle before moving the clock.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    timers.sort((a, b) => a.at - b.at);
    const next = timers.shift();
    if (!next || next.at > until) break;
    now = next.at;
    next.run();
  }
  return { requests, text: line.textContent };
}

describe("dashboard progress poll (assets/progress.js, run in a VM with a simulated clock)", () => {
  it("stays far within Indiekit's 250 requests per 15 minutes during a run that never ends", async () => {
    const { requests, text } = await simulate(() => ({ body: { isRunning: true, progress: { done: 3, total: 10 } } }));
    assert.ok(requests.length <= 40, `${requests.length} requests in 15 minutes`);
    assert.ok(requests.length >= 20, "it keeps polling while the run goes on");
    const gaps = requests.slice(1).map((at, index) => at - requests[index]);
    assert.ok(
      gaps.every((gap, index) => index === 0 || gap >= gaps[index - 1]),
      "the interval never shrinks",
    );
    assert.equal(Math.max(...gaps), 30_000);
    assert.equal(text, "3 of 10");
  });

  it("stops when the run ends", async () => {
    const { requests, text } = await simulate((n) => ({
      body: { isRunning: n < 2, lastSync: n < 2 ? null : "2026-11-25T00:00:00Z" },
    }));
    assert.equal(requests.length, 3);
    assert.equal(text, "done");
  });

  it("stops when the host's rate limit runs low or refuses", async () => {
    const low = await simulate((n) => ({ remaining: n < 2 ? 200 : 40, body: { isRunning: true } }));
    assert.equal(low.requests.length, 3, "the third answer says only 40 are left");
    const refused = await simulate((n) =>
      n === 0 ? { body: { isRunning: true } } : { status: 429, body: { isRunning: true } },
    );
    assert.equal(refused.requests.length, 2);
  });
});
