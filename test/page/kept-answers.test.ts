import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeptAnswers, type KeptAnswersPolicy } from "../../lib/page/kept-answers.js";
import { eventually } from "../support/eventually.js";

const POLICY: KeptAnswersPolicy = {
  capacity: 4,
  maxBytes: 1000,
  ttlMs: 5000,
  maxStaleMs: 5000,
  minGapMs: 0,
  settleMs: 0,
  interestMs: 600_000,
};

/** A build the test ends when it wants, and the value it gives. */
interface Held {
  finish(value: string): void;
  fail(error: Error): void;
}

/** KeptAnswers over a write counter and a clock the test moves, with builds it holds and ends. */
function harness(policy: Partial<KeptAnswersPolicy> = {}) {
  const state = { changes: 0, now: 1_000_000, errors: [] as unknown[] };
  const held: Held[] = [];
  const answers = new KeptAnswers<string | null>({
    policy: { ...POLICY, ...policy },
    changes: () => state.changes,
    bytesOf: (value) => value?.length ?? 0,
    keep: (value) => value !== null,
    onError: (error) => state.errors.push(error),
    now: () => state.now,
  });
  const build = () => new Promise<string | null>((resolve, reject) => held.push({ finish: resolve, fail: reject }));
  /** Lets pending promise callbacks run. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const write = () => {
    state.changes++;
    answers.changed();
  };
  return { state, held, answers, build, settle, write };
}

describe("kept answers, rebuilt in the background", () => {
  it("the first request waits for the first build; repeats are the kept answer, with no build", async () => {
    const { answers, build, held, settle } = harness();
    const first = answers.get("k", build);
    await settle();
    assert.equal(held.length, 1);
    held[0].finish("v1");
    assert.equal(await first, "v1");
    assert.equal(await answers.get("k", build), "v1");
    assert.equal(answers.buildCount, 1);
  });

  it("after a write, requests get the kept answer until the rebuild is done, then the new one", async () => {
    const { answers, build, held, settle, write } = harness();
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    write();
    assert.equal(answers.buildCount, 2, "the write started a rebuild");
    assert.equal(await answers.get("k", build), "v1", "the kept answer while it runs");
    held[1].finish("v2");
    await settle();
    assert.equal(await answers.get("k", build), "v2");
    assert.equal(answers.buildCount, 2, "nothing more to build");
  });

  it("a burst of writes while a rebuild runs costs one more rebuild, not one per write", async () => {
    const { answers, build, held, settle, write } = harness();
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    for (let n = 0; n < 10; n++) write();
    assert.equal(answers.buildCount, 2, "one rebuild for the burst so far");
    held[1].finish("v2 (missing the later writes)");
    await settle();
    assert.equal(answers.buildCount, 3, "one more for the writes it missed");
    assert.equal(await answers.get("k", build), "v2 (missing the later writes)", "served meanwhile");
    held[2].finish("v3");
    await settle();
    assert.equal(await answers.get("k", build), "v3");
    assert.equal(answers.buildCount, 3);
  });

  it("a write's rebuild waits settleMs, so the rest of its burst is in the same rebuild", async () => {
    const { answers, build, held, settle, write } = harness({ settleMs: 5 });
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    write();
    write();
    assert.equal(answers.buildCount, 1, "not yet begun");
    await eventually("the rebuild begun", async () => answers.buildCount === 2);
    held[1].finish("v2");
    await settle();
    assert.equal(await answers.get("k", build), "v2");
    assert.equal(answers.buildCount, 2, "both writes in one rebuild");
  });

  it("rebuilds start at least minGapMs apart", async () => {
    const { answers, build, held, settle, write } = harness({ minGapMs: 60_000 });
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    write();
    assert.equal(answers.buildCount, 1, "waits for the gap after the first build");
    assert.equal(await answers.get("k", build), "v1");
  });

  it("an answer out of date for longer than maxStaleMs is not served: the request waits for a rebuild begun after the change", async () => {
    const { state, answers, build, held, settle, write } = harness({ interestMs: 0 });
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    state.now += 1;
    write();
    assert.equal(answers.buildCount, 1, "not asked for lately: no rebuild on the write");
    state.now += POLICY.maxStaleMs + 1;
    const waiting = answers.get("k", build);
    await settle();
    assert.equal(held.length, 2, "the request began a rebuild");
    held[1].finish("v2");
    assert.equal(await waiting, "v2", "and got it, not the stale answer");
  });

  it("within maxStaleMs the out-of-date answer is served while the rebuild runs", async () => {
    const { state, answers, build, held, settle, write } = harness({ interestMs: 0 });
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    state.now += 1;
    write();
    state.now += POLICY.maxStaleMs - 1;
    assert.equal(await answers.get("k", build), "v1");
    assert.equal(answers.buildCount, 2, "the request began the rebuild");
    held[1].finish("v2");
    await settle();
    assert.equal(await answers.get("k", build), "v2");
  });

  it("a request asking for a write count gets no answer built before it: it waits for the rebuild running, or one after it", async () => {
    const { state, answers, build, held, settle, write } = harness();
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    assert.equal(await answers.get("k", build, 0), "v1", "built at that count: served");
    write();
    assert.equal(await answers.get("k", build), "v1", "an ordinary request: the kept answer while the rebuild runs");
    const covering = answers.get("k", build, state.changes);
    held[1].finish("v2");
    assert.equal(await covering, "v2", "waited for the rebuild the write began");
    // A rebuild begun before the asked-for write is waited for, then one more.
    write();
    const older = answers.get("k", build, state.changes);
    write();
    const newer = answers.get("k", build, state.changes);
    await settle();
    assert.equal(held.length, 3, "one rebuild running");
    held[2].finish("v3 (missing the last write)");
    assert.equal(await older, "v3 (missing the last write)");
    await settle();
    assert.equal(held.length, 4, "the request asking for the last write began another");
    held[3].finish("v4");
    assert.equal(await newer, "v4");
  });

  it("an answer older than ttlMs (writes of other processes) is served once more while it is rebuilt", async () => {
    const { state, answers, build, held, settle } = harness();
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    state.now += POLICY.ttlMs;
    assert.equal(await answers.get("k", build), "v1");
    assert.equal(answers.buildCount, 2);
    held[1].finish("v2");
    await settle();
    assert.equal(await answers.get("k", build), "v2");
  });

  it("a failed rebuild keeps the kept answer and is reported; a failed first build fails its request", async () => {
    const { state, answers, build, held, settle, write } = harness();
    const first = answers.get("k", build);
    await settle();
    held[0].finish("v1");
    await first;
    write();
    held[1].fail(new Error("database away"));
    await settle();
    assert.equal(state.errors.length, 1);
    const again = answers.get("k", build);
    await settle();
    assert.equal(await again, "v1", "still within the bound");
    const cold = answers.get("other", build);
    await settle();
    held.at(-1)?.fail(new Error("database away"));
    await assert.rejects(cold, /database away/);
  });

  it("keeps at most `capacity` answers, least recently asked forgotten first; an answer not worth keeping is not kept", async () => {
    const { answers, held, settle } = harness({ capacity: 2 });
    const ask = async (key: string, value: string | null) => {
      const answer = answers.get(key, () => new Promise((resolve) => held.push({ finish: resolve, fail: () => {} })));
      await settle();
      held.at(-1)?.finish(value as string);
      return answer;
    };
    await ask("a", "A");
    await ask("b", "B");
    await answers.get("a", () => Promise.reject(new Error("kept: not built")));
    await ask("c", "C");
    assert.equal(answers.size, 2);
    assert.equal(await answers.get("a", () => Promise.reject(new Error("kept: not built"))), "A");
    assert.equal(await ask("missing", null), null);
    assert.equal(answers.size, 2, "a 404 takes no slot");
  });
});
