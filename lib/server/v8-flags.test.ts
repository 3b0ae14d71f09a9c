import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Long-lived objects from one allocation site: V8 decides to pretenure the site after a few scavenges.
const WORKLOAD = `
const keep = [];
const make = (i) => ({ a: i, b: [i, i + 1], c: "x" + i });
for (let round = 0; round < 12; round++) for (let i = 0; i < 200000; i++) keep.push(make(i));
`;

/** The pretenuring decisions V8 reports (`--trace-pretenuring-statistics`) for the workload, after `preamble`. */
function pretenuringDecisions(preamble: string, nodeArgs: string[] = []): number {
  const result = spawnSync(process.execPath, [...nodeArgs, "--trace-pretenuring-statistics", "--import", "tsx", "--input-type=module", "-e", `${preamble}\n${WORKLOAD}`], {
    cwd: path.resolve(import.meta.dirname, "../.."),
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
});
