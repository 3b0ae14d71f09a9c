import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serverNodeOptions } from "../build/server-node-options.mjs";

const root = path.resolve(import.meta.dirname, "../..");

// Long-lived objects from one allocation site: V8 decides to pretenure the site after a few scavenges.
const WORKLOAD = `
const keep = [];
const make = (i) => ({ a: i, b: [i, i + 1], c: "x" + i });
for (let round = 0; round < 12; round++) for (let i = 0; i < 200000; i++) keep.push(make(i));
`;

/** The pretenuring decisions V8 reports (`--trace-pretenuring-statistics`) for the workload, after `preamble`. */
function pretenuringDecisions(preamble: string, nodeArgs: string[] = []): number {
  const result = spawnSync(process.execPath, [...nodeArgs, "--trace-pretenuring-statistics", "--import", "tsx", "--input-type=module", "-e", `${preamble}\n${WORKLOAD}`], {
    cwd: root,
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  return (result.stdout.match(/=> (maybe )?tenure/g) ?? []).length;
}

describe("the server's V8 flags", () => {
  const flags = `import "./lib/server/v8-flags.ts";`;

  it("turns allocation-site pretenuring off before the server allocates", () => {
    expect(pretenuringDecisions("")).toBeGreaterThan(0);
    expect(pretenuringDecisions(flags)).toBe(0);
  });

  it("leaves the flag to a command line that names it", () => {
    expect(pretenuringDecisions(flags, ["--allocation-site-pretenuring"])).toBeGreaterThan(0);
  });

  it("runs the garbage collector on the main thread under npm start's node options", () => {
    // A workload whose old generation keeps growing: V8 marks it concurrently, on its worker
    // threads, unless the process started with --single-threaded-gc. Prints the CPU time the
    // process's threads other than the main one spent (/proc/self/task), in clock ticks.
    const workload = `
      import fs from "node:fs";
      const keep = [];
      for (let round = 0; round < 30; round++) {
        for (let i = 0; i < 100000; i++) keep.push({ a: i, b: [i], c: "x" + i });
        if (keep.length > 1500000) keep.splice(0, 750000);
      }
      let ticks = 0;
      for (const task of fs.readdirSync("/proc/self/task")) {
        if (Number(task) === process.pid) continue;
        const fields = fs.readFileSync("/proc/self/task/" + task + "/stat", "utf8").split(") ")[1].split(" ");
        ticks += Number(fields[11]) + Number(fields[12]);
      }
      console.log(ticks);`;
    const otherThreadsTicks = (nodeArgs: string[]) => {
      const result = spawnSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", workload], { encoding: "utf8" });
      expect(result.status).toBe(0);
      return Number(result.stdout.trim());
    };
    expect(serverNodeOptions(root)).toContain("--single-threaded-gc");
    expect(otherThreadsTicks([])).toBeGreaterThan(5);
    // A tick or two may go on the compiler's background thread.
    expect(otherThreadsTicks(serverNodeOptions(root))).toBeLessThanOrEqual(2);
  });
});
