import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { NODE_BUNDLE } from "../build/node-bundle.mjs";
import { testRunTag } from "./template";

/**
 * The CLI's code bundled once per test run (global-setup.ts), as the server's is for `npm start`:
 * a start then costs about a third of tsx compiling and resolving `lib/cli/main.ts`'s modules
 * each time. Removed by the run's teardown.
 */
export async function bundleCliForTests(): Promise<string> {
  const known = process.env.TOLLGATE_TEST_CLI;
  if (known && fs.existsSync(known)) return known;
  const outfile = path.resolve("node_modules/.cache/tollgate-test", `cli-${testRunTag()}.mjs`);
  await build({ ...NODE_BUNDLE, entryPoints: ["lib/cli/main.ts"], outfile });
  process.env.TOLLGATE_TEST_CLI = outfile;
  return outfile;
}

/** The bundle's path in a test file's process (inherited from the global setup). */
export function bundledCli(): string {
  const cli = process.env.TOLLGATE_TEST_CLI;
  if (!cli) throw new Error("TOLLGATE_TEST_CLI is not set: the test run's global setup bundles the CLI");
  return cli;
}
