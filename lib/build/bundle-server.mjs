// Bundles the custom server (TypeScript) into dist/server.mjs; packages stay external.
import { build } from "esbuild";

await build({
  entryPoints: ["lib/server/main.ts"],
  outfile: "dist/server.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
console.log("bundled dist/server.mjs");
