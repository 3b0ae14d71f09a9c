// `npm start`: build when the build is missing or older than the sources, then run the server.
import { spawnSync } from "node:child_process";
import { buildIsStale } from "./staleness.mjs";

if (buildIsStale()) {
  console.log("Building Tollgate (first start or sources changed)...");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
process.env.NODE_ENV = "production";
await import(new URL("../../dist/server.mjs", import.meta.url).href);
