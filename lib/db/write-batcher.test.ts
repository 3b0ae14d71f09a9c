import { describe, expect, it } from "vitest";
import { WriteBatcher } from "./write-batcher";

/** A run function whose batches the test releases one at a time. */
function gatedRun() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = async (jobs: number[]) => {
    batches.push(jobs);
    await new Promise<void>((resolve) => gates.push(resolve));
    return jobs.map((j) => j * 10);
  };
  const releaseNext = async () => {
    gates.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { batches, run, releaseNext };
}

describe("WriteBatcher", () => {
  it("sends a job at once when nothing is in flight, and groups the jobs that arrive meanwhile", async () => {
    const g = gatedRun();
    const batcher = new WriteBatcher(g.run, { maxInFlight: 1, maxBatch: 10 });
    const first = batcher.submit(1, null);
    expect(g.batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((j) => batcher.submit(j, null));
    expect(g.batches).toHaveLength(1);
    await g.releaseNext();
    expect(g.batches).toEqual([[1], [2, 3, 4]]);
    await g.releaseNext();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it("never puts two jobs with one key in a batch, and keeps their order", async () => {
    const g = gatedRun();
    const batcher = new WriteBatcher(g.run, { maxInFlight: 1, maxBatch: 10 });
    const all = [batcher.submit(1, "a"), batcher.submit(2, "a"), batcher.submit(3, "b"), batcher.submit(4, "a"), batcher.submit(5, null)];
    for (let i = 0; i < 4; i++) await g.releaseNext();
    expect(g.batches).toEqual([[1], [2, 3, 5], [4]]);
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
  });

  it("caps a batch at maxBatch and runs at most maxInFlight batches at once", async () => {
    const g = gatedRun();
    const batcher = new WriteBatcher(g.run, { maxInFlight: 2, maxBatch: 2 });
    const all = [1, 2, 3, 4, 5, 6].map((j) => batcher.submit(j, null));
    expect(g.batches).toEqual([[1], [2]]);
    await g.releaseNext();
    expect(g.batches).toEqual([[1], [2], [3, 4]]);
    for (let i = 0; i < 3; i++) await g.releaseNext();
    expect(g.batches).toEqual([[1], [2], [3, 4], [5, 6]]);
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it("retries a failed batch job by job, so only the bad job fails", async () => {
    const seen: number[][] = [];
    let hold: (() => void) | undefined;
    const run = async (jobs: number[]) => {
      seen.push(jobs);
      if (jobs[0] === 0) await new Promise<void>((r) => (hold = r));
      if (jobs.includes(3)) throw new Error("job 3 is bad");
      return jobs.map((j) => -j);
    };
    const batcher = new WriteBatcher(run, { maxInFlight: 1, maxBatch: 10 });
    const blocker = batcher.submit(0, null);
    const results = [2, 3, 4].map((j) => batcher.submit(j, null).then((v) => ({ ok: v }), (e: Error) => ({ err: e.message })));
    hold!();
    await blocker;
    expect(await Promise.all(results)).toEqual([{ ok: -2 }, { err: "job 3 is bad" }, { ok: -4 }]);
    expect(seen).toEqual([[0], [2, 3, 4], [2], [3], [4]]);
  });
});
