// The node options the production server runs with. `npm start`'s command line in package.json
// says them (`node <options> lib/build/start.mjs`, which runs the server in the same process);
// whatever else starts `dist/server.mjs` (the e2e tests, the benchmarks) reads them here, so the
// server they measure is the one `npm start` runs. Options V8 reads only as the process starts
// (`--single-threaded-gc`: docs/deployment.md) cannot be set from the server's own code.
import fs from "node:fs";
import path from "node:path";

/** The options between `node` and the script in package.json's `start` script. */
export function serverNodeOptions(root = process.cwd()) {
  const start = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts?.start ?? "";
  const words = start.trim().split(/\s+/);
  if (words[0] !== "node") return [];
  const options = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith("--")) break;
    options.push(word);
  }
  return options;
}
