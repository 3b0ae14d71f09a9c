import fs from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "public", "next.config.ts", "package.json", "postcss.config.mjs"];
const OUTPUTS = ["dist/server.mjs", "dist/openapi-worker.mjs", ".next/BUILD_ID"];

// Files no build output contains: tests, benchmarks and the test helpers.
const NOT_BUILT = /(\.test\.tsx?$)|(^|\/)lib\/(bench|testing)(\/|$)/;

function newestMtime(p) {
  if (NOT_BUILT.test(p)) return 0;
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** True when an output is missing or any source file is newer than the oldest output. */
export function buildIsStale(root = process.cwd()) {
  let oldestOutput = Infinity;
  for (const out of OUTPUTS) {
    try {
      oldestOutput = Math.min(oldestOutput, fs.statSync(path.join(root, out)).mtimeMs);
    } catch {
      return true;
    }
  }
  const newestSource = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s))));
  return newestSource > oldestOutput;
}
