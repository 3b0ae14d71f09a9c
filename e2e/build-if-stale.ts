import { spawnSync } from "node:child_process";
import { buildIsStale } from "../lib/build/staleness.mjs";

/**
 * Runs `npm run build` when dist/server.mjs or .next/BUILD_ID is missing or older than the
 * newest source file (the same check `npm start` makes), so a test run never exercises a stale
 * build and an unchanged tree is not rebuilt.
 */
export function buildIfStale(root: string = process.cwd()): void {
  if (!buildIsStale(root)) return;
  process.stdout.write("e2e: the production build is missing or stale; running `npm run build`...\n");
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status ?? result.signal})`);
}
