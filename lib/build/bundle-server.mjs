// Bundles the custom server (TypeScript) into dist/server.mjs, and beside it the worker thread that
// converts OpenAPI documents (dist/openapi-worker.mjs, started by lib/catalog/openapi/isolated.ts);
// packages stay external.
import { build } from "esbuild";

await build({
  entryPoints: { server: "lib/server/main.ts", "openapi-worker": "lib/catalog/openapi/convert-worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
console.log("bundled dist/server.mjs and dist/openapi-worker.mjs");
